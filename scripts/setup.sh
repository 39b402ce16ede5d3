#!/usr/bin/env bash
# Installs what tapir needs to build and test on Debian 12, and does nothing
# when everything is already present. Needs root (or sudo) only to install.
set -euo pipefail

# dpkg-dev (dpkg-shlibdeps) and file: CPack's Debian package (the package test).
# libopenmpi-dev and openmpi-bin: several processes on one job (mpirun; docs/distributed.md).
# libxsmm-dev: the libxsmm products of `tapir bench --gemm` (optional to the build).
# libsentencepiece-dev: subword tokenizers (`tapir tokenizer train`, the text task).
# groff-base: the test that renders every man page `tapir man` writes.
# chromium: the tests that load the pages tapir writes in a browser (`tapir report
#   --watch`, and every panel seen in the pixels: tests/report_pixels.sh).
# libpng-dev: the test that reads those pixels (tests/page_pixels.cpp).
# jq: the experiment scripts (scripts/experiments/) read the comparisons' compare.json.
packages=(cmake ninja-build g++ libeigen3-dev libopenblas-dev doctest-dev libcli11-dev
  nlohmann-json3-dev dpkg-dev file libopenmpi-dev openmpi-bin libxsmm-dev libsentencepiece-dev
  groff-base chromium libpng-dev jq)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
