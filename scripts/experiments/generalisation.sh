#!/usr/bin/env bash
# The generalisation gap: where GeLU fits its training pairs but does not
# generalise, do learned functions reach a higher test accuracy (the
# paper's claim)? Modular addition p = 47 in the main job's setting (one
# block of width 64, AdamW lr 3e-3, weight decay 1, batches of 256) with a
# smaller share of the p^2 pairs for training: 0.5 by default, where GeLU
# fits the training pairs within a few hundred steps and generalises later
# (grokking), and 0.3, where it has fewer pairs to generalise from. Stage I
# as the main job runs it (3 searches of 4 models, the arch split held out),
# then Stage II over 3 searches x 5 seeds against GeLU; compare's tables
# give the final train and test accuracy with their 95% intervals and the
# steps to 99% on each split.
#
# Usage: scripts/experiments/generalisation.sh [STEPS [TRAIN_FRAC]]   (3000 0.5)
source "$(dirname "$0")/common.sh"
steps="${1:-3000}"
frac="${2:-0.5}"
out="$out_root/generalisation-$frac"
mkdir -p "$out"
task=(--task modadd --opt p=47 --opt "train-frac=$frac" --width 64 --layers 1 --lr 3e-3
  --weight-decay 1 --batch 256 --eval-every 100)

searches_once "modadd train-frac $frac: 3 searches" "$out/search" "${task[@]}" --mlp-act spline \
  --models 4 --steps 1000
arch_files=()
for k in 0 1 2; do arch_files+=(--arch-file "$out/search/search-$k/arch.safetensors"); done
timed "modadd train-frac $frac: comparison" "$tapir" compare "${task[@]}" --steps "$steps" \
  --seeds 5 --threshold 0.99 "${arch_files[@]}" --threads 1 --quiet --out "$out/compare"
