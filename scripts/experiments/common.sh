# Sourced by the experiment scripts: which tapir, where the runs go, and a
# timer. Every experiment runs one thread per process, so that two can share
# a 2-core machine; set TAPIR to use another build and OUT another folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tapir="${TAPIR:-build/release/tools/tapir}"
out_root="${OUT:-runs/experiments}"
mkdir -p "$out_root"
if [[ ! -x "$tapir" ]]; then
  echo "no tapir at $tapir: build it first (scripts/build.sh) or set TAPIR" >&2
  exit 2
fi

# code_corpus: the folder of the code corpus, tapir's own engine/ sources
# as of commit $code_commit (`git archive` into $out_root/corpus, once), so
# that a change to the engine does not change an experiment's data: a text
# corpus that shifts by a byte moves every window and the held-out split.
# Needs the repository's history (a clone without --depth).
code_commit=b1c113b72d07b2305886c55d2d5bfe8cc8222bf2
code_corpus() {
  local dir="$out_root/corpus/engine-${code_commit:0:7}"
  if [[ ! -d $dir/engine ]]; then
    if ! git cat-file -e "$code_commit^{commit}" 2>/dev/null; then
      echo "the code corpus is engine/ as of commit ${code_commit:0:7}, which this clone" \
        "does not have (a shallow clone?): fetch the history (git fetch --unshallow)" >&2
      return 2
    fi
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp"
    git archive "$code_commit" engine | tar -x -C "$dir.tmp"
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir/engine"
}

# timed LABEL COMMAND...: runs the command and appends "LABEL: N s" to
# $out_root/times.txt (wall seconds of the whole command).
timed() {
  local label="$1" start=$SECONDS
  shift
  "$@"
  echo "$label: $((SECONDS - start)) s" | tee -a "$out_root/times.txt"
}

# search_once LABEL DIR OPTIONS...: `tapir search OPTIONS --out DIR`, unless DIR
# already holds the arch.safetensors of a finished search (a script run
# again reuses its searches; compare and transfer reuse their finished runs).
search_once() {
  local label="$1" dir="$2"
  shift 2
  if [[ -f "$dir/arch.safetensors" ]]; then
    echo "$label: reusing $dir"
    return
  fi
  timed "$label" "$tapir" search "$@" --threads 1 --quiet --force --out "$dir"
}

# searches_once LABEL DIR OPTIONS...: 3 independent searches, `tapir search
# OPTIONS --repeat 3 --out DIR` (DIR/search-0, -1, -2), unless the third
# has finished (a script run again reuses its searches).
searches_once() {
  local label="$1" dir="$2"
  shift 2
  if [[ -f $dir/search-2/arch.safetensors ]]; then return; fi
  timed "$label" "$tapir" search "$@" --repeat 3 --threads 1 --quiet --force --out "$dir" >/dev/null
}

# first_step METRICS THRESHOLD [SPLIT]: the first step whose accuracy on the
# split (default test) is at least THRESHOLD in a metrics.jsonl, or "never".
first_step() {
  awk -v t="$2" -v want="${3:-test}" '
    match($0, /"step":[0-9]+/) { step = substr($0, RSTART + 7, RLENGTH - 7) }
    match($0, /"split":"[^"]*"/) { split_name = substr($0, RSTART + 9, RLENGTH - 10) }
    match($0, /"accuracy":[-0-9.eE+]+/) {
      acc = substr($0, RSTART + 11, RLENGTH - 11)
      if (split_name == want && acc + 0 >= t + 0 && found == "") found = step
    }
    END { print (found == "" ? "never" : found) }' "$1"
}

# bpb_by_seed COMPARE_DIR VARIANT: "SEED BITS" per run of VARIANT in a
# comparison of text runs, BITS the last evaluation's bits per byte, by seed.
bpb_by_seed() {
  jq -r --arg v "$2" '.variants[] | select(.variant == $v) | .runs[] | "\(.seed) \(.dir)"' \
    "$1/compare.json" | while read -r seed dir; do
    echo "$seed $(tail -n 1 "$dir/metrics.jsonl" | jq -r '.bits_per_byte')"
  done | sort -n
}

# summary: "median [min, max]" of the numbers on stdin, signed, 4 decimals.
summary() {
  sort -g | awk '{v[NR] = $1} END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%+.4f [%+.4f, %+.4f]\n", m, v[1], v[NR] }'
}

