#!/usr/bin/env bash
# Polynomial export weighted by where the inputs fall, on the main job's
# decimal addition (run scripts/main.sh first): the splines of its search
# SEARCH (default 1) get degree-8 polynomials fitted over the range their
# inputs visit in seed 0 of the main job's Stage II run with them, once
# weighted by the inputs (fit-poly's default), once with uniform weights
# (fit-poly --uniform) and once weighted over the central 99% of the inputs
# (--central 0.99), all clamped to their range. Fresh models train with
# each in place of the splines, against the splines and GeLU (5 seeds, the
# main job's Stage II settings).
source "$(dirname "$0")/common.sh"
search="${SEARCH:-1}"
src="runs/main/add"
arch="$src/search/search-$search/arch.safetensors"
run="$src/compare/arch_runs_main_add_search_search_${search}_arch.safetensors/seed-0"
out="$out_root/poly_weighted"
mkdir -p "$out"
if [[ ! -f "$arch" || ! -d "$run" ]]; then
  echo "poly_weighted.sh needs scripts/main.sh's decimal-addition runs in $src" >&2
  exit 2
fi
timed "fit-poly weighted" "$tapir" arch fit-poly "$arch" --degree 8 --run "$run" \
  -o "$out/poly8-weighted.json" | tee "$out/fit-weighted.txt"
timed "fit-poly uniform" "$tapir" arch fit-poly "$arch" --degree 8 --run "$run" --uniform \
  -o "$out/poly8-uniform.json" | tee "$out/fit-uniform.txt"
timed "fit-poly central" "$tapir" arch fit-poly "$arch" --degree 8 --run "$run" --central 0.99 \
  -o "$out/poly8-central.json" | tee "$out/fit-central.txt"
share=()
if "$tapir" --version | grep '^MPI: yes' >/dev/null && command -v mpirun >/dev/null; then
  share=(mpirun --oversubscribe -np 2)
  if [ "$(id -u)" -eq 0 ]; then share=(mpirun --allow-run-as-root --oversubscribe -np 2); fi
fi
export TAPIR_PROGRESS=lines
timed "add: weighted polynomials" "${share[@]}" "$tapir" compare --task add --opt digits=2 \
  --opt reverse=true --width 64 --layers 2 --lr 3e-3 --batch 128 --eval-every 100 \
  --eval-limit 1000 --steps 1500 --seeds 5 --threshold 0.9 --threads 1 --quiet \
  --variant baseline --variant "arch:$arch" --variant "mlp-poly=$out/poly8-weighted.json" \
  --variant "mlp-poly=$out/poly8-uniform.json" --variant "mlp-poly=$out/poly8-central.json" \
  --out "$out/compare"
