#!/usr/bin/env bash
# Learned functions in small language models, by where they sit: the MLP's
# activation (a spline in place of GeLU), the paper's attention score
# kernel (--attn score-spline) and the authors' function on the attention's
# input (--attn-fn spline: n + f(a n + b) before Q, K and V, idiap/lm-afs),
# each searched 3 times (`search --repeat 3`, 2 models each) on Shakespeare
# and on code (tapir's own engine/ sources at a fixed commit, common.sh
# code_corpus), characters, in lm_transfer.sh's
# model (2 blocks of width 128, 64-byte windows, 400 steps). Per corpus,
# GeLU against every search's functions, 3 seeds each, each family's 3
# searches pooled into one row (pool=NAME). Prints per corpus and family the
# final test bits per byte (the pooled median with its interval over 3
# searches x 3 seeds) and the difference from GeLU seed by seed (9 pairs):
# median [min, max] and how many are lower. The two corpora run side by
# side, one process each.
#
# Usage: scripts/experiments/lm_attention.sh [PROTOCOL] [STEPS [SEEDS]]
# (tapir's defaults, 400 and 3); CORPORA (shakespeare code) and FAMILIES
# (mlp score attn-fn) choose a part. PROTOCOL is an arm of common.sh
# authors_arms, scaled to STEPS, in $OUT/lm_attention_PROTOCOL: authors (the
# searches under the authors' protocol and the weights' trapezoid in every
# model, GeLU's too), one setting alone over the defaults (SETTING), the
# protocol less one (without_SETTING), or the weights' trapezoid in Stage II
# alone (stage2_lr). An arm whose searches are the defaults' (stage2_lr) or
# the authors' (without_stage2_lr) reuses theirs: run those first.
source "$(dirname "$0")/common.sh"
protocol=defaults
if [[ ${1:-} =~ ^[a-z_0-9]*[a-z][a-z_0-9]*$ ]]; then
  protocol="$1"
  shift
fi
steps="${1:-400}"
seeds="${2:-3}"
authors_arms "$steps" "$steps"
if [[ ! -v "arm[$protocol]" ]]; then
  echo "usage: scripts/experiments/lm_attention.sh [defaults|authors|stage2_lr|SETTING|without_SETTING]" \
    "[STEPS [SEEDS]] (SETTING: ${one_at_a_time[*]})" >&2
  exit 2
fi
out="$out_root/lm_attention"
[[ $protocol != defaults ]] && out+="_$protocol"
mkdir -p "$out"
split_arm "${arm[$protocol]}"
# Where the searches are: the defaults' or the authors' when the arm searches as they do.
searches="$out"
read -r -a authors_search <<<"${arm[authors]%%|*}"
if [[ ${#search_opts[@]} -eq 0 ]]; then
  searches="$out_root/lm_attention"
elif [[ "${search_opts[*]}" == "${authors_search[*]}" ]]; then
  searches="$out_root/lm_attention_authors"
fi
shakespeare="${SHAKESPEARE:-data/text/tinyshakespeare.txt}"
model=(--width 128 --layers 2 --heads 4 --batch 16 --lr 1e-3 --eval-every 100 --eval-limit 100)
declare -A family_flags=([mlp]="--mlp-act spline" [score]="--mlp-act gelu --attn score-spline"
  [attn-fn]="--mlp-act gelu --attn-fn spline")
declare -A corpus_path=([shakespeare]="$shakespeare" [code]="")
read -r -a corpora <<<"${CORPORA:-shakespeare code}"
read -r -a families <<<"${FAMILIES:-mlp score attn-fn}"
for name in "${corpora[@]}"; do
  [[ -v "corpus_path[$name]" ]] || { echo "CORPORA: unknown corpus $name (shakespeare, code)" >&2; exit 2; }
done
for family in "${families[@]}"; do
  [[ -v "family_flags[$family]" ]] || { echo "FAMILIES: unknown family $family (mlp, score, attn-fn)" >&2; exit 2; }
done
# An arm that reuses another's searches needs every one it will read.
if [[ $searches != "$out" ]]; then
  for name in "${corpora[@]}"; do
    for family in "${families[@]}"; do
      if [[ ! -f $searches/$name/search-$family/search-2/arch.safetensors ]]; then
        echo "lm_attention.sh $protocol reuses the searches in $searches: run" \
          "lm_attention.sh $([[ $searches == *_authors ]] && echo authors || echo defaults) first" >&2
        exit 2
      fi
    done
  done
fi

# corpus NAME PATH: the searches and the comparison of one corpus.
corpus() {
  local name="$1" task=(--task text --opt "path=$2" --opt context=64)
  local variants=(--variant baseline) flags
  for family in "${families[@]}"; do
    local dir="$searches/$name/search-$family"
    read -r -a flags <<<"${family_flags[$family]}"
    searches_once "$name: 3 $family searches" "$dir" "${task[@]}" "${model[@]}" "${flags[@]}" \
      "${search_opts[@]}" --models 2 --steps "$steps"
    for k in 0 1 2; do
      variants+=(--variant "arch:$dir/search-$k/arch.safetensors,pool=$family")
    done
  done
  timed "$name: comparison" "$tapir" compare "${task[@]}" "${model[@]}" "${stage2_opts[@]}" \
    --steps "$steps" --seeds "$seeds" --threshold 0.3 --threads 1 --quiet "${variants[@]}" \
    --out "$out/$name/compare" >/dev/null
}

[[ " ${corpora[*]} " == *" code "* ]] && corpus_path[code]=$(code_corpus)
pids=()
for name in "${corpora[@]}"; do
  corpus "$name" "${corpus_path[$name]}" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done  # under set -e, a corpus that failed stops the script here

# Per corpus, GeLU's level and each family's pooled row against it
# (bpb_level and against_gelu: common.sh).
echo "| corpus | functions | test bits per byte: median [95% CI] | minus GeLU, seed by seed: median [min, max] | pairs lower |"
echo "|---|---|---|---|---|"
for name in "${corpora[@]}"; do
  printf "| %s | GeLU | %s | | |\n" "$name" "$(bpb_level "$out/$name/compare" baseline)"
  for family in "${families[@]}"; do
    printf "| %s | %s | %s |\n" "$name" "$family" \
      "$(against_gelu "$out/$name/compare" "$family: 3 pooled" "$family")"
  done
done
