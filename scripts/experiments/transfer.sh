#!/usr/bin/env bash
# The transfer matrix over add, mano, dyck and copy at a budget where the
# baselines of add, dyck and copy pass 0.9 (mano's stays below it here, as in
# mano.sh): two blocks of width 64, lr 3e-3, 2000 steps per cell, 2
# seeds; add with 2 digits and the answer reversed, mano at mod 7 with up to
# 2 operations (mano.sh), dyck and copy at their defaults. Searches: 2
# models, 1500 steps each. Printed twice: final accuracy against the
# baseline, and the speed-up in steps to 0.9.
source "$(dirname "$0")/common.sh"
out="$out_root/transfer"
mkdir -p "$out"
args=(--tasks add,mano,dyck,copy --task-opt add:digits=2 --task-opt add:reverse=true
      --task-opt mano:mod=7 --task-opt mano:max-ops=2 --width 64 --layers 2 --lr 3e-3
      --mlp-act spline --search-steps 1500 --models 2 --steps 2000 --eval-every 100
      --eval-limit 500 --seeds 2 --threshold 0.9 --threads 1 --out "$out")
timed "transfer" "$tapir" transfer "${args[@]}" --quiet
cp "$out/transfer.md" "$out/accuracy.md"
# The same cells again, read as steps to 0.9 (everything is reused).
"$tapir" transfer "${args[@]}" --metric steps --quiet > "$out/steps.md"
cat "$out/steps.md"
