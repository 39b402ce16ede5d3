#!/usr/bin/env bash
# The authors' published functions (data/lm-afs: the layer-shared MLP and
# attention-input functions Teney et al. learned on web text), frozen, on
# the algorithmic tasks: do functions learned for language help or hurt
# decimal addition and COPY? GeLU against the published MLP function alone
# and against both functions (--attn-fn spline), 5 seeds each, in the main
# job's ADD setting and in the COPY-with-ALiBi setting of copy_alibi.sh
# (lengths 11-30 on test_long are beyond training).
source "$(dirname "$0")/common.sh"
out="$out_root/lmafs_algorithmic"
mkdir -p "$out"
csv=data/lm-afs/ptAf-optimizedMlpAtt-layerShared-phase1-step20000.csv
published="$out/lmafs.arch.safetensors"
mlp_only="$out/lmafs-mlp.arch.safetensors"
[[ -f $published ]] || "$tapir" arch import "$csv" -o "$published" >/dev/null
# The MLP function alone: the file's first 4 pairs of lines (knots, values)
# are its 4 layers' copies, the next 4 the attention-input function's.
if [[ ! -f $mlp_only ]]; then
  head -n 8 "$csv" >"$out/lmafs-mlp.csv"
  "$tapir" arch import "$out/lmafs-mlp.csv" -o "$mlp_only" >/dev/null
fi
variants=(--variant baseline --variant "arch:$mlp_only"
  --variant "arch:$published,attn-fn=spline")

add=(--task add --opt digits=2 --opt reverse=true --width 64 --layers 2 --lr 3e-3 --batch 128
  --eval-every 100 --eval-limit 1000)
timed "add: published functions" "$tapir" compare "${add[@]}" --steps 1500 --seeds 5 \
  --threshold 0.9 --threads 1 --quiet "${variants[@]}" --out "$out/add"

copy=(--task copy --pos alibi --width 64 --layers 2 --lr 3e-3 --batch 64 --eval-every 100
  --eval-limit 500)
timed "copy: published functions" "$tapir" compare "${copy[@]}" --steps 1500 --seeds 5 \
  --threshold 0.9,0.99 --threads 1 --quiet "${variants[@]}" --out "$out/copy"
