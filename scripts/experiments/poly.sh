#!/usr/bin/env bash
# Polynomial export on decimal addition: the held-out search of arch_split.sh
# (run it first) gives per-block MLP splines; `tapir arch fit-poly` fits
# polynomials of degree 4 and 8 over the range the splines' inputs visit in
# a Stage II run that used them (seed 0 of arch_split's comparison), and
# fresh models train with the polynomials in place of the splines, against
# the splines themselves and the GeLU baseline (5 seeds).
source "$(dirname "$0")/common.sh"
out="$out_root/poly"
mkdir -p "$out"
src="$out_root/arch_split/add"
arch="$src/search-heldout/arch.safetensors"
runs=("$src"/compare/*search_heldout_arch.safetensors)
if [[ ! -f "$arch" || ! -d "${runs[0]}/seed-0" ]]; then
  echo "poly.sh needs arch_split.sh's decimal-addition runs in $src" >&2
  exit 2
fi
for degree in 4 8; do
  timed "fit-poly degree $degree" "$tapir" arch fit-poly "$arch" --degree "$degree" \
    --run "${runs[0]}/seed-0" -o "$out/poly$degree.json" | tee "$out/fit$degree.txt"
done
timed "add: polynomial comparison" "$tapir" compare --task add --opt digits=2 --opt reverse=true \
  --width 64 --layers 2 --lr 3e-3 --batch 128 --eval-every 100 --eval-limit 1000 --steps 2500 \
  --seeds 5 --threshold 0.9,0.99 --threads 1 --quiet --variant baseline --variant "arch:$arch" \
  --variant "mlp-poly=$out/poly4.json" --variant "mlp-poly=$out/poly8.json" --out "$out/compare"
