#!/usr/bin/env bash
# Runs a fuzz harness (tests/fuzz/NAME_fuzz.cpp) under libFuzzer.
#   scripts/fuzz.sh NAME SECONDS    one harness for SECONDS
#   scripts/fuzz.sh all SECONDS     every harness in turn, SECONDS each
#   scripts/fuzz.sh merge NAME      adds to tests/fuzz/corpus/NAME/ the inputs of
#                                   the last run that reach new code
# NAME: safetensors, json, arch, resume, constrained_resume, search_resume,
# config or poly. Builds the fuzz preset
# (clang, TAPIR_FUZZ=ON: ASan + UBSan, CPU only) in build/fuzz, copies the
# committed corpus to build/fuzz/corpus/NAME/ (where libFuzzer adds what it
# finds) and runs one libFuzzer process on it. Crashes, leaks, timeouts and
# out-of-memory inputs go to build/fuzz/findings/NAME/, with the log
# (fuzz.log); a new run of NAME empties both folders first. docs/fuzzing.md
# has the details.
set -euo pipefail
cd "$(dirname "$0")/.."
names=(safetensors json arch resume constrained_resume search_resume config poly)
usage() {
  echo "usage: scripts/fuzz.sh NAME|all SECONDS  or  scripts/fuzz.sh merge NAME" >&2
  echo "  NAME: ${names[*]}" >&2
  exit 2
}
[[ $# -eq 2 ]] || usage
known() { [[ " ${names[*]} " == *" $1 "* ]]; }
build=build/fuzz
# Each input's limits: 10 s (a hang), 2 GB of memory, 1 GB in one
# allocation (a size taken from the input without a bound).
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=16384)

build_target() {
  [[ -f $build/build.ninja ]] || cmake --preset fuzz >/dev/null
  cmake --build "$build" --target "fuzz_$1" -j 2 >/dev/null
}

run_one() {
  local name=$1 seconds=$2
  build_target "$name"
  local work=$build/corpus/$name findings=$build/findings/$name
  rm -rf "$work" "$findings"
  mkdir -p "$work" "$findings"
  cp tests/fuzz/corpus/"$name"/* "$work"/
  echo "fuzzing $name for $seconds s: log in $findings/fuzz.log"
  local status=0
  "$build/tests/fuzz_$name" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" >"$findings/fuzz.log" 2>&1 || status=$?
  grep -E '^#[0-9]+.*(DONE|pulse)' "$findings/fuzz.log" | tail -n 1 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' \
    "$findings/fuzz.log" || true
  echo "corpus now $(find "$work" -type f | wc -l) inputs; findings:" \
    "$(find "$findings" -type f ! -name fuzz.log | wc -l)"
  return "$status"
}

if [[ $1 == merge ]]; then
  known "$2" || usage
  build_target "$2"
  # -merge=1 copies into the first folder the inputs of the others that
  # reach code it does not (named by their SHA-1); they are renamed found-*.
  # -use_counters=0: new edges only, not new hit counts of known ones, which
  # keeps the committed corpus small.
  corpus=tests/fuzz/corpus/$2
  "$build/tests/fuzz_$2" -merge=1 -use_counters=0 "${limits[@]}" "$corpus" "$build/corpus/$2" 2>&1 |
    grep -E '^MERGE-OUTER: [0-9]+ new files' || true
  for file in "$corpus"/*; do
    base=$(basename "$file")
    if [[ $base =~ ^[0-9a-f]{40}$ ]]; then mv "$file" "$corpus/found-${base:0:12}"; fi
  done
  exit 0
fi
[[ $2 =~ ^[0-9]+$ ]] || usage
if [[ $1 == all ]]; then
  failed=0
  for name in "${names[@]}"; do run_one "$name" "$2" || failed=1; done
  exit "$failed"
fi
known "$1" || usage
run_one "$1" "$2"
