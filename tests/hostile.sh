#!/usr/bin/env bash
# Hostile input: every case runs one tapir command that must be refused, in
# a fresh copy of a set of fixtures (a run, a run with learned functions, a
# search, a comparison, a poly file, a folder of someone else's files, ...),
# and must
#   - exit non-zero, by itself (no signal, no timeout: 20 s);
#   - print exactly one line on stderr, "tapir: ...", containing the case's
#     expected text, with no raw control byte and nothing from a crash
#     ("terminate called", "std::bad_alloc", "what():");
#   - leave the folder exactly as it was: no file, folder or link created,
#     removed or changed (names, types, link targets, modes and contents;
#     of a .lock file that was there, only the contents may change: a
#     writer that takes a folder's lock records its pid in it).
# The cases are the lines below, grouped by class; the summary counts them.
#   hostile.sh TAPIR SOURCE_DIR WORK_DIR
set -uo pipefail
tapir=$(realpath "$1")
source_dir=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
fixtures=$work/fixtures
mkdir -p "$fixtures"

# The fixtures: small enough to make in a few seconds.
tiny=(--task modadd --opt p=23 --width 16 --heads 2 --layers 1 --eval-every 2 --eval-limit 32
  --threads 1 --quiet)
(
  set -e
  cd "$fixtures"
  "$tapir" train "${tiny[@]}" --steps 4 --out run >/dev/null
  "$tapir" train "${tiny[@]}" --steps 4 --mlp-act spline --spline-knots 9 --out srun >/dev/null
  "$tapir" search "${tiny[@]}" --steps 4 --models 2 --spline-knots 9 --out search >/dev/null 2>&1
  "$tapir" compare "${tiny[@]}" --steps 4 --seeds 1 --threshold 0.5 --spline-knots 9 \
    --arch-file search/arch.safetensors --out cmp >/dev/null
  "$tapir" train "${tiny[@]}" --steps 4 --constraint descent --out crun >/dev/null
  "$tapir" arch fit-poly search/arch.safetensors --degree 3 --range -4,4 -o poly.json >/dev/null
  mkdir user
  echo "my notes" >user/notes.txt
  echo "half a download" >user/results.tmp.123
  echo "my own comparison" >user/compare.md
  echo '{"mine": true}' >user/search.json
  printf '[train]\nsteps = 3\nwidth = 16\n' >good.toml
  printf 'not a checkpoint' >garbage.safetensors
  : >empty.safetensors
  head -c 100 run/checkpoint.safetensors >truncated.safetensors
  printf '{"degree": 3' >bad.json
  for i in $(seq 400); do echo "the cat $i sat on the mat, and the dog ran"; done >corpus.txt
  "$tapir" tokenizer train --path corpus.txt --vocab-size 300 --out tok.model >/dev/null
  "$tapir" search --task text --opt path=corpus.txt --opt tokenizer=tok.model --opt context=16 \
    --width 16 --heads 2 --layers 1 --models 2 --steps 4 --threads 1 --quiet --out ssearch >/dev/null 2>&1
  "$tapir" train --task text --opt path=corpus.txt --opt tokenizer=tok.model --opt context=16 \
    --width 16 --heads 2 --layers 1 --steps 4 --eval-every 2 --eval-limit 8 --threads 1 --quiet \
    --out trun >/dev/null
  for i in $(seq 400); do echo "a bird $i flew over the hill, and the fox hid"; done >corpus2.txt
  "$tapir" tokenizer train --path corpus2.txt --vocab-size 300 --out tok2.model >/dev/null
)
if [ $? -ne 0 ]; then
  echo "FAIL: the fixtures could not be made"
  exit 1
fi

cases=0
failures=0
declare -A per_class
setup=""

# snapshot DIR: every entry's type, mode, link target and contents.
snapshot() {
  (
    cd "$1" || exit 1
    find . -printf '%y %m %p -> %l\n' | LC_ALL=C sort
    find . -type f ! -name .lock -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
  )
}

# refuse CLASS EXPECTED ARGS...: one case; in ARGS, @ stands for tapir;
# EXPECTED may list alternatives, a|b. The
# shell text in $setup, when set, runs in the case's folder first.
refuse() {
  local class=$1 expected=$2
  shift 2
  cases=$((cases + 1))
  per_class[$class]=$((${per_class[$class]:-0} + 1))
  local dir=$work/case
  rm -rf "$dir"
  cp -a "$fixtures" "$dir"
  if [ -n "$setup" ] && ! (cd "$dir" && eval "$setup") >/dev/null 2>&1; then
    report "$class" "$*" "its set-up failed: $setup"
    return
  fi
  local before after command=()
  before=$(snapshot "$dir")
  for arg in "$@"; do
    if [ "$arg" = @ ]; then command+=("$tapir"); else command+=("$arg"); fi
  done
  local rc=0
  (cd "$dir" && exec timeout 20 "${command[@]}" </dev/null >"$work/stdout" 2>"$work/stderr") || rc=$?
  after=$(snapshot "$dir")
  local lines
  lines=$(wc -l <"$work/stderr")
  if [ "$rc" -eq 0 ]; then
    report "$class" "$*" "exit 0"
  elif [ "$rc" -ge 124 ]; then
    report "$class" "$*" "exit $rc (timeout or signal)"
  elif [ "$lines" -ne 1 ] || ! head -c 7 "$work/stderr" | grep -q '^tapir: '; then
    report "$class" "$*" "stderr is not one 'tapir: ' line"
  elif LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$work/stderr"); then
    report "$class" "$*" "stderr holds a control byte"
  elif grep -qE 'terminate called|bad_alloc|what\(\):' "$work/stderr"; then
    report "$class" "$*" "stderr is a crash"
  elif ! says "$expected"; then
    report "$class" "$*" "stderr does not contain: $expected"
  elif [ "$before" != "$after" ]; then
    report "$class" "$*" "the folder changed: $(diff <(echo "$before") <(echo "$after") | head -5 | tr '\n' ' ')"
  fi
}

# says EXPECTED: whether stderr holds EXPECTED, or one of its |-separated
# alternatives.
says() {
  local alternatives alternative
  IFS='|' read -ra alternatives <<<"$1"
  for alternative in "${alternatives[@]}"; do
    grep -qF -- "$alternative" "$work/stderr" && return 0
  done
  return 1
}

report() {
  failures=$((failures + 1))
  echo "FAIL [$1] $2"
  echo "    $3"
  sed 's/^/    stderr: /' "$work/stderr" 2>/dev/null | head -3
}

source "$source_dir/tests/hostile_cases.sh"

echo "hostile input: $cases cases, $failures failed"
for class in $(printf '%s\n' "${!per_class[@]}" | sort); do
  echo "  $class: ${per_class[$class]}"
done
[ "$failures" -eq 0 ]