# authors_arms SEARCH_STEPS STEPS: fills the associative array `arm` with the
# options of each setting of the authors' protocol (`--protocol authors`,
# docs/protocols.md: idiap/lm-afs trainLmAf.py, scaled to a search of
# SEARCH_STEPS and a Stage II of STEPS): the search options it adds to
# tapir's defaults and, after a "|", the options it adds to Stage II (for
# GeLU and the splines alike); `arm[authors]` is all of them, by name
# (`--protocol authors` on both sides), `arm[defaults]` none, `one_at_a_time` lists the settings in
# order, `arm[without_SETTING]` is the whole protocol less that one setting
# (`without_search_lr` and `without_stage2_lr`: less the weights' trapezoid
# in the search only, in Stage II only), and `arm[stage2_lr]` is the
# weights' trapezoid in Stage II alone (to run over the defaults' searches:
# the functions unchanged, only how the models that use them, and GeLU, are
# trained).
authors_arms() {
  local search_steps="$1" steps="$2"
  declare -gA arm=()
  arm[grid]="--spline-knots 64 --spline-range -15,15"
  arm[extrapolate]="--spline-extrapolate constant"
  arm[start]="--spline-init const:0.01"
  arm[stream]="--arch-split train --opt arch-frac=0"
  arm[mean]="--arch-grad mean"
  arm[stagger]="--stagger continue"
  arm[arch_lr]="--arch-schedule trapezoid --arch-warmup $((search_steps / 10)) --arch-decay $((search_steps / 2))"
  arm[weights_lr]="--schedule trapezoid --warmup $((search_steps / 10)) --decay $((search_steps / 2)) --min-lr-ratio 0 | --schedule trapezoid --warmup $((steps / 10)) --decay $((steps / 2)) --min-lr-ratio 0"
  one_at_a_time=(grid extrapolate start stream mean stagger arch_lr weights_lr)
  arm[defaults]=""
  arm[authors]="--protocol authors | --protocol authors"
  arm[stage2_lr]="| --protocol authors"
  local a left b
  for a in "${one_at_a_time[@]}"; do
    left=""
    for b in "${one_at_a_time[@]}"; do
      [[ $b != "$a" ]] && left+=" ${arm[$b]%%|*}"
    done
    if [[ $a == weights_lr ]]; then arm[without_$a]="$left"; else arm[without_$a]="$left | ${arm[weights_lr]#*|}"; fi
  done
  arm[without_search_lr]="${arm[without_weights_lr]} | ${arm[weights_lr]#*|}"
  arm[without_stage2_lr]="${arm[authors]%%|*}"
}

# split_arm SPEC: sets the arrays search_opts and stage2_opts from an arm's
# "SEARCH OPTIONS | STAGE II OPTIONS".
split_arm() {
  local spec="$1"
  search_opts=()
  stage2_opts=()
  read -r -a search_opts <<<"${spec%%|*}"
  if [[ $spec == *"|"* ]]; then read -r -a stage2_opts <<<"${spec#*|}"; fi
}

# share: the command prefix that spreads one compare over two processes, one
# per core (mpirun -np 2, docs/distributed.md), where this tapir has MPI and
# mpirun is there; empty otherwise.
share=()
if "$tapir" --version | grep '^MPI: yes' >/dev/null && command -v mpirun >/dev/null; then
  share=(mpirun --oversubscribe -np 2)
  if [ "$(id -u)" -eq 0 ]; then share=(mpirun --allow-run-as-root --oversubscribe -np 2); fi
fi

# in_parallel FUNCTION A B: FUNCTION A and FUNCTION B side by side, one
# process each (a 2-core machine's two cores); fails if either does.
in_parallel() {
  "$1" "$2" &
  local first=$!
  "$1" "$3" &
  local second=$! status=0
  wait "$first" || status=$?
  wait "$second" || status=$?
  return "$status"
}

# bpb_level COMPARE_DIR VARIANT: the variant's final test bits per byte in a
# comparison of text runs: its median with the 95% interval, 4 decimals.
bpb_level() {
  jq -r --arg v "$2" '.variants[] | select(.variant == $v)
    | .splits.test.final_bits_per_byte_interval
    | "\(.median * 10000 | round / 10000) [\(.lo * 10000 | round / 10000), \(.hi * 10000 | round / 10000)]"' \
    "$1/compare.json"
}

# against_gelu COMPARE_DIR VARIANT [POOL]: three cells of a markdown table
# for VARIANT (a pooled row when POOL names its pool) in a comparison of
# text runs: its bits-per-byte level (bpb_level), every run of it (of the
# pool's members) minus GeLU's run of the same seed, median [min, max], and
# on how many of those pairs it is lower.
against_gelu() {
  local diffs
  diffs=$(jq -r --arg v "$2" --arg pool "${3:-}" '
    ([.variants[] | select(.variant == "baseline") | .runs[]
      | {key: (.seed | tostring), value: .splits.test.final_bits_per_byte}] | from_entries) as $gelu
    | .variants[]
    | select(if $pool == "" then .variant == $v else (.variant | endswith(",pool=" + $pool)) end)
    | .runs[] | .splits.test.final_bits_per_byte - $gelu[.seed | tostring]' "$1/compare.json")
  echo "$(bpb_level "$1" "$2") | $(summary <<<"$diffs") | $(awk '$1 < 0' <<<"$diffs" | wc -l) of $(wc -l <<<"$diffs")"
}
