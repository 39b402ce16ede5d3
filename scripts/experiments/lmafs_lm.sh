#!/usr/bin/env bash
# The authors' published functions in the authors' model: lm_transfer.sh
# found them worse than GeLU in tapir's default model (LayerNorm, learned
# positions, AdamW); here the model is the reference's (`--preset lm-afs`:
# RoPE, RMSNorm, QK norm, no biases, tied embeddings, zeroed output
# projections, Adam 6e-4 on a trapezoid) at lm_transfer.sh's size (2
# blocks of width 128, 64-token windows, 400 steps). On Shakespeare and
# code, characters and 1024-piece BPE: GeLU against the published MLP
# function alone and against the MLP and attention-input functions, 3
# seeds, final test bits per byte and the difference from GeLU seed by seed.
#
# Usage: scripts/experiments/lmafs_lm.sh [STEPS [SEEDS]]   (400 and 3)
source "$(dirname "$0")/common.sh"
out="$out_root/lmafs_lm"
mkdir -p "$out"
steps="${1:-400}"
seeds="${2:-3}"
shakespeare="${SHAKESPEARE:-data/text/tinyshakespeare.txt}"
csv=data/lm-afs/ptAf-optimizedMlpAtt-layerShared-phase1-step20000.csv

[[ -f $out/lmafs.arch.safetensors ]] || "$tapir" arch import "$csv" -o "$out/lmafs.arch.safetensors" >/dev/null
if [[ ! -f $out/lmafs-mlp.arch.safetensors ]]; then
  head -n 8 "$csv" >"$out/lmafs-mlp.csv"  # the MLP function's 4 pairs of lines
  "$tapir" arch import "$out/lmafs-mlp.csv" -o "$out/lmafs-mlp.arch.safetensors" >/dev/null
fi
code=$(code_corpus)
for corpus in shakespeare code; do
  path=$shakespeare
  [[ $corpus == code ]] && path=$code
  [[ -f $out/$corpus.model ]] ||
    "$tapir" tokenizer train --path "$path" --vocab-size 1024 --out "$out/$corpus.model" >/dev/null
done

model=(--preset lm-afs --width 128 --layers 2 --heads 4 --batch 16 --eval-every 100 --eval-limit 100)
variants=(--variant baseline --variant "arch:$out/lmafs-mlp.arch.safetensors"
  --variant "arch:$out/lmafs.arch.safetensors,attn-fn=spline")
targets=(shakespeare-char shakespeare-sub code-char code-sub)
for target in "${targets[@]}"; do
  corpus=${target%-*}
  path=$shakespeare
  [[ $corpus == code ]] && path=$code
  task=(--task text --opt "path=$path" --opt context=64)
  [[ $target == *-sub ]] && task+=(--opt "tokenizer=$out/$corpus.model")
  timed "$target: published functions, the authors' model" "$tapir" compare "${task[@]}" \
    "${model[@]}" --steps "$steps" --seeds "$seeds" --threshold 0.3 --threads 1 --quiet \
    "${variants[@]}" --out "$out/compare-$target" >/dev/null
done

# Final test bits per byte per variant, and minus GeLU seed by seed
# (bpb_by_seed and summary: common.sh).
echo "| target | functions | test bits per byte: median [min, max] | minus GeLU, seed by seed: median [min, max] | seeds lower |"
echo "|---|---|---|---|---|"
for target in "${targets[@]}"; do
  cmp="$out/compare-$target"
  bpb_by_seed "$cmp" baseline >"$out/baseline.txt"
  printf "| %s | GeLU | %s | | |\n" "$target" "$(cut -d' ' -f2 "$out/baseline.txt" | summary | tr -d +)"
  for variant in "arch:$out/lmafs-mlp.arch.safetensors" \
    "arch:$out/lmafs.arch.safetensors,attn-fn=spline"; do
    bpb_by_seed "$cmp" "$variant" >"$out/variant.txt"
    diffs=$(join "$out/variant.txt" "$out/baseline.txt" | awk '{ print $2 - $3 }')
    name="published MLP"
    [[ $variant == *attn-fn* ]] && name="published MLP + attention input"
    printf "| %s | %s | %s | %s | %s of %s |\n" "$target" "$name" \
      "$(cut -d' ' -f2 "$out/variant.txt" | summary | tr -d +)" "$(summary <<<"$diffs")" \
      "$(awk '$1 < 0' <<<"$diffs" | wc -l)" "$(wc -l <"$out/variant.txt")"
  done
done
