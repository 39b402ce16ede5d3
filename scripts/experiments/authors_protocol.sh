#!/usr/bin/env bash
# ADD and modular addition, 3 searches x 5 seeds against GeLU (the design
# scripts/main.sh ran before it measured the claims), with Stage I under
# tapir's defaults and under the authors' protocol (`--protocol authors`,
# docs/protocols.md: idiap/lm-afs trainLmAf.py, scaled to the search's N
# steps): their grid (64 knots on [-15, 15]), their extrapolation
# (constant), their start (const:0.01), the functions' gradient from the
# weights' own batches (--arch-split train, nothing held out) averaged over
# the models (--arch-grad mean), staggered models trained to the end
# (--stagger continue), the functions' trapezoid learning rate, and the
# weights' trapezoid (in Stage II too, for GeLU and the splines alike).
# Where a task's verdict differs between the two arms, each of the authors'
# settings is then added alone to the defaults (8 more arms for that task),
# to find which one makes the difference, and the weights' trapezoid is
# also given to Stage II alone, over the defaults' searches (one more);
# `authors_protocol.sh all` runs those arms for both tasks whatever the
# verdicts. The two tasks run side by side, one process each; a task named
# second runs that task alone. Prints one table per task: arm, verdict,
# steps ratio to GeLU with its 95% interval, medians, runs that never got
# there, and the spread of log steps over seeds.
#
# Usage: scripts/experiments/authors_protocol.sh [flips|all] [modadd|add]
source "$(dirname "$0")/common.sh"
out="$out_root/authors_protocol"
mkdir -p "$out"
mode="${1:-flips}"
tasks="${2:-modadd add}"
if [[ $mode != flips && $mode != all ]] || [[ $tasks != "modadd add" && $tasks != modadd && $tasks != add ]]; then
  echo "usage: scripts/experiments/authors_protocol.sh [flips|all] [modadd|add]" >&2
  exit 2
fi

search_steps=1000
steps=1500
# The arms: one per setting of the authors' protocol (common.sh), the whole
# protocol, and the weights' trapezoid in Stage II alone, over the defaults'
# searches.
authors_arms "$search_steps" "$steps"
declare -A searches_of=([stage2_lr]=defaults)

modadd=(--task modadd --opt p=47 --opt train-frac=0.8 --width 64 --layers 1 --lr 3e-3
  --weight-decay 1 --batch 256 --eval-every 100)
add=(--task add --opt digits=2 --opt reverse=true --width 64 --layers 2 --lr 3e-3 --batch 128
  --eval-every 100 --eval-limit 1000)
declare -A threshold=([modadd]=0.99 [add]=0.9)

# run_arm TASK ARM: 3 searches with the arm's options, then their functions
# against GeLU over 5 seeds, in $out/TASK/ARM (finished parts are reused).
run_arm() {
  local task="$1" name="$2" dir="$out/$1/$2"
  local searches="$out/$task/${searches_of[$name]:-$name}/search"
  local -n opts="$task"
  local search_opts stage2_opts
  split_arm "${arm[$name]}"
  searches_once "$task $name: 3 searches" "$searches" "${opts[@]}" "${search_opts[@]}" \
    --mlp-act spline --models 4 --steps "$search_steps"
  local arch_files=()
  for k in 0 1 2; do arch_files+=(--arch-file "$searches/search-$k/arch.safetensors"); done
  if [[ ! -f $dir/compare/compare.json ]]; then
    timed "$task $name: comparison" "$tapir" compare "${opts[@]}" "${stage2_opts[@]}" \
      --steps "$steps" --seeds 5 --threshold "${threshold[$task]}" "${arch_files[@]}" \
      --threads 1 --quiet --out "$dir/compare" >/dev/null
  fi
}

# verdict TASK ARM: the pooled row's verdict word against GeLU.
verdict() {
  jq -r '.against_baseline[] | select(.searches == 3) | .verdict' "$out/$1/$2/compare/compare.json"
}

# table TASK: one line per arm that ran.
table() {
  local task="$1"
  echo "== $task: steps to ${threshold[$task]} on test, 3 searches x 5 seeds against GeLU x 5"
  printf '%-12s %-13s %-22s %-16s %-9s %s\n' arm verdict "ratio [95%]" "median (GeLU)" never \
    "spread [95%]"
  for name in defaults authors "${one_at_a_time[@]}" stage2_lr; do
    local json="$out/$task/$name/compare/compare.json"
    [[ -f $json ]] || continue
    jq -r --arg arm "$name" '
      def num: if . == null then "inf" else (. * 100 | round / 100 | tostring) end;
      def steps: if . == null then "never" else tostring end;
      (.variants[] | select(.variant == "baseline") | .steps_to_threshold) as $g
      | (.variants[] | select(.variant == "arch: 3 searches") | .steps_to_threshold) as $s
      | .against_baseline[] | select(.searches == 3)
      | [$arm, .verdict,
         "\(.steps_ratio.ratio | num)x [\(.steps_ratio.lo | num), \(.steps_ratio.hi | num)]",
         "\($s.median | steps) (\($g.median | steps))", "\($s.never)/15 (\($g.never)/5)",
         if .spread_ratio.ratio == null then "-"
         else "\(.spread_ratio.ratio | num)x [\(.spread_ratio.lo | num), \(.spread_ratio.hi | num)]" end]
      | @tsv' "$json" | awk -F'\t' '{printf "%-12s %-13s %-22s %-16s %-9s %s\n", $1, $2, $3, $4, $5, $6}'
  done
}

# task_chain TASK: the two arms, then the one-at-a-time arms where called for.
task_chain() {
  local task="$1"
  run_arm "$task" defaults
  run_arm "$task" authors
  if [[ $mode == all || $(verdict "$task" defaults) != $(verdict "$task" authors) ]]; then
    for name in "${one_at_a_time[@]}" stage2_lr; do run_arm "$task" "$name"; done
  fi
}

if [[ $tasks == "modadd add" ]]; then
  in_parallel task_chain modadd add
else
  task_chain "$tasks"
fi
for task in $tasks; do table "$task"; done
