#!/usr/bin/env bash
# MANO (modular arithmetic in prefix notation): at the task's defaults (mod
# 23, up to 8 operations) a small baseline stays near chance within any
# budget this machine affords (docs/tasks.md), so this uses the smallest
# setting tried where it comes near 90%: mod 7, up to 2 operations, two
# blocks of width 128, lr 1e-3 (0.83 test accuracy after 6000 steps). A Stage
# I search of 4 models, then the baseline against the searched spline, 3
# seeds of 10000 steps.
source "$(dirname "$0")/common.sh"
out="$out_root/mano"
mkdir -p "$out"
common=(--task mano --opt mod=7 --opt max-ops=2 --width 128 --layers 2 --lr 1e-3 --batch 128
        --eval-every 250 --eval-limit 1000)
search_once "mano: search" "$out/search" "${common[@]}" --mlp-act spline --models 4 --steps 5000
timed "mano: comparison" "$tapir" compare "${common[@]}" --steps 10000 --seeds 3 \
  --threshold 0.8,0.9 --threads 1 --quiet --variant baseline \
  --variant "arch:$out/search/arch.safetensors" --out "$out/compare"
