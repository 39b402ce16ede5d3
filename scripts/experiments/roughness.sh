#!/usr/bin/env bash
# How rough the searched functions come out on 2-digit decimal addition (the
# main job's settings, scripts/main.sh): 3 searches each of
#   today: tapir search's defaults (GeLU-initialised 121-knot splines on
#     [-20, 20], held-out D_arch, gradients summed, no stagger, constant
#     function learning rate);
#   authors: the authors' code's protocol (64 knots on [-15, 15], constant
#     extrapolation, 0.01 at every knot, D_arch from the train split, mean of
#     the gradients, no smoothness term, stagger continue, function learning
#     rate on a trapezoid scaled to the 1000 steps: warmup 100, decay 500);
#   authors_full: as authors, the weights on the same trapezoid too.
# Prints each search's `tapir arch stats` means and search_result.json
# accuracies. docs/experiments.md holds the table.
source "$(dirname "$0")/common.sh"
out="$out_root/roughness"
mkdir -p "$out"
common=(--task add --opt digits=2 --opt reverse=true --width 64 --layers 2 --lr 3e-3 --batch 128
  --eval-every 100 --eval-limit 1000 --mlp-act spline --models 4 --steps 1000 --repeat 3)
authors=(--spline-knots 64 --spline-range -15,15 --spline-init const:0.01
  --spline-extrapolate constant --arch-split train --arch-grad mean --stagger continue
  --arch-schedule trapezoid --arch-warmup 100 --arch-decay 500)
search_once "today" "$out/today" "${common[@]}"
search_once "authors" "$out/authors" "${common[@]}" "${authors[@]}"
search_once "authors, weights' trapezoid" "$out/authors_full" "${common[@]}" "${authors[@]}" \
  --schedule trapezoid --warmup 100 --decay 500 --min-lr-ratio 0
for name in today authors authors_full; do
  for k in 0 1 2; do
    dir="$out/$name/search-$k"
    stats=$("$tapir" arch stats "$dir/arch.safetensors" | sed -n 's/^mean of .*: //p')
    accuracy=$(grep -o '"final_mean_test_accuracy": [0-9.e-]*' "$dir/search_result.json")
    echo "$name search-$k: $stats; $accuracy"
  done
done
