#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole suite.
#   scripts/test.sh          release build (what CI runs)
#   scripts/test.sh asan     Debug + AddressSanitizer/UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
scripts/build.sh "$preset"
ctest --preset "$preset"
