#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole suite.
#   scripts/test.sh          what CI runs: the release build (CPU target auto)
#                            with the AVX-512 compile check, its suite, then
#                            the portable build (x86-64-v2: no AVX, no FMA)
#                            and the same suite again
#   scripts/test.sh release  the release build and its suite only
#   scripts/test.sh portable the portable build and its suite only
#   scripts/test.sh asan     RelWithDebInfo + AddressSanitizer/UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-all}" in
  all)
    scripts/build.sh release -DTAPIR_AVX512_CHECK=ON
    ctest --preset release
    scripts/build.sh portable
    ctest --preset portable
    ;;
  release | portable | asan)
    scripts/build.sh "$1"
    ctest --preset "$1"
    ;;
  *)
    echo "usage: scripts/test.sh [release|portable|asan]" >&2
    exit 2
    ;;
esac
