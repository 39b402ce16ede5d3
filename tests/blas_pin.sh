#!/usr/bin/env bash
# The same numbers on every machine a build runs on (engine/blas_kernels.h):
# a short search and a comparison, run with OpenBLAS told to use two
# different kernel tables (OPENBLAS_CORETYPE Haswell and Sandybridge, both of
# which an AVX2 machine runs), must write identical files, because tapir
# pins the kernels to its build's own. Then, to show the check can fail, one
# training run with the pin lifted (TAPIR_BLAS_CORETYPE=machine) under the
# same two tables must write different checkpoints.
#   blas_pin.sh TAPIR SOURCE_DIR WORK_DIR
# Exits 77 (skipped) on a CPU without AVX2 and FMA, or with an OpenBLAS
# whose kernels are fixed when it is built.
set -euo pipefail
tapir=$1
source_dir=$2
work=$3
if ! grep -qw avx2 /proc/cpuinfo || ! grep -qw fma /proc/cpuinfo; then
  echo "skipped: this CPU cannot run OpenBLAS's Haswell kernels"
  exit 77
fi
if "$tapir" --version | grep -q '^BLAS kernels: .*fixed when'; then
  echo "skipped: this OpenBLAS has one kernel table"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# run CORETYPE DIR: the search and the comparison, in DIR.
run() {
  local core=$1 dir=$2
  mkdir -p "$dir"
  (
    cd "$dir"
    export OPENBLAS_CORETYPE=$core
    "$tapir" search --task add --opt digits=2 --width 32 --layers 1 --mlp-act spline --models 2 \
      --stagger --steps 40 --eval-every 20 --eval-limit 200 --threads 1 --out search --quiet \
      2>search.log
    "$tapir" compare --task add --opt digits=2 --width 32 --layers 1 --steps 40 --eval-every 20 \
      --eval-limit 200 --seeds 2 --threshold 0.1 --arch-file search/arch.safetensors \
      --threads 1 --out compare --quiet >/dev/null
  )
  "$source_dir/scripts/mask_clock.sh" "$dir"
}
run Haswell haswell
run Sandybridge sandybridge
if ! diff -r haswell sandybridge; then
  echo "FAIL: with the kernels pinned, OPENBLAS_CORETYPE Haswell and Sandybridge wrote different files"
  exit 1
fi

for core in Haswell Sandybridge; do
  OPENBLAS_CORETYPE=$core TAPIR_BLAS_CORETYPE=machine "$tapir" train --task modadd --p 23 \
    --width 32 --steps 20 --eval-every 20 --threads 1 --out "free-$core" --quiet
done
if cmp -s free-Haswell/checkpoint.safetensors free-Sandybridge/checkpoint.safetensors; then
  echo "FAIL: unpinned, the two kernel tables wrote the same checkpoint: this check shows nothing"
  exit 1
fi
echo "ok: pinned kernels wrote identical files under both kernel tables; unpinned they differ"
