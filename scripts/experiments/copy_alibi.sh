#!/usr/bin/env bash
# COPY with ALiBi (Teney et al.'s length-generalisation claim): weights train
# on strings of length 2-10, the arch split reaches length 15, and test_long
# holds lengths 11-30. ALiBi alone against ALiBi with searched functions:
# an MLP spline, and a score spline in the attention. Prints the comparison,
# with the accuracy by length on test_long.
source "$(dirname "$0")/common.sh"
out="$out_root/copy_alibi"
mkdir -p "$out"
common=(--task copy --pos alibi --width 64 --layers 2 --lr 3e-3 --batch 64 --eval-every 100
        --eval-limit 500)
search_once "copy: MLP spline search" "$out/search-mlp" "${common[@]}" --mlp-act spline \
  --models 4 --steps 1500
search_once "copy: score-spline search" "$out/search-score" "${common[@]}" --mlp-act gelu \
  --attn score-spline --models 4 --steps 1500
timed "copy: comparison" "$tapir" compare "${common[@]}" --steps 1500 --seeds 5 \
  --threshold 0.9,0.99 --threads 1 --quiet --variant baseline \
  --variant "arch:$out/search-mlp/arch.safetensors" \
  --variant "arch:$out/search-score/arch.safetensors" --out "$out/compare"
