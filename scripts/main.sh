#!/usr/bin/env bash
# tapir's main job: installs what is missing, builds, and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release
build/release/tools/tapir selfcheck
