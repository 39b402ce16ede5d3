#!/usr/bin/env bash
# Language-model functions across datasets and tokenization levels, the
# authors' published functions on small language models, and code against
# natural language: the paper's claims that functions learned on one text
# transfer to another and across tokenizations, and that the gains on code
# are slightly larger than on natural language.
#
# Four sources: Shakespeare and code (tapir's own engine/ sources), each on
# bytes (characters) and on a 1024-piece BPE tokenizer trained on its own
# training text. One MLP-spline search per source (2 models); then on each
# source as a target, GeLU against every source's functions and the
# authors' published layer-shared MLP and attention-input functions
# (data/lm-afs, frozen), 3 seeds each. Small models (2 blocks of width 128,
# 64-token windows, 400 steps): read the signs against GeLU with their
# spread, not the levels. Bits per byte puts characters and pieces on one
# scale.
#
# Usage: scripts/experiments/lm_transfer.sh [STEPS [SEEDS]]   (400 and 3)
source "$(dirname "$0")/common.sh"
out="$out_root/lm_transfer"
mkdir -p "$out"
steps="${1:-400}"
seeds="${2:-3}"
shakespeare="${SHAKESPEARE:-data/text/tinyshakespeare.txt}"
lmafs_csv=data/lm-afs/ptAf-optimizedMlpAtt-layerShared-phase1-step20000.csv

corpus_of() { case "$1" in shakespeare-*) echo "$shakespeare" ;; code-*) echo engine ;; esac; }

# The text task's options of a source: its corpus, and its tokenizer on subwords.
task_options() {
  local -a opts=(--task text --opt "path=$(corpus_of "$1")" --opt context=64)
  [[ $1 == *-sub ]] && opts+=(--opt "tokenizer=$out/${1%-sub}.model")
  echo "${opts[@]}"
}

model=(--width 128 --layers 2 --heads 4 --batch 16 --lr 1e-3 --eval-every 100 --eval-limit 100)
sources=(shakespeare-char shakespeare-sub code-char code-sub)

for corpus in shakespeare code; do
  if [[ ! -f $out/$corpus.model ]]; then
    timed "$corpus: tokenizer" "$tapir" tokenizer train --path "$(corpus_of "$corpus-")" \
      --vocab-size 1024 --out "$out/$corpus.model"
  fi
done
if [[ ! -f $out/lmafs.arch.safetensors ]]; then
  "$tapir" arch import "$lmafs_csv" -o "$out/lmafs.arch.safetensors"
fi

for source in "${sources[@]}"; do
  # shellcheck disable=SC2046
  search_once "$source: MLP spline search" "$out/search-$source" $(task_options "$source") \
    "${model[@]}" --mlp-act spline --models 2 --steps "$steps"
done

for target in "${sources[@]}"; do
  variants=(--variant baseline)
  for source in "${sources[@]}"; do
    variants+=(--variant "arch:$out/search-$source/arch.safetensors")
  done
  variants+=(--variant "arch:$out/lmafs.arch.safetensors,attn-fn=spline")
  # shellcheck disable=SC2046
  timed "$target: comparison" "$tapir" compare $(task_options "$target") "${model[@]}" \
    --steps "$steps" --seeds "$seeds" --threshold 0.3 --threads 1 --quiet "${variants[@]}" \
    --out "$out/compare-$target" >/dev/null
done

# The table: per target and functions, the final test bits per byte
# (median over seeds [min, max]) and its difference from GeLU seed by seed
# (both saw the same data order): median [min, max] of the differences and
# on how many seeds the functions were lower (bpb_by_seed and summary:
# common.sh).
echo "| target | functions | test bits per byte: median [min, max] | minus GeLU, seed by seed: median [min, max] | seeds lower |"
echo "|---|---|---|---|---|"
for target in "${sources[@]}"; do
  cmp="$out/compare-$target"
  bpb_by_seed "$cmp" baseline >"$out/baseline-$target.txt"
  printf "| %s | GeLU | %s | | |\n" "$target" "$(cut -d' ' -f2 "$out/baseline-$target.txt" | summary | tr -d +)"
  while read -r variant; do
    bpb_by_seed "$cmp" "$variant" >"$out/variant.txt"
    level=$(cut -d' ' -f2 "$out/variant.txt" | summary | tr -d '+')
    diffs=$(join "$out/variant.txt" "$out/baseline-$target.txt" | awk '{ print $2 - $3 }')
    lower=$(awk '$1 < 0' <<<"$diffs" | wc -l)
    name=${variant#arch:"$out"/}
    name=${name%/arch.safetensors}
    name=${name%.arch.safetensors,attn-fn=spline}
    printf "| %s | %s | %s | %s | %s of %s |\n" "$target" "${name#search-}" "$level" \
      "$(summary <<<"$diffs")" "$lower" "$(wc -l <"$out/variant.txt")"
  done < <(jq -r '.variants[].variant | select(. != "baseline")' "$cmp/compare.json")
done
