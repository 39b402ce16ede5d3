#!/usr/bin/env bash
# The bash completion script and the man pages that the build writes
# (tools/cmd_shell.cpp, tools/shell_pages.cpp, tools/CMakeLists.txt):
#   - completion, sourced into bash, offers what a user expects: command
#     names, a command's flags, a NAME flag's choices, task names for
#     --task, `tasks show` and each name of --tasks's list, nothing after a
#     numeric flag, files after a path flag;
#   - there is one man page per command, and each names every flag that
#     `tapir COMMAND --help` prints; where groff or man is installed, every
#     page renders without a warning.
#
# Usage: tests/shell_pages.sh TAPIR SHELL_DIR   (SHELL_DIR: the build's tools/shell)
set -euo pipefail
tapir="$1"
shell_dir="$2"
failures=0
fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# shellcheck source=/dev/null
source "$shell_dir/tapir"
# offers WORDS... EXPECTED: completing the last word of WORDS offers EXPECTED
# (space-separated, in the order given, files sorted).
offers() {
  local expected="${*: -1}"
  COMP_WORDS=("${@:1:$#-1}")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  _tapir
  local got
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | xargs)
  expected=$(tr ' ' '\n' <<<"$expected" | sort | xargs)
  [[ $got == "$expected" ]] || fail "completing '${COMP_WORDS[*]}': expected '$expected', got '$got'"
}
offers tapir tr "train transfer"
offers tapir arch "" "fit-poly stats control import"
offers tapir train --ta "--task"
offers tapir train --task mo "modadd"
offers tapir tasks show d "denoise dyck"
offers tapir transfer --tasks add,d "add,denoise add,dyck"
offers tapir transfer --tasks add,copy,man "add,copy,mano"
offers tapir train --mlp-act "" "gelu relu spline poly"
offers tapir train --device c "cpu cuda"
offers tapir compare --preset "" "lm-afs"
offers tapir train --width "" ""
offers tapir arch import --sc "--scope"
offers tapir train --task modadd --lr 1e-3 --mlp-a "--mlp-act"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
touch "$work/run.safetensors"
offers tapir train --arch "$work/run.s" "$work/run.safetensors"

# every command's page names each flag its --help prints
# shellcheck disable=SC2154  # _tapir_subs comes from the sourced script
commands=$(printf '%s\n' "${!_tapir_subs[@]}" | sed 's/^tapir *//' | grep -v '^$')
[[ -f $shell_dir/man1/tapir.1 ]] || fail "no tapir.1"
count=0
while read -r command; do
  page="$shell_dir/man1/tapir-${command// /-}.1"
  if [[ ! -f $page ]]; then
    fail "no man page for tapir $command ($page)"
    continue
  fi
  count=$((count + 1))
  # shellcheck disable=SC2086  # the command's words
  for flag in $("$tapir" $command --help | grep -oE '^ +(-[a-z],)?--[a-z0-9-]+' | sed 's/.*--//'); do
    grep -qF -- "\\-\\-${flag//-/\\-}\\fR" "$page" || fail "$page does not name --$flag"
  done
done <<<"$commands"
((count > 20)) || fail "only $count man pages"

if command -v groff >/dev/null; then
  for page in "$shell_dir"/man1/*.1; do
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff fails on $page"
    [[ -z $warnings ]] || fail "groff warns on $page: $warnings"
  done
else
  echo "groff is not installed: the pages' rendering is not checked"
fi

if ((failures)); then
  echo "$failures failures" >&2
  exit 1
fi
echo "completion offers what it should; $count man pages name every flag of their command"
