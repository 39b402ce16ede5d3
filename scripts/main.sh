#!/usr/bin/env bash
# tapir's main job: the learned-nonlinearity method of Teney et al. end to end
# on two tasks, after installing what is missing and building. Per task:
#   1. Stage I: 3 independent searches, in each 4 models with their own
#      weights share the MLP's learned spline (tapir search --repeat 3);
#   2. Stage II: fresh models with each search's spline frozen against the
#      GeLU baseline, 5 seeds each (tapir compare, one --arch-file per
#      search), printing the comparison table with its 95% intervals;
#   3. offline HTML reports of the comparison and of every search.
# The tasks: modular addition (p = 47, 80% of the pairs for training, so
# that GeLU generalises within the budget) and 2-digit decimal addition.
# The last lines are one verdict per task over 3 searches x 5 seeds:
# faster, slower or inconclusive, with the ratio of steps to the threshold
# and its 95% interval (docs/experiments.md says how to read one), then
# one spread line per task: narrower, wider or inconclusive, with the ratio
# of the variances of log steps over seeds. Where tapir has MPI, two
# processes (mpirun -np 2), one per core, share each search's models and
# each comparison's runs; the bits are those of one process. Everything
# lands in runs/main (replaced on every run).
#   scripts/main.sh            with the release build
#   scripts/main.sh portable   with the portable build (x86-64-v2, CPU only)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
case "$preset" in
  release | portable) ;;
  *)
    echo "usage: scripts/main.sh [release|portable]" >&2
    exit 2
    ;;
esac
scripts/build.sh "$preset"
tapir=build/$preset/tools/tapir
out=runs/main
rm -rf "$out"

searches=3
seeds=5
# Two processes share a comparison's runs where tapir has MPI: each run is
# one small model, which one core trains best.
share=()
# Under mpirun every process's stdout is a terminal (Open MPI forwards it
# through one), so a log file would get the live progress bar: say which.
if [ ! -t 1 ]; then export TAPIR_PROGRESS=lines; fi
if "$tapir" --version | grep '^MPI: yes' >/dev/null && command -v mpirun >/dev/null; then
  share=(mpirun --oversubscribe -np 2)
  if [ "$(id -u)" -eq 0 ]; then share=(mpirun --allow-run-as-root --oversubscribe -np 2); fi
fi

# run_task NAME SEARCH_STEPS STEPS THRESHOLD OPTIONS...: Stage I, Stage II and
# the reports of one task in $out/NAME.
run_task() {
  local name="$1" search_steps="$2" steps="$3" threshold="$4"
  shift 4
  echo "== $name"
  "${share[@]}" "$tapir" search "$@" --mlp-act spline --models 4 --steps "$search_steps" --repeat "$searches" \
    --threads 1 --out "$out/$name/search"
  local arch_files=()
  for k in $(seq 0 $((searches - 1))); do
    arch_files+=(--arch-file "$out/$name/search/search-$k/arch.safetensors")
  done
  "${share[@]}" "$tapir" compare "$@" --steps "$steps" --seeds "$seeds" --threshold "$threshold" \
    "${arch_files[@]}" --threads 1 --out "$out/$name/compare"
  for k in $(seq 0 $((searches - 1))); do "$tapir" report "$out/$name/search/search-$k"; done
  "$tapir" report "$out/$name/compare"
}

start=$SECONDS
# Modular addition: one block of width 64, AdamW with strong weight decay
# (the grokking setting). With half the pairs for training, GeLU's test
# accuracy is still near 0.5 after 2500 steps; with 80% it passes 0.99
# within a few hundred.
run_task modadd 1000 1500 0.99 --task modadd --opt p=47 --opt train-frac=0.8 --width 64 --layers 1 \
  --lr 3e-3 --weight-decay 1 --batch 256 --eval-every 100
# Decimal addition, two digits, answer reversed: two blocks of width 64;
# the threshold is 90%, which GeLU passes after a few hundred steps.
run_task add 1000 1500 0.9 --task add --opt digits=2 --opt reverse=true --width 64 --layers 2 \
  --lr 3e-3 --batch 128 --eval-every 100 --eval-limit 1000
echo "searches and comparisons took $((SECONDS - start)) s"
echo "reports: $out/TASK/compare/report.html (comparison), $out/TASK/search/search-K/report.html (Stage I)"
echo "verdicts (the searched splines against the GeLU baseline, $searches searches x $seeds seeds):"
for name in modadd add; do
  sed -n "s|^verdict: arch: $searches searches is |  $name: |p" "$out/$name/compare/compare.md"
done
echo "spreads over seeds (the same runs):"
for name in modadd add; do
  sed -n "s|^spread: arch: $searches searches is |  $name: |p" "$out/$name/compare/compare.md"
done
