#!/usr/bin/env bash
# Character-level language models at the paper's small configuration (2
# blocks of width 256, 4 heads), on Shakespeare and on a code corpus (tapir's
# own engine/ sources): GeLU against a searched MLP spline and against a
# searched attention function (score spline), 3 seeds each. Short runs (600
# steps of 16 windows of 128 characters) to fit a 2-core machine: read them
# as the first stretch of training, not as converged models. The tables give
# validation loss (nats per character), bits per character (loss / ln 2)
# and next-character accuracy.
source "$(dirname "$0")/common.sh"
out="$out_root/text_lm"
mkdir -p "$out"
corpus_shakespeare="${SHAKESPEARE:-data/text/tinyshakespeare.txt}"

run_corpus() {
  local name="$1" path="$2"
  local -a common=(--task text --opt "path=$path" --width 256 --layers 2 --heads 4 --lr 1e-3
                   --batch 16 --eval-every 200 --eval-limit 200)
  local dir="$out/$name"
  search_once "$name: MLP spline search" "$dir/search-mlp" "${common[@]}" --mlp-act spline \
    --models 2 --steps 600
  search_once "$name: attention search" "$dir/search-attn" "${common[@]}" --mlp-act gelu \
    --attn score-spline --models 2 --steps 600
  timed "$name: comparison" "$tapir" compare "${common[@]}" --steps 600 --seeds 3 \
    --threshold 0.4,0.5 --threads 1 --quiet --variant baseline \
    --variant "arch:$dir/search-mlp/arch.safetensors" \
    --variant "arch:$dir/search-attn/arch.safetensors" --out "$dir/compare"
}

case "${1:-all}" in
  shakespeare) run_corpus shakespeare "$corpus_shakespeare" ;;
  code) run_corpus code "$(code_corpus)" ;;
  all)
    run_corpus shakespeare "$corpus_shakespeare"
    run_corpus code "$(code_corpus)"
    ;;
  *)
    echo "usage: $0 [shakespeare|code|all]" >&2
    exit 2
    ;;
esac
