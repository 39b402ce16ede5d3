#!/usr/bin/env bash
# The commands that share their work among MPI ranks, under mpirun -np 2
# against one process (docs/distributed.md):
#   - search: the architecture file, the search's log and every model's
#     metrics bit for bit those of one process (same --threads), also on
#     more ranks than models, and after a stop and a resume on two ranks,
#     or on one process;
#   - train, data parallel: every evaluation's loss within 1e-5 (relative)
#     of one process with the same global batch over 50 steps; a run
#     stopped and resumed on two ranks continues bit for bit; an evaluation
#     shared by two ranks logs what one process logs for the same weights;
#   - compare: the runs farmed out to the ranks are bit for bit those of one
#     process, and rank 0 writes the same table;
#   - a failure on one rank ends the job with that rank's message, and a
#     command that runs as one process refuses several ranks.
#
#   distributed_commands.sh TAPIR WORK_DIR MPIRUN [MPIRUN OPTIONS...]
set -euo pipefail
tapir=$1
work=$2
shift 2
mpirun=("$@")

rm -rf "$work"
mkdir -p "$work"
cd "$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The "loss" and "accuracy" of every metrics.jsonl line, one line each.
scores() {
  grep -o '"step":[0-9]*\|"split":"[a-z_]*"\|"loss":[^,]*\|"accuracy":[^,]*' "$1" | paste -d' ' - - - -
}

# A constant learning rate: the resume check stops a run by giving it fewer
# --steps, and the task's recommended decay follows --steps. Evaluation
# batches of 48: each evaluation of 256 examples is 6 batches for the ranks
# to share.
train=(train --task modadd --p 23 --width 32 --layers 1 --heads 2 --batch 64 --eval-every 10
  --eval-limit 256 --eval-batch 48 --schedule constant --threads 1 --quiet)

echo "== train: one process against two ranks"
"$tapir" "${train[@]}" --steps 50 --out one
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${train[@]}" --steps 50 --out two
[ -f two/checkpoint.safetensors ] || fail "rank 0 wrote no checkpoint"
[ "$(scores one/metrics.jsonl | wc -l)" -ge 5 ] || fail "too few evaluations in one/metrics.jsonl"
paste -d' ' <(scores one/metrics.jsonl) <(scores two/metrics.jsonl) | awk '
  {
    split($3, a, ":"); split($7, b, ":")
    rel = (a[2] - b[2]) / (a[2] > 0 ? a[2] : 1); if (rel < 0) rel = -rel
    if (rel > worst) worst = rel
    if ($1 != $5 || $2 != $6) { print "FAIL: lines differ: " $0; bad = 1 }
  }
  END {
    printf "largest relative loss difference over %d evaluations: %.2e\n", NR, worst
    if (bad || worst > 1e-5) exit 1
  }' || fail "two ranks drifted from one process"

echo "== train: stopped at step 30 and resumed on two ranks"
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${train[@]}" --steps 30 --out resumed
timeout 600 "${mpirun[@]}" -np 2 "$tapir" train --resume resumed --steps 50 --quiet
cmp <(scores two/metrics.jsonl) <(scores resumed/metrics.jsonl) ||
  fail "the resumed run differs from the run that was not stopped"

echo "== train: an evaluation shared by two ranks logs what one process logs"
# The same weights on both sides: a run trained by one process and by two
# ranks at a learning rate (1e-30) too small to move any weight from their
# common initialisation, so the checkpoints agree byte for byte, and the
# evaluations, shared between the ranks on one side, must too. Without
# biases, since a bias starts at 0, where a step of 1e-30 shows. (A run's
# config.json cannot be edited to freeze a trained run: its checkpoint
# records the learning rate it trained with.)
"$tapir" "${train[@]}" --no-bias --lr 1e-30 --steps 10 --out frozen-one
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${train[@]}" --no-bias --lr 1e-30 --steps 10 \
  --out frozen-two
cmp frozen-one/checkpoint.safetensors frozen-two/checkpoint.safetensors ||
  fail "the steps at learning rate 1e-30 moved the weights"
# Step 10's lines without what differs by design (the folder, the clock).
step10() {
  grep '"step": *10,' "$1/metrics.jsonl" |
    sed -E 's/"(run|tokens_per_s|wall_s)": *("[^"]*"|[^,}]*)//g'
}
[ "$(step10 frozen-one | wc -l)" -ge 1 ] || fail "frozen-one logged no evaluation at step 10"
cmp <(step10 frozen-one) <(step10 frozen-two) ||
  fail "the evaluation shared by two ranks differs from one process's"

search=(search --task modadd --p 23 --width 32 --layers 1 --heads 2 --batch 64 --models 3
  --stagger --steps 20 --eval-every 10 --eval-limit 256 --threads 1 --quiet)

