#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) after setup.
#   scripts/build.sh [release|portable|asan] [-DVAR=VALUE ...]
# Extra arguments go to the configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
scripts/setup.sh
cmake --preset "$preset" "$@" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
