#!/usr/bin/env bash
# `tapir report --watch` on a comparison while it trains, read in a real
# browser. Headless Chromium loads the page of a live `tapir compare` (held
# still with SIGSTOP from its first run's second evaluation until the
# browser has read it, so that no machine is too fast or too slow for it) and the DOM it builds must hold the runs table's
# rows, the chart, the "in progress" marker and the refresh tag. Once the
# comparison has finished, the watch must end by itself (exit 0) and leave
# the plain report: the comparison table and chart, no marker, no refresh
# tag. First, a watch of a folder that does not exist yet must say what it
# waits for and end on SIGINT with exit 0, writing nothing; and the watch of
# a comparison that is killed must end by itself with its page marked
# stopped.
#   report_watch_browser.sh TAPIR WORK_DIR
# Exits 77 (skipped) when Chromium is not installed (scripts/setup.sh
# installs it).
set -euo pipefail
tapir=$1
work=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: chromium is not installed (scripts/setup.sh installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work"
work=$(pwd) # absolute, for the file:// address

pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

# wait_for SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds;
# fails after SECONDS.
wait_for() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.1
  done
}

running() {
  kill -0 "$1" 2>/dev/null
}

stopped() {
  ! running "$1"
}

# The DOM Chromium builds from cmp/report.html, into FILE.
dump_dom() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile-$1" \
    --dump-dom "file://$work/cmp/report.html" >"$1" 2>"$1.log" ||
    fail "chromium could not load the page: $(tail -3 "$1.log")"
}

# --- a folder that does not exist yet, then SIGINT ----------------------
"$tapir" report --watch later >later.out 2>later.err &
watch=$!
pids+=("$watch")
wait_for 30 grep -qs "waiting for 'later' to hold a run, comparison, search or transfer" later.err ||
  fail "the watch of a missing folder did not say what it waits for: $(cat later.err)"
kill -INT "$watch"
rc=0
wait "$watch" || rc=$?
[ "$rc" -eq 0 ] || fail "SIGINT ended the watch of a missing folder with exit $rc"
[ ! -e later ] || fail "the watch of a missing folder wrote something there"

# --- a comparison killed while the watch follows it ----------------------
"$tapir" compare --task modadd --p 11 --width 16 --layers 1 --steps 100000 --eval-every 20 \
  --seeds 2 --threads 1 --out killed --quiet >killed.out 2>&1 &
compare=$!
pids+=("$compare")
"$tapir" report --watch killed --interval 0.2 >killed-watch.out 2>killed-watch.err &
watch=$!
pids+=("$watch")
wait_for 40 grep -Eqs '\([0-9]+ of [0-9]+ runs? in progress\)' killed-watch.out ||
  fail "the watch showed no run in progress: $(cat killed-watch.out killed-watch.err)"
# Held first until the watch has rendered what it wrote, so that it is
# killed between two writes: nothing changes on disk but the lock.
kill -STOP "$compare"
killed_settled() {
  local before
  before=$(wc -l <killed-watch.out)
  sleep 1
  [ "$(wc -l <killed-watch.out)" -eq "$before" ]
}
wait_for 20 killed_settled || fail "the watch kept rendering a folder nobody writes"
kill -KILL "$compare"
wait_for 30 stopped "$watch" || fail "the watch did not end after the comparison was killed"
rc=0
wait "$watch" || rc=$?
[ "$rc" -eq 0 ] || fail "the watch of a killed comparison exited $rc: $(cat killed-watch.err)"
last=$(tail -1 killed-watch.out)
[[ $last =~ ^rendered\ killed/report.html\ \(stopped\ with\ [0-9]+\ of\ [0-9]+\ runs?\ unfinished\;\ no\ tapir\ process\ writes\ it\)$ ]] ||
  fail "the watch's last line does not say the comparison stopped: $last"
grep -q 'http-equiv' killed/report.html && fail "the stopped comparison's page still reloads itself"

