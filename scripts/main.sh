#!/usr/bin/env bash
# tapir's main job: the learned-nonlinearity method of Teney et al. end to end
# on modular addition (p = 47), after installing what is missing and building.
#   1. Stage I: 4 models with their own weights share the MLP's learned spline
#      (tapir search);
#   2. Stage II: fresh models with that spline frozen against the GeLU
#      baseline, 3 seeds each (tapir compare), printing the comparison table;
#   3. offline HTML reports of both (tapir report).
# Everything lands in runs/main (replaced on every run). See
# docs/experiments.md for the method, its knobs and what they do.
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

# The model and optimizer both stages share: one block of width 64, AdamW
# with strong weight decay (the grokking setting of modular addition).
common=(--task modadd --opt p=47 --width 64 --layers 1 --lr 3e-3 --weight-decay 1
        --batch 256 --eval-every 100)

start=$SECONDS
"$tapir" search "${common[@]}" --mlp-act spline --models 4 --steps 1000 --out "$out/search"
"$tapir" compare "${common[@]}" --steps 2500 --seeds 3 --threshold 0.99 \
    --arch-file "$out/search/arch.safetensors" --out "$out/compare"
"$tapir" report "$out/search"
"$tapir" report "$out/compare"
echo "search and comparison took $((SECONDS - start)) s"
echo "reports: $out/compare/report.html (comparison), $out/search/report.html (Stage I)"
