#!/usr/bin/env bash
# tapir's main job: the headline claims of Teney et al. (ICLR 2026) on
# learned nonlinearities, measured under the protocol under which COPY and
# MANO reproduce here (`--protocol authors`: Stage I and both stages'
# learning-rate schedules as the authors' public code, idiap/lm-afs;
# docs/protocols.md), after installing what is missing and building the
# program (not the tests).
# It measures four claim records (claims/records/ID.json) with `tapir claims
# run`, whose experiments (claims/experiments.json) each run:
#   1. Stage I: 3 independent searches, in each 4 models with their own
#      weights share the MLP's learned spline (seeded as search --repeat 3);
#   2. Stage II: fresh models with each search's spline frozen against the
#      GeLU baseline over the same 3 seeds (tapir compare, one --arch-file
#      per search), the table with its 95% intervals;
# then offline HTML reports of the comparison and of every search.
# The experiments: 3-digit decimal addition (ADD; steps to 90% on test) and
# COPY with ALiBi positions (trained on lengths 2-10; final accuracy on
# lengths 11-30, test_long, and steps to 90% within the training lengths).
# The last lines are one per claim, written by the renderer of
# docs/claims.md from the records measured here (runs/main/claims): the
# claim, the paper's figure, the figure here with its 95% interval and n
# (searches x seeds), and the status by the rule of claims/README.md. Where
# tapir has MPI, two processes (mpirun -np 2), one per core, share each
# search's models and each comparison's runs; the bits are those of one
# process. Everything lands in runs/main (replaced on every run).
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
scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target tapir
tapir=build/$preset/tools/tapir
out=runs/main
rm -rf "$out"

# The claims the job measures (claims/records/ID.json): their experiments
# (claims/experiments.json: add3-authors, copy-authors) run once each.
claims=(T1-add3-authors T3-add3-authors T3-copy-authors T5-copy-authors)
# Two processes share a search's models and a comparison's runs where tapir
# has MPI: each run is one small model, which one core trains best.
ranks=1
# Under mpirun every process's stdout is a terminal (Open MPI forwards it
# through one), so a log file would get the live progress bar: say which.
if [ ! -t 1 ]; then export TAPIR_PROGRESS=lines; fi
if "$tapir" --version | grep '^MPI: yes' >/dev/null && command -v mpirun >/dev/null; then
  ranks=2
fi

start=$SECONDS
# Stage I and Stage II of each experiment, then each claim's record written
# to $out/claims (the committed records in claims/records stay as they are).
"$tapir" claims run "${claims[@]}" --ranks "$ranks" --out "$out" --into "$out/claims"
echo "searches and comparisons took $((SECONDS - start)) s"
for experiment in add3-authors copy-authors; do
  for search in "$out/$experiment"/search/search-*; do "$tapir" report "$search" >/dev/null; done
  "$tapir" report "$out/$experiment/compare"
done
echo "reports: $out/EXPERIMENT/compare/report.html (comparison), $out/EXPERIMENT/search/search-K/report.html (Stage I)"

# One line per claim, written by the renderer of docs/claims.md from the
# records just measured: the claim, the paper's figure, the figure here with
# its 95% interval and n (searches x seeds), the status by the rule of
# claims/README.md.
echo "claims of Teney et al. (id | claim | paper | here | status):"
"$tapir" claims list --records "$out/claims" | sed 's/^/  /'
