#!/usr/bin/env bash
# docs/engine.md's printout of one modadd step's tape is what the code
# prints now: `tapir train --print-tape` on the command below, compared with
# the block between the markers `<!-- tape:begin -->` and `<!-- tape:end -->`
# with the gradient norms left out (their last digits follow the CPU's
# floating-point path; the ops, shapes, files, kernels and saved tensors do
# not). With --write, the block is replaced by what the code prints.
#   tests/tape_walk.sh TAPIR SOURCE_DIR WORK_DIR [--write]
set -euo pipefail
tapir=$(realpath "$1")
doc="$(realpath "$2")/docs/engine.md"
work="$3"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# The command the block names (keep the two in step).
"$tapir" train --task modadd --opt p=11 --width 16 --heads 2 --layers 1 --batch 4 --steps 1 \
  --eval-every 1 --eval-limit 8 --threads 1 --quiet --print-tape --out run >printed.txt

shape() {
  sed -E 's/\|dL\/dy\| [^;]*/|dL\/dy| _/' "$1"
}
if [ "${4:-}" = "--write" ]; then
  awk -v printed="printed.txt" '
    /<!-- tape:end -->/ { while ((getline line < printed) > 0) print line; print "```"; skip = 0 }
    !skip { print }
    /<!-- tape:begin -->/ { print "```"; skip = 1 }
  ' "$doc" >engine.md.new
  mv engine.md.new "$doc"
  echo "wrote the printout into $doc"
  exit 0
fi
awk '/<!-- tape:end -->/ { on = 0 } on && !/^```/ { print } /<!-- tape:begin -->/ { on = 1 }' \
  "$doc" >documented.txt
[ -s documented.txt ] || { echo "FAIL: $doc has no tape block between its markers"; exit 1; }
if ! diff <(shape documented.txt) <(shape printed.txt) >diff.txt; then
  echo "FAIL: $doc's tape printout is not what the code prints now (< doc, > code);"
  echo "regenerate it: tests/tape_walk.sh TAPIR SOURCE_DIR WORK_DIR --write"
  cat diff.txt
  exit 1
fi
echo "the tape printout in $doc matches the code ($(wc -l <printed.txt) lines)"
