#!/usr/bin/env bash
# The generalisation gap: where GeLU fits its training pairs but does not
# generalise, do learned functions reach a higher test accuracy? Modular
# addition with half of the p^2 pairs for training (the grokking setting of
# the main job's modadd, at train-frac 0.5 instead of 0.8): GeLU reaches
# train accuracy 1.0 within a few hundred steps while its test accuracy
# stays near 0.5 for thousands. Stage I as the main job runs it (3
# searches of 4 models, the arch split held out), then Stage II over 3
# searches x 5 seeds against GeLU. The tables give the final train and test
# accuracy with their 95% intervals and the steps to 99% on each split.
#
# Usage: scripts/experiments/generalisation.sh [STEPS]   (3000)
source "$(dirname "$0")/common.sh"
out="$out_root/generalisation"
mkdir -p "$out"
steps="${1:-3000}"
task=(--task modadd --opt p=47 --opt train-frac=0.5 --width 64 --layers 1 --lr 3e-3
  --weight-decay 1 --batch 256 --eval-every 100)

if [[ ! -f $out/search/search-2/arch.safetensors ]]; then
  timed "modadd half: 3 searches" "$tapir" search "${task[@]}" --mlp-act spline --models 4 \
    --steps 1000 --repeat 3 --threads 1 --quiet --force --out "$out/search"
fi
arch_files=()
for k in 0 1 2; do arch_files+=(--arch-file "$out/search/search-$k/arch.safetensors"); done
timed "modadd half: comparison" "$tapir" compare "${task[@]}" --steps "$steps" --seeds 5 \
  --threshold 0.99 "${arch_files[@]}" --threads 1 --quiet --out "$out/compare"
