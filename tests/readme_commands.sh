#!/usr/bin/env bash
# Runs the command lines of the README's "Using it" block, as a reader would
# type them, in a scratch folder.
#
#   readme_commands.sh TAPIR SOURCE_DIR WORK_DIR short
#       every line, in order, cut short: `--steps N` becomes N/50 (at least
#       20; --warmup, --decay, --arch-warmup, --arch-decay N become N/50),
#       a command that trains without --steps gets --steps 40 and
#       evaluates at most 256 examples per split (--eval-limit 256),
#       `--seeds N` becomes 2, transfer runs one seed with searches of 20
#       steps, bench times 2 steps, and the robustness probes (robust,
#       robust-compare, compare --robust or --layer-profile) read at most 256
#       examples per split. Lines for --device cuda run only where a GPU
#       is present; elsewhere each must stop with one line naming the device.
#   readme_commands.sh TAPIR SOURCE_DIR WORK_DIR first
#       the first training example exactly as written, which must reach the
#       test accuracy the README promises.
#
# Every line must exit 0 and leave the files it names (--out, -o).
set -euo pipefail
tapir=$1
source_dir=$2
work=$3
mode=$4

# The block's command lines, continuations joined, comments dropped.
readme_lines() {
  awk '
    /^## Using it/ { section = 1; next }
    section && /^## / { exit }
    section && /^```sh/ { inside = 1; next }
    section && inside && /^```/ { inside = 0; next }
    section && inside {
      line = line $0
      if (line ~ /\\$/) { sub(/\\$/, "", line); next }
      sub(/[ ]+#.*$/, "", line)
      gsub(/[ ]+/, " ", line)
      if (line != "") print line
      line = ""
    }
  ' "$source_dir/README.md"
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Cut a command line's steps and seeds as the header says.
shorten() {
  local -a words
  read -r -a words <<<"$1"
  local command=${words[1]} out=() has_steps=0 i
  for ((i = 0; i < ${#words[@]}; i++)); do
    case "${words[i]}" in
      --steps)
        has_steps=1
        local n=$((words[i + 1] / 50))
        ((n < 20)) && n=20
        out+=(--steps "$n")
        ((i += 1))
        ;;
      --warmup | --decay | --arch-warmup | --arch-decay)
        # Parts of the steps: cut as they are, so that they still fit.
        out+=("${words[i]}" $((words[i + 1] / 50)))
        ((i += 1))
        ;;
      --seeds)
        out+=(--seeds 2)
        ((i += 1))
        ;;
      *) out+=("${words[i]}") ;;
    esac
  done
  case "$command" in
    train | search | compare | robust-compare)
      ((has_steps)) || out+=(--steps 40)
      [[ " $1 " == *" --resume "* ]] || out+=(--eval-limit 256)
      ;;
    transfer)
      ((has_steps)) || out+=(--steps 40 --search-steps 20)
      [[ " $1 " == *" --seeds "* ]] || out+=(--seeds 1)
      out+=(--eval-limit 256)
      ;;
    bench) ((has_steps)) || out+=(--steps 2 --warmup 1) ;;
  esac
  case "$command" in
    robust | robust-compare) out+=(--limit 256) ;;
    compare) [[ " $1 " != *" --robust "* && " $1 " != *" --layer-profile "* ]] ||
      out+=(--probe-limit 256) ;;
  esac
  echo "${out[*]}"
}

# The files a command line names as its outputs.
outputs_of() {
  local -a words
  read -r -a words <<<"$1"
  local i
  for ((i = 0; i + 1 < ${#words[@]}; i++)); do
    case "${words[i]}" in --out | -o) echo "${words[i + 1]}" ;; esac
  done
}

has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }

run_line() {
  local line=$1
  local cmd="$tapir ${line#tapir }"
  echo "\$ $line"
  if [[ $line == *"--device cuda"* ]] && ! has_gpu; then
    local err
    if err=$($cmd 2>&1 >/dev/null); then fail "'$line' succeeded without a GPU"; fi
    # The first line names the device; CLI11 may add a pointer to --help.
    [[ $(printf '%s\n' "$err" | head -1) == *cuda* ]] ||
      fail "'$line' without a GPU should stop naming cuda, got: $err"
    echo "  (no GPU here, as expected) $(printf '%s\n' "$err" | head -1)"
    return
  fi
  local start=$SECONDS
  $cmd || fail "'$line' exited with $?"
  echo "  ($((SECONDS - start)) s)"
  local f
  for f in $(outputs_of "$line"); do
    [[ -e $f ]] || fail "'$line' did not write $f"
  done
}

rm -rf "$work"
mkdir -p "$work"
cp -r "$source_dir/configs" "$work/configs"
cp -r "$source_dir/data" "$work/data"
cd "$work"
mapfile -t lines < <(readme_lines)
((${#lines[@]} >= 20)) || fail "found only ${#lines[@]} command lines in the README's Using it block"

case "$mode" in
  short)
    for line in "${lines[@]}"; do
      [[ $line == tapir\ * ]] || fail "'$line' in the Using it block does not start with tapir"
      run_line "$(shorten "$line")"
    done
    echo "ran ${#lines[@]} command lines"
    ;;
  first)
    first=""
    for line in "${lines[@]}"; do
      if [[ $line == "tapir train "* ]]; then
        first=$line
        break
      fi
    done
    [[ -n $first ]] || fail "no training example in the README"
    run_line "$first"
    run=$(outputs_of "$first")
    # The best and the last test accuracy of the run.
    read -r best last < <(grep '"split":"test"' "$run/metrics.jsonl" |
      sed 's/.*"accuracy":\([-0-9.e]*\).*/\1/' |
      awk '{ if ($1 > best) best = $1; last = $1 } END { print best, last }')
    echo "test accuracy: best $best, last $last"
    # The README promises >= 99% at the end of the run, the checkpoint kept.
    awk -v b="$best" -v l="$last" 'BEGIN { exit !(b >= 0.99 && l >= 0.99) }' ||
      fail "'$first' reached test accuracy $best (best) and $last (last); the README promises >= 99% at the end"
    ;;
  *) fail "mode must be short or first, got '$mode'" ;;
esac
