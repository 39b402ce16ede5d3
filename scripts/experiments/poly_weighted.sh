#!/usr/bin/env bash
# Polynomial export weighted by where the inputs fall, on 2-digit decimal
# addition under tapir's defaults: the defaults arm of
# `authors_protocol.sh flips add` (run it first), the design the main job
# ran before it measured the claims. The splines of each of its 3 searches
# get degree-8 polynomials fitted over the range their inputs visit in
# seed 0 of that arm's Stage II run with them, once weighted by the inputs
# (fit-poly's default), once with uniform weights (fit-poly --uniform) and
# once weighted over the central 99% of the inputs (--central 0.99), all
# clamped to their range. Fresh models train with each in place of the
# splines against GeLU (5 seeds, that arm's Stage II settings); each fit's
# 3 searches are pooled into one row (pool=NAME), its verdict over 3
# searches x 5 seeds. The splines themselves are that arm's pooled row
# (the same seeds).
#
# Usage: scripts/experiments/poly_weighted.sh [defaults|authors]
# authors: the same over the decimal-addition searches and Stage II runs of
# the authors' protocol (run `authors_protocol.sh flips add` first), every
# model, GeLU's too, with the weights' trapezoid as there; in
# $out/poly_weighted_authors.
source "$(dirname "$0")/common.sh"
protocol="${1:-defaults}"
authors_arms 1000 1500
case "$protocol" in
  defaults)
    src="$out_root/authors_protocol/add/defaults"
    need="tapir's defaults' decimal-addition runs in $src (authors_protocol.sh flips add)"
    ;;
  authors)
    src="$out_root/authors_protocol/add/authors"
    need="the authors' protocol's decimal-addition runs in $src (authors_protocol.sh flips add)"
    ;;
  *)
    echo "usage: scripts/experiments/poly_weighted.sh [defaults|authors]" >&2
    exit 2
    ;;
esac
split_arm "${arm[$protocol]}"
out="$out_root/poly_weighted"
[[ $protocol == authors ]] && out+="_authors"
mkdir -p "$out"
variants=(--variant baseline)
for k in 0 1 2; do
  arch="$src/search/search-$k/arch.safetensors"
  # compare names a variant's folder after its arch file's path (the end of it).
  run=$(compgen -G "$src/compare/*search_${k}_arch.safetensors/seed-0" || true)
  if [[ ! -f "$arch" || ! -d "$run" ]]; then
    echo "poly_weighted.sh $protocol needs $need" >&2
    exit 2
  fi
  for fit in weighted uniform central; do
    case "$fit" in
      weighted) flags=() ;;
      uniform) flags=(--uniform) ;;
      central) flags=(--central 0.99) ;;
    esac
    file="$out/poly8-$fit-search-$k.json"
    timed "fit-poly $fit, search $k" "$tapir" arch fit-poly "$arch" --degree 8 --run "$run" \
      "${flags[@]}" -o "$file" >"$out/fit-$fit-search-$k.txt"
    variants+=(--variant "mlp-poly=$file,pool=poly8-$fit")
  done
done
export TAPIR_PROGRESS=lines
timed "add: weighted polynomials" "${share[@]}" "$tapir" compare --task add --opt digits=2 \
  --opt reverse=true --width 64 --layers 2 --lr 3e-3 --batch 128 --eval-every 100 \
  --eval-limit 1000 --steps 1500 --seeds 5 --threshold 0.9 --threads 1 --quiet \
  "${stage2_opts[@]}" "${variants[@]}" --out "$out/compare"