# --- a live comparison --------------------------------------------------
"$tapir" compare --task modadd --p 11 --width 16 --layers 1 --steps 400 --eval-every 20 \
  --seeds 2 --threads 1 --out cmp --quiet >compare.out 2>&1 &
compare=$!
pids+=("$compare")
"$tapir" report --watch cmp --interval 0.2 >watch.out 2>watch.err &
watch=$!
pids+=("$watch")

# The comparison is held still as soon as its first run has logged two
# evaluations (two lines per evaluation: test and train), however fast the
# machine: the watch then renders a page with that run in progress.
two_evaluations() {
  local metrics
  for metrics in cmp/*/seed-*/metrics.jsonl; do
    [ -f "$metrics" ] && [ "$(wc -l <"$metrics")" -ge 4 ] && return 0
  done
  return 1
}
wait_for 40 two_evaluations || fail "the comparison logged no two evaluations: $(tail -5 compare.out)"
kill -STOP "$compare"
live_page() {
  grep -qs 'class="in-progress">in progress</td>' cmp/report.html &&
    grep -qs '<polyline' cmp/report.html
}
wait_for 40 live_page || fail "no page with a run in progress and its curves; watch said: $(cat watch.out watch.err)"
# The page the watch writes while the comparison is held still.
settled() {
  local before
  before=$(wc -l <watch.out)
  sleep 1
  [ "$(wc -l <watch.out)" -eq "$before" ]
}
wait_for 20 settled || fail "the watch kept rendering a folder nobody writes"
[ ! -e cmp/compare.json ] || fail "the comparison finished before it was held; make it longer"
grep -q 'in progress' cmp/report.html ||
  fail "the comparison was held after its last run; make it longer"

dump_dom live.html
grep -q '<meta http-equiv="refresh" content="2">' live.html || fail "live page: no refresh tag"
grep -Eq '<b>1 of [12] runs? in progress</b>' live.html || fail "live page: no count of the runs in progress"
grep -q '<td class="in-progress">in progress</td></tr>' live.html ||
  fail "live page: no run marked in progress"
grep -q '<tr><td>baseline/seed-0</td>' live.html || fail "live page: no row for the first run"
rows=$(grep -o '<tr>' live.html | wc -l)
[ "$rows" -ge 2 ] || fail "live page: $rows table rows, expected a header and a run at least"
grep -q '<svg' live.html || fail "live page: no chart"
grep -q '<polyline' live.html || fail "live page: no curve in the chart"

kill -CONT "$compare"
rc=0
wait "$compare" || rc=$?
[ "$rc" -eq 0 ] || fail "compare exited $rc: $(tail -5 compare.out)"
wait_for 30 stopped "$watch" || fail "the watch did not end after the comparison finished"
rc=0
wait "$watch" || rc=$?
[ "$rc" -eq 0 ] || fail "the watch exited $rc: $(cat watch.err)"
grep -Eq '^rendered cmp/report.html \([12] of [12] runs? in progress\)$' watch.out ||
  fail "the watch printed no render of a run in progress: $(cat watch.out)"
[ "$(tail -1 watch.out)" = "rendered cmp/report.html (finished)" ] ||
  fail "the watch's last line is not the finished render: $(tail -1 watch.out)"

dump_dom final.html
grep -q 'in progress' final.html && fail "final page: still marked in progress"
grep -q 'http-equiv' final.html && fail "final page: still has a refresh tag"
grep -q '<h2>Comparison</h2>' final.html || fail "final page: no comparison table"
grep -q '<tr><td>baseline</td>' final.html || fail "final page: no row for the baseline"
grep -q '<svg' final.html || fail "final page: no chart"
"$tapir" report cmp -o plain.html >/dev/null
cmp -s cmp/report.html plain.html || fail "the watch's last page is not the plain report"
echo "ok: the live page showed $rows table rows, a chart, runs in progress and a refresh tag;" \
  "the watch ended by itself on the plain report"
