#!/usr/bin/env bash
# tapir's main job: installs what is missing, builds, then trains a
# transformer on modular addition (p = 97) until it answers every held-out
# pair correctly, and says at which step and time it got there.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release
out="runs/modadd-p97"
build/release/tools/tapir train --config configs/modadd.toml --out "$out" --force
echo "metrics: $out/metrics.jsonl   checkpoint: $out/checkpoint.safetensors"
