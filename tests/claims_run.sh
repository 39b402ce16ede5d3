#!/usr/bin/env bash
# `tapir claims run` end to end on a claim of its own (a few seconds): the
# runner runs the experiment's search and comparison, reads the number from
# compare.json and writes the record with its status by rule; run again it
# reuses the finished runs and writes the same result; a record the runner
# cannot measure, and an unknown id, are refused in one line.
#   tests/claims_run.sh TAPIR WORK_DIR
set -euo pipefail
tapir="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work/records"
cd "$work"
fail() {
  echo "claims_run: $*" >&2
  exit 1
}

cat >experiments.json <<'JSON'
{
  "tiny": {
    "about": "modular addition p = 23, one block",
    "task": ["--task", "modadd", "--p", "23", "--width", "32", "--layers", "1", "--heads", "2",
             "--batch", "64", "--eval-every", "10"],
    "protocol": "tapir",
    "steps": 40,
    "threshold": "0.3",
    "search": ["--mlp-act", "spline", "--models", "2"],
    "compare": ["--verdict", "accuracy:test"],
    "full": {"searches": 2, "seeds": 2},
    "quick": {"searches": 1, "seeds": 2, "steps": 30}
  }
}
JSON
record() {  # record ID EXPERIMENT-OR-EMPTY
  local measure='"statistic": "final test accuracy, splines minus GeLU", "better": "higher",
      "null": 0, "size": null, "rule": "effect", "format": "difference", "decimals": 3'
  if [ -n "$2" ]; then
    measure="$measure"', "experiment": "'"$2"'", "field": "difference", "variant": "arch",
      "split": "test", "metric": "accuracy"'
  fi
  cat >"records/$1.json" <<JSON
{"id": "$1", "order": 1, "paper": "Teney et al. 2026", "paper_source": "paper",
 "claim": "a tiny claim", "paper_figure": "better", "setting": "tiny", "protocol": "tapir",
 "command": "tapir claims run $1", "measure": {$measure}, "result": null}
JSON
}
record T0-tiny tiny
record T0-script ""

"$tapir" claims run T0-tiny --records records --experiments experiments.json --out runs \
  >run1.txt 2>&1 || { cat run1.txt; fail "the run failed"; }
"$tapir" claims list --records records T0-tiny | grep -E '^T0-tiny \| a tiny claim \| better \| final test accuracy, splines minus GeLU: [+-][0-9.]+ \[[+-][0-9.]+, [+-][0-9.]+\], n 2 x 2; median [0-9.]+ against [0-9.]+; .*\| (reproduced|reversed|inconclusive)$' \
  >/dev/null || fail "the record's line: $("$tapir" claims list --records records T0-tiny)"
grep -q '"budget": "full"' records/T0-tiny.json || fail "no full budget in the record"
grep -q '"source": "runs/tiny/compare/compare.json"' records/T0-tiny.json || fail "no source"
[ -f runs/tiny/search/search-1/arch.safetensors ] || fail "no second search"
cp records/T0-tiny.json first.json

# Again: every run reused, the same numbers.
"$tapir" claims run T0-tiny --records records --experiments experiments.json --out runs \
  >run2.txt 2>&1 || { cat run2.txt; fail "the rerun failed"; }
strip() { grep -v '"wall_s"\|"date"' "$1"; }
diff <(strip first.json) <(strip records/T0-tiny.json) || fail "the rerun changed the result"

# The quick budget: its own runs, marked in the record; --into leaves the
# records alone.
"$tapir" claims run T0-tiny --quick --records records --experiments experiments.json --out runs \
  --into quick >run3.txt 2>&1 || { cat run3.txt; fail "the quick run failed"; }
grep -q '"budget": "quick"' quick/T0-tiny.json || fail "no quick budget in the record"
[ -f runs/tiny-quick/search/search-0/arch.safetensors ] || fail "the quick search is not in runs/tiny-quick"
diff <(strip first.json) <(strip records/T0-tiny.json) || fail "--into changed the records"

# Refused in one line: a record with no experiment, an unknown id.
if "$tapir" claims run T0-script --records records --experiments experiments.json >err.txt 2>&1; then
  fail "a record without an experiment ran"
fi
grep -q '^tapir: claim T0-script has no experiment the runner can run' err.txt || fail "$(cat err.txt)"
if "$tapir" claims run T0-nothing --records records --experiments experiments.json >err.txt 2>&1; then
  fail "an unknown id ran"
fi
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "no claim record 'T0-nothing'" err.txt || fail "$(cat err.txt)"
echo "claims_run: ok"
