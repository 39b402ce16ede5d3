#!/usr/bin/env bash
# Language-model functions across datasets and tokenization levels, the
# authors' published functions on small language models, and code against
# natural language: the paper's claims that functions learned on one text
# transfer to another and across tokenizations, and that the gains on code
# are slightly larger than on natural language.
#
# Four sources: Shakespeare and code (tapir's own engine/ sources at a
# fixed commit, common.sh code_corpus), each on
# bytes (characters) and on a 1024-piece BPE tokenizer trained on its own
# training text. Three independent MLP-spline searches per source (`search
# --repeat 3`, 2 models each); then on each source as a target, GeLU
# against every source's functions (its 3 searches pooled into one row,
# pool=SOURCE) and the authors' published layer-shared MLP and
# attention-input functions (data/lm-afs, frozen), 3 seeds each. Small
# models (2 blocks of width 128, 64-token windows, 400 steps): read the
# signs against GeLU with their spread, not the levels. Bits per byte puts
# characters and pieces on one scale. Two searches or targets at a time,
# one process each.
#
# Usage: scripts/experiments/lm_transfer.sh [STEPS [SEEDS]]   (400 and 3)
source "$(dirname "$0")/common.sh"
out="$out_root/lm_transfer"
mkdir -p "$out"
steps="${1:-400}"
seeds="${2:-3}"
shakespeare="${SHAKESPEARE:-data/text/tinyshakespeare.txt}"
lmafs_csv=data/lm-afs/ptAf-optimizedMlpAtt-layerShared-phase1-step20000.csv

code=$(code_corpus)
corpus_of() { case "$1" in shakespeare-*) echo "$shakespeare" ;; code-*) echo "$code" ;; esac; }

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

# search_source SOURCE: its 3 MLP-spline searches (reused once finished).
search_source() {
  # shellcheck disable=SC2046
  searches_once "$1: 3 MLP spline searches" "$out/search-$1" $(task_options "$1") "${model[@]}" \
    --mlp-act spline --models 2 --steps "$steps"
}

# compare_on TARGET: GeLU, every source's searches pooled, and the published functions.
compare_on() {
  local variants=(--variant baseline) source k
  for source in "${sources[@]}"; do
    for k in 0 1 2; do
      variants+=(--variant "arch:$out/search-$source/search-$k/arch.safetensors,pool=$source")
    done
  done
  variants+=(--variant "arch:$out/lmafs.arch.safetensors,attn-fn=spline")
  # shellcheck disable=SC2046
  timed "$1: comparison" "$tapir" compare $(task_options "$1") "${model[@]}" \
    --steps "$steps" --seeds "$seeds" --threshold 0.3 --threads 1 --quiet "${variants[@]}" \
    --out "$out/compare-$1" >/dev/null
}

in_parallel search_source shakespeare-char code-char
in_parallel search_source shakespeare-sub code-sub
in_parallel compare_on shakespeare-char code-char
in_parallel compare_on shakespeare-sub code-sub

# The table: per target, GeLU's final test bits per byte (median with its
# 95% interval) and, per source's pooled functions and the published ones,
# theirs and the difference from GeLU seed by seed (both saw the same data
# order): median [min, max] of the differences (9 pairs for a pool, 3 for
# the published functions) and how many are lower (bpb_level and
# against_gelu: common.sh).
echo "| target | functions | test bits per byte: median [95% CI] | minus GeLU, seed by seed: median [min, max] | pairs lower |"
echo "|---|---|---|---|---|"
for target in "${sources[@]}"; do
  cmp="$out/compare-$target"
  printf "| %s | GeLU | %s | | |\n" "$target" "$(bpb_level "$cmp" baseline)"
  for source in "${sources[@]}"; do
    printf "| %s | %s | %s |\n" "$target" "$source" "$(against_gelu "$cmp" "$source: 3 pooled" "$source")"
  done
  printf "| %s | lmafs | %s |\n" "$target" \
    "$(against_gelu "$cmp" "arch:$out/lmafs.arch.safetensors,attn-fn=spline")"
done
