#!/usr/bin/env bash
# MANO (modular arithmetic in prefix notation): at the task's defaults (mod
# 23, up to 8 operations) a small baseline stays near chance within any
# budget this machine affords (docs/tasks.md), so this uses the smallest
# setting tried where it comes near 90%: mod 7, up to 2 operations, two
# blocks of width 128, lr 1e-3 (0.83 test accuracy after 6000 steps).
# Two arms, side by side (one process each): Stage I under tapir's defaults
# and under the authors' protocol (common.sh's authors_arms, scaled to these
# step counts; its weights' trapezoid also in Stage II, for GeLU and the
# splines alike). Each arm: 3 searches of 4 models and 5000 steps, then GeLU
# against the 3 searches' functions over 3 seeds of 10000 steps. Where the
# two verdicts differ, a third arm gives the weights' trapezoid to Stage II
# alone, over the defaults' searches (the one setting that flips modular
# addition, authors_protocol.sh), its comparison spread over both cores
# (common.sh share). Prints, per arm, the pooled verdict on steps to 80%
# with its 95% interval, the steps to 90% seed by seed and the final test
# accuracy.
source "$(dirname "$0")/common.sh"
out="$out_root/mano"
mkdir -p "$out"
search_steps=5000
steps=10000
authors_arms "$search_steps" "$steps"
declare -A searches_of=([stage2_lr]=defaults)
common=(--task mano --opt mod=7 --opt max-ops=2 --width 128 --layers 2 --lr 1e-3 --batch 128
  --eval-every 250 --eval-limit 1000)

# run_arm ARM [PREFIX...]: 3 searches, then the comparison (run under
# PREFIX), in $out/ARM (finished parts are reused).
run_arm() {
  local name="$1" dir="$out/$1" search_opts stage2_opts
  shift
  local searches="$out/${searches_of[$name]:-$name}/search"
  split_arm "${arm[$name]}"
  searches_once "mano $name: 3 searches" "$searches" "${common[@]}" "${search_opts[@]}" \
    --mlp-act spline --models 4 --steps "$search_steps"
  local arch_files=()
  for k in 0 1 2; do arch_files+=(--arch-file "$searches/search-$k/arch.safetensors"); done
  if [[ ! -f $dir/compare/compare.json ]]; then
    timed "mano $name: comparison" "$@" "$tapir" compare "${common[@]}" "${stage2_opts[@]}" \
      --steps "$steps" --seeds 3 --threshold 0.8,0.9 "${arch_files[@]}" --threads 1 --quiet \
      --out "$dir/compare" >/dev/null
  fi
}

# table ARM: GeLU's row and the pooled searches' row.
table() {
  local json="$out/$1/compare/compare.json"
  echo "== mano, $1: steps to 80% on test (3 searches x 3 seeds against GeLU x 3)"
  jq -r '
    def num: if . == null then "inf" else (. * 100 | round / 100 | tostring) end;
    def steps: if . == null then "never" else tostring end;
    def acc: . * 1000 | round / 1000 | tostring;
    (.against_baseline[] | select(.searches == 3)) as $v
    | "verdict: \($v.verdict), \($v.steps_ratio.ratio | num)x [\($v.steps_ratio.lo | num), \($v.steps_ratio.hi | num)] GeLU'"'"'s steps",
      (.variants[] | select(.variant == "baseline" or .variant == "arch: 3 searches")
       | "\(.variant): median \(.steps_to_threshold.median | steps) (never \(.steps_to_threshold.never) of \(.steps_to_threshold.count)), final test acc \(.final_accuracy_interval.median | acc) [\(.final_accuracy_interval.lo | acc), \(.final_accuracy_interval.hi | acc)]")
  ' "$json"
  local variant
  for variant in baseline "arch: 3 searches"; do
    printf '%s: steps to 90%% per run:' "$variant"
    jq -r --arg v "$variant" '.variants[] | select(.variant == $v) | .runs[].dir' "$json" |
      while read -r run; do printf ' %s' "$(first_step "$run/metrics.jsonl" 0.9)"; done
    echo
  done
}

in_parallel run_arm defaults authors
verdict() {
  jq -r '.against_baseline[] | select(.searches == 3) | .verdict' "$out/$1/compare/compare.json"
}
if [[ $(verdict defaults) != $(verdict authors) ]]; then
  run_arm stage2_lr "${share[@]}"
fi
table defaults
table authors
if [[ -f $out/stage2_lr/compare/compare.json ]]; then table stage2_lr; fi
