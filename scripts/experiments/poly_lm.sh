#!/usr/bin/env bash
# Polynomial export where the paper measured it, on a language model: the
# Shakespeare model's searched MLP splines (text_lm.sh, run it first) fitted
# with degree-8 polynomials over the range their inputs visit in seed 0 of
# its Stage II runs, then 3 fresh models with the polynomials in the same
# comparison folder (its finished runs are reused).
source "$(dirname "$0")/common.sh"
src="$out_root/text_lm/shakespeare"
arch="$src/search-mlp/arch.safetensors"
attn="$src/search-attn/arch.safetensors"
runs=("$src"/compare/*search_mlp_arch.safetensors)
if [[ ! -f "$arch" || ! -d "${runs[0]}/seed-0" ]]; then
  echo "poly_lm.sh needs text_lm.sh's Shakespeare runs in $src" >&2
  exit 2
fi
poly="$src/poly8.json"
timed "shakespeare: fit-poly" "$tapir" arch fit-poly "$arch" --degree 8 \
  --run "${runs[0]}/seed-0" -o "$poly" | tee "$src/fit8.txt"
timed "shakespeare: polynomial comparison" "$tapir" compare --task text \
  --opt "path=${SHAKESPEARE:-data/text/tinyshakespeare.txt}" --width 256 --layers 2 \
  --heads 4 --lr 1e-3 --batch 16 --eval-every 200 --eval-limit 200 --steps 600 --seeds 3 \
  --threshold 0.4,0.5 --threads 1 --quiet --variant baseline --variant "arch:$arch" \
  --variant "arch:$attn" --variant "mlp-poly=$poly" --out "$src/compare"
