#!/usr/bin/env bash
# The transfer matrix over add, mano, dyck and copy at a budget where the
# baselines of add, dyck and copy pass 0.9 (mano's stays below it here, as in
# mano.sh): two blocks of width 64, lr 3e-3, 2000 steps per cell, 2
# seeds; add with 2 digits and the answer reversed, mano at mod 7 with up to
# 2 operations (mano.sh), dyck and copy at their defaults. Searches: 2
# models, 1500 steps each. The whole matrix 3 times, replicate k in
# $out/replicate-K with --seed K x 1000000 (its own searches, baselines and
# cells, no seed shared), two replicates at a time, one process each.
# Prints each replicate's matrices (final accuracy minus the baseline's, and
# the speed-up in steps to 0.9), then per cell the median [min, max] over
# the replicates, and per column (trained-on task) how many replicates have
# their diagonal cell, the task's own functions, as the column's best.
#
# Usage: scripts/experiments/transfer.sh [defaults|authors]
# authors: the searches under the authors' protocol (common.sh
# authors_arms, scaled to the 1500 search steps) and the weights' trapezoid
# (warmup 200, decay 1000 to 0) in every search model and cell, the
# baselines' too, in $out/transfer_authors.
source "$(dirname "$0")/common.sh"
protocol="${1:-defaults}"
authors_arms 1500 2000
if [[ $protocol != defaults && $protocol != authors ]]; then
  echo "usage: scripts/experiments/transfer.sh [defaults|authors]" >&2
  exit 2
fi
out="$out_root/transfer"
[[ $protocol == authors ]] && out+="_authors"
mkdir -p "$out"
# One transfer both searches and trains the cells, under one protocol
# (docs/protocols.md): the authors' Stage I settings (arch-frac=0 given to
# each task), and the weights' trapezoid with the warmup and decay of the
# cells' 2000 steps (200 and 1000), in a search model's 1500 steps as in a
# cell's.
protocol_opts=()
if [[ $protocol == authors ]]; then protocol_opts=(--protocol authors); fi
args=(--tasks add,mano,dyck,copy --task-opt add:digits=2 --task-opt add:reverse=true
      --task-opt mano:mod=7 --task-opt mano:max-ops=2 --width 64 --layers 2 --lr 3e-3
      --mlp-act spline --search-steps 1500 --models 2 --steps 2000 --eval-every 100
      --eval-limit 500 --seeds 2 --threshold 0.9 --threads 1 "${protocol_opts[@]}")
replicates=3

# replicate K: the whole matrix with seed K x 1000000, read as accuracy, then
# as steps to 0.9 (the second pass reuses every run).
replicate() {
  local k="$1" dir="$out/replicate-$1"
  timed "transfer ($protocol), replicate $k" "$tapir" transfer "${args[@]}" \
    --seed $((k * 1000000)) --out "$dir" --quiet >/dev/null
  cp "$dir/transfer.md" "$dir/accuracy.md"
  cp "$dir/transfer.json" "$dir/accuracy.json"
  "$tapir" transfer "${args[@]}" --seed $((k * 1000000)) --out "$dir" --metric steps --quiet \
    >"$dir/steps.md"
  cp "$dir/transfer.json" "$dir/steps.json"
}
in_parallel replicate 0 1
replicate 2
for k in $(seq 0 $((replicates - 1))); do
  echo "== replicate $k"
  cat "$out/replicate-$k/accuracy.md" "$out/replicate-$k/steps.md"
done

# over METRIC: per cell, median [min, max] over the replicates; per column,
# the replicates whose diagonal cell is the column's largest.
over() {
  local metric="$1"
  echo "== $metric over $replicates replicates: median [min, max] per cell (row: functions from)"
  jq -s -r '
    def fmt: if . == null then "n/a" else (. * 1000 | round / 1000 | tostring) end;
    def med: sort | if length % 2 == 1 then .[length / 2 | floor]
                    else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    (.[0].tasks) as $tasks
    | . as $reps
    | (["from / on"] + $tasks | @tsv),
      (($tasks | to_entries[]) as $r
    | [$r.value] + [$tasks | to_entries[] | .key as $c
        | [$reps[] | .relative[$r.key][$c] | select(. != null)]
        | if length == 0 then "n/a"
          else "\(med | fmt) [\(min | fmt), \(max | fmt)]" end]
      | @tsv)' "$out"/replicate-*/"$metric".json |
    awk -F'\t' '{ printf "%-15s", $1; for (i = 2; i <= NF; ++i) printf " %-22s", $i; printf "\n" }'
  jq -s -r '
    (.[0].tasks) as $tasks | . as $reps
    | $tasks | to_entries[] | .key as $c
    | "\(.value): own functions best in \([$reps[] | .relative as $m
        | select($m[$c][$c] != null and ([$m[][$c] | select(. != null)] | max) == $m[$c][$c])] | length) of \($reps | length)"
    ' "$out"/replicate-*/"$metric".json
}
over accuracy
over steps
