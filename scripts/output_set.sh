#!/usr/bin/env bash
# Writes a fixed set of tapir outputs into one folder, so that two builds (or
# two commits) can be compared byte for byte with `diff -r`: a train run
# (config, metrics, checkpoint), a resumed run, a staggered search folder, a
# comparison (tables, JSON, verdicts), their HTML reports, a dump, an eval
# and an architecture plot. Small settings: about a minute on one core.
#   scripts/output_set.sh TAPIR OUT
# e.g. scripts/output_set.sh build/release/tools/tapir /tmp/set-after, then
#   diff -r /tmp/set-before /tmp/set-after
# What holds wall-clock time or the build (seconds, speeds, the version) is
# masked by scripts/mask_clock.sh, so what remains must be identical for the
# same binary and inputs on any machine that runs it.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/output_set.sh TAPIR OUT" >&2
  exit 2
fi
tapir="$(realpath "$1")"
scripts="$(realpath "$(dirname "$0")")"
rm -rf "$2"
mkdir -p "$2"
cd "$2"
# Relative paths: run folders record their own path.
out=.
common=(--threads 1)
run() { "$tapir" "$@" "${common[@]}" >>"$out/stdout.txt" 2>&1; }

run train --task modadd --p 47 --width 64 --layers 1 --steps 120 --eval-every 40 --out "$out/train"
run train --task modadd --p 47 --width 64 --layers 1 --steps 60 --eval-every 40 --out "$out/resumed"
run train --resume "$out/resumed" --steps 120
run train --task add --opt digits=2 --width 64 --layers 1 --mlp-act spline --attn score-spline \
  --pos alibi --steps 60 --eval-every 30 --out "$out/spline"
run search --task modadd --p 47 --width 64 --layers 1 --mlp-act spline --models 3 --stagger \
  --steps 90 --eval-every 30 --out "$out/search"
run compare --task modadd --p 47 --width 64 --layers 1 --steps 90 --eval-every 30 --seeds 2 \
  --threshold 0.1,0.5 --arch-file "$out/search/arch.safetensors" --out "$out/compare"
run eval --checkpoint "$out/train"
run dump --checkpoint "$out/train" --out "$out/dump.safetensors"
"$tapir" report "$out/search" >>"$out/stdout.txt" 2>&1
"$tapir" report "$out/compare" >>"$out/stdout.txt" 2>&1
"$tapir" plot arch "$out/search/arch.safetensors" -o "$out/arch.svg" >>"$out/stdout.txt" 2>&1
"$scripts/mask_clock.sh" "$out"
echo "wrote $2"