echo "== search: one process against two ranks (three staggered models)"
"$tapir" "${search[@]}" --search-steps 30 --out s-one
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${search[@]}" --search-steps 30 --out s-two
cmp s-one/arch.safetensors s-two/arch.safetensors || fail "the architecture files differ"
cmp s-one/search.jsonl s-two/search.jsonl || fail "the search logs differ"
models=0
for run in s-one/models/*; do
  cmp <(scores "$run/metrics.jsonl") <(scores "s-two/${run#s-one/}/metrics.jsonl") ||
    fail "s-two/${run#s-one/} differs from $run"
  models=$((models + 1))
done
[ "$models" -ge 4 ] || fail "expected restarted models (generation folders), found $models folders"

echo "== search: more ranks than models (rank 3 of 4 builds none)"
timeout 600 "${mpirun[@]}" -np 4 "$tapir" "${search[@]}" --search-steps 30 --out s-four
cmp s-one/arch.safetensors s-four/arch.safetensors || fail "four ranks: the architecture files differ"
cmp s-one/search.jsonl s-four/search.jsonl || fail "four ranks: the search logs differ"

echo "== search: stopped at step 20 and resumed on two ranks"
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${search[@]}" --search-steps 20 --out s-res
timeout 600 "${mpirun[@]}" -np 2 "$tapir" search --resume s-res --search-steps 30 --quiet
cmp s-one/arch.safetensors s-res/arch.safetensors || fail "the resumed search differs"
cmp s-one/search.jsonl s-res/search.jsonl || fail "the resumed search's log differs"

echo "== search: stopped on two ranks, resumed on one process"
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${search[@]}" --search-steps 20 --out s-one-more
"$tapir" search --resume s-one-more --search-steps 30 --quiet
cmp s-one/arch.safetensors s-one-more/arch.safetensors || fail "resumed on one process, it differs"

echo "== search: the authors' protocol (stagger continue, trapezoid), one process against two ranks"
authors=(search --task modadd --p 23 --width 32 --layers 1 --heads 2 --batch 64 --models 3
  --stagger continue --arch-schedule trapezoid --arch-warmup 3 --arch-decay 10 --arch-grad mean
  --arch-split train --steps 20 --search-steps 30 --eval-every 10 --eval-limit 256 --threads 1 --quiet)
"$tapir" "${authors[@]}" --out c-one
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${authors[@]}" --out c-two
cmp c-one/arch.safetensors c-two/arch.safetensors || fail "the continued searches' functions differ"
cmp c-one/search.jsonl c-two/search.jsonl || fail "the continued searches' logs differ"

compare=(compare --task modadd --p 23 --width 32 --layers 1 --heads 2 --batch 64 --steps 40
  --eval-every 20 --eval-limit 256 --threads 1 --seeds 2 --variant baseline --variant pos=alibi --quiet)

echo "== compare: one process against two ranks"
"$tapir" "${compare[@]}" --out cmp-one > /dev/null
timeout 600 "${mpirun[@]}" -np 2 "$tapir" "${compare[@]}" --out cmp-two > cmp-two.log
for run in cmp-one/*/seed-*; do
  other=cmp-two/${run#cmp-one/}
  cmp <(scores "$run/metrics.jsonl") <(scores "$other/metrics.jsonl") ||
    fail "$other differs from $run"
done
[ -f cmp-two/compare.md ] || fail "rank 0 wrote no compare.md"
grep -q "baseline" cmp-two.log || fail "rank 0 printed no table"

echo "== a failure on one rank ends the job with its message"
mkdir -p cmp-bad/baseline/seed-1
cp cmp-one/.tapir cmp-bad/.tapir  # a comparison tapir made, with one run of other options
sed -E "s/\"steps\": *40,/\"steps\": 41,/" cmp-one/baseline/seed-1/config.json > cmp-bad/baseline/seed-1/config.json
if timeout 300 "${mpirun[@]}" -np 2 "$tapir" "${compare[@]}" --out cmp-bad > bad.log 2>&1; then
  fail "a job whose rank 1 failed exited 0"
fi
grep -q "rank 1 of 2: .*cmp-bad/baseline/seed-1 holds a run trained with other options" bad.log ||
  { cat bad.log; fail "rank 1's message is missing"; }

echo "== a command that runs as one process refuses two ranks"
if timeout 300 "${mpirun[@]}" -np 2 "$tapir" tasks list > one.log 2>&1; then
  fail "tapir tasks ran on two ranks"
fi
grep -q "tapir tasks runs as one process, not on 2 MPI ranks" one.log ||
  { cat one.log; fail "no message for a one-process command"; }
echo "all distributed checks passed"
