#!/usr/bin/env bash
# COPY with ALiBi (Teney et al.'s length-generalisation claim): weights train
# on strings of length 2-10, the arch split reaches length 15, and test_long
# holds lengths 11-30. ALiBi alone against ALiBi with searched functions:
# an MLP spline, and a score spline in the attention, each from 3
# independent searches (`search --repeat 3`), each family compared with the
# baseline over 3 searches x 5 seeds (its pooled row and verdict). The two
# families run side by side, one process each. Prints both comparisons, with
# the accuracy by length on test_long.
#
# Usage: scripts/experiments/copy_alibi.sh [alibi|rope] [defaults|authors|stage2_lr|SETTING|without_SETTING]
# The positions: ALiBi, the paper's setting, by default; rope runs the same
# design with rotary positions, in $OUT/copy_rope. The protocol: tapir's
# defaults; the authors' (common.sh authors_arms: their Stage I settings,
# and the weights' trapezoid in Stage II for ALiBi alone and the splines
# alike), in $OUT/copy_POS_authors; or one of its settings alone over the
# defaults (grid, extrapolate, start, stream, mean, stagger, arch_lr,
# weights_lr), in $OUT/copy_POS_SETTING; or the authors' protocol less one
# of them, in $OUT/copy_POS_without_SETTING (also without_search_lr and
# without_stage2_lr: less the weights' trapezoid in the search only, in
# Stage II only). stage2_lr gives the weights' trapezoid to Stage II alone,
# over the defaults' MLP searches (run the defaults first). The authors' code learns MLP functions, so any protocol
# but the defaults runs only the MLP family.
source "$(dirname "$0")/common.sh"
pos="${1:-alibi}"
protocol="${2:-defaults}"
authors_arms 1500 1500
if [[ $pos != alibi && $pos != rope ]] || [[ ! -v "arm[$protocol]" ]]; then
  echo "usage: scripts/experiments/copy_alibi.sh [alibi|rope]" \
    "[defaults|authors|stage2_lr|SETTING|without_SETTING] (SETTING: ${one_at_a_time[*]})" >&2
  exit 2
fi
out="$out_root/copy_$pos"
searches="$out"  # where each family's searches are (search-NAME)
label="copy $pos"
if [[ $protocol != defaults ]]; then
  out+="_$protocol"
  label+=" ($protocol)"
  [[ $protocol != stage2_lr ]] && searches="$out"
fi
mkdir -p "$out"
split_arm "${arm[$protocol]}"
if [[ $protocol == stage2_lr && ! -f $searches/search-mlp/search-2/arch.safetensors ]]; then
  echo "copy_alibi.sh $pos stage2_lr needs the defaults' searches: run copy_alibi.sh $pos first" >&2
  exit 2
fi
common=(--task copy --pos "$pos" --width 64 --layers 2 --lr 3e-3 --batch 64 --eval-every 100
  --eval-limit 500)

# family NAME SEARCH_OPTIONS...: 3 searches, then their comparison with the baseline.
family() {
  local name="$1"
  shift
  local dir="$searches/search-$name"
  searches_once "$label: 3 $name searches" "$dir" "${common[@]}" "${search_opts[@]}" "$@" \
    --models 4 --steps 1500
  local arch_files=()
  for k in 0 1 2; do arch_files+=(--arch-file "$dir/search-$k/arch.safetensors"); done
  timed "$label: $name comparison" "$tapir" compare "${common[@]}" "${stage2_opts[@]}" \
    --steps 1500 --seeds 5 --threshold 0.9,0.99 --threads 1 --quiet "${arch_files[@]}" \
    --out "$out/compare-$name" >"$out/compare-$name.txt"
}

if [[ $protocol != defaults ]]; then
  family mlp --mlp-act spline
  cat "$out/compare-mlp.txt"
  exit
fi
family mlp --mlp-act spline &
mlp=$!
family score --mlp-act gelu --attn score-spline &
score=$!
wait "$mlp"
wait "$score"  # under set -e, a family that failed stops the script here
cat "$out/compare-mlp.txt" "$out/compare-score.txt"
