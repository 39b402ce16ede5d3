#!/usr/bin/env bash
# The docs name files and symbols; this checks that they exist, so that the
# reader's path stays right when code moves (ctest doc_refs). Outside code
# fences, in README.md and every docs/*.md:
#   - each `path` in backticks that starts at a top-level folder of the
#     repository (engine/cpu/spline.cpp, scripts/experiments/, tests/*.sh,
#     optim/trainer.{h,cpp}) exists: a file or folder, every member of a
#     brace list, or a glob that matches something; a `path:LINE` (or
#     `path:A-B`) has that line;
#   - each `symbol` (`path`) or `symbol` in `path`: the symbol's last
#     identifier (`Arena::recycle` -> recycle, `build_run(config)` ->
#     build_run) occurs as a word in that file, or in a file under that
#     folder; with a `path:LINE` or `path:A-B`, on that line or in that
#     range, so a line number that no longer points at its symbol is caught;
#   - a `path:LINE` has its symbol beside it, in one of those two forms;
#   - each other `symbol` that reads as code (a call `f(...)`, every part
#     of a qualified `A::b`, a snake_case, CamelCase or UPPER_CASE name)
#     occurs somewhere in the sources, scripts or configs, or is a file's or
#     a layer library's name (`test_spline`, `tapir_nn`); subscripted maths (`m_h`)
#     and the names of outside libraries (below) are left alone;
#   - each relative markdown link [text](file.md#anchor) names a file;
#   - each excerpt of the code (excerpts(), below) is the code now.
# Prints one line per broken reference (doc:line: what) and fails if any.
#
# Usage: tests/doc_refs.sh SOURCE_DIR [DOC...]   (default: README.md docs/*.md)
#        tests/doc_refs.sh SOURCE_DIR --write-excerpts [DOC...]
#        tests/doc_refs.sh SOURCE_DIR --self-test
# --write-excerpts takes every excerpt (below) from the code again and checks
# nothing else.
# --self-test runs the check on tests/data/doc_refs_broken.md, whose every
# kind of broken reference must be reported, and on nothing else.
set -uo pipefail
root="$1"
shift
cd "$root" || exit 2
code_dirs=(autograd base engine nn optim lab report tasks tools tests scripts cmake configs examples)
# Names the docs take from outside the repository (BLAS, libxsmm, the
# sanitizers, the kernel's profiler symbols), by prefix.
outside='^(cblas_|libxsmm_|sgemm_|pvm_|ASAN_)'

# An excerpt of the code in a doc is a marker line and the code fence under it:
#   <!-- excerpt: PATH from "TEXT" lines N -->
# names the N lines of PATH that start at the first line holding TEXT (as
# written, no pattern), and the fence must hold those lines as they are.
# Anchored by text rather than by line number, an excerpt survives code moving
# above it, and any change inside it makes it stale.
# excerpts check DOC: "DOC:LINE: what" for each marker that is malformed,
# names no code or is stale; excerpts write DOC: DOC with every excerpt taken
# from the code again (what cannot be taken reported on stderr). Fails if
# anything was reported.
excerpts() {
  awk -v mode="$1" '
    function out(line) { if (mode == "write") print line }
    function report(what) {
      ++reports
      if (mode == "write") print FILENAME ":" marker ": " what >"/dev/stderr"
      else print FILENAME ":" marker ": " what
    }
    # code[1..n]: the n lines of path from the first that holds text; or why not
    function take(path, text, n,    line, got, status) {
      ncode = 0
      got = 0
      while (ncode < n && (status = (getline line < path)) > 0) {
        if (!got && index(line, text)) got = 1
        if (got) code[++ncode] = line
      }
      close(path)
      if (status < 0) return "no such file: " path
      if (!got) return path " has no line holding \"" text "\""
      if (ncode < n) return path " ends before " n " lines from \"" text "\""
      return ""
    }
    state == 2 {  # in an excerpt fence
      if ($0 !~ /^```[ \t]*$/) { body[++nbody] = $0; next }
      same = why == "" && nbody == ncode
      for (i = 1; same && i <= nbody; ++i) same = body[i] == code[i]
      if (why != "") report(why)
      else if (!same && mode == "check")
        report("excerpt of " path " differs from the code (tests/doc_refs.sh SOURCE_DIR --write-excerpts rewrites it)")
      if (why == "") for (i = 1; i <= ncode; ++i) out(code[i])
      else for (i = 1; i <= nbody; ++i) out(body[i])
      out($0)
      state = 0
      next
    }
    state == 1 {  # the line under a marker
      state = 0
      if ($0 ~ /^```/) { out($0); state = 2; nbody = 0; next }
      report("no code fence under the excerpt marker")
    }
    /^[ \t]*```/ { fence = !fence; out($0); next }
    !fence && /^<!-- excerpt:/ {
      marker = FNR
      out($0)
      if ($0 !~ /^<!-- excerpt: [^ ]+ from "[^"]+" lines [1-9][0-9]* -->$/) {
        report("an excerpt marker reads <!-- excerpt: PATH from \"TEXT\" lines N -->")
        next
      }
      spec = substr($0, 15)  # after "<!-- excerpt: "
      path = substr(spec, 1, index(spec, " ") - 1)
      spec = substr(spec, length(path) + 8)  # after " from \""
      text = substr(spec, 1, index(spec, "\" lines ") - 1)
      why = take(path, text, substr(spec, length(text) + 9) + 0)
      state = 1
      next
    }
    { out($0) }
    END {
      if (state == 1) report("no code fence under the excerpt marker")
      if (state == 2) {
        report("no end to the code fence under the excerpt marker")
        for (i = 1; i <= nbody; ++i) out(body[i])
      }
      exit (reports > 0)
    }' "$2"
}

if [[ ${1:-} == --self-test ]]; then
  fixture=tests/data/doc_refs_broken.md
  expected=(
    "$fixture:6: no such path: engine/no_such_file.cpp"
    "$fixture:7: no such path: optim/trainer.hpp"
    "$fixture:8: engine/tensor.h has no line 100000"
    "$fixture:9: no_such_function is not in optim/trainer.cpp"
    "$fixture:9: no_such_function is in no source"
    "$fixture:10: no_such_helper_anywhere is in no source"
    "$fixture:11: NoSuchClass is in no source"
    "$fixture:12: link to a missing file: no_such_doc.md"
    "$fixture:13: autograd/tape.cpp:1 does not hold reset_step"
    "$fixture:14: autograd/tape.cpp:1-2 names no symbol: write \`symbol\` (\`autograd/tape.cpp:1-2\`)"
    "$fixture:15: excerpt of autograd/tape.cpp differs from the code (tests/doc_refs.sh SOURCE_DIR --write-excerpts rewrites it)"
    "$fixture:20: autograd/tape.cpp has no line holding \"no_such_line_of_code\""
    "$fixture:23: an excerpt marker reads <!-- excerpt: PATH from \"TEXT\" lines N -->"
    "$fixture:26: autograd/tape.cpp ends before 3 lines from \"}  // namespace tapir\""
    "$fixture:29: no code fence under the excerpt marker"
    "$fixture:50: no end to the code fence under the excerpt marker"
  )
  got=$("$0" . "$fixture" 2>/dev/null)
  status=$?
  if ((status != 1)) || [[ $got != "$(printf '%s\n' "${expected[@]}")" ]]; then
    echo "doc_refs.sh --self-test: expected exit 1 and these lines:" >&2
    printf '  %s\n' "${expected[@]}" >&2
    echo "got exit $status and:" >&2
    while IFS= read -r line; do echo "  $line"; done <<<"$got" >&2
    exit 1
  fi
  echo "every kind of broken reference in $fixture was reported, nothing else"
  exit 0
fi

write=0
[[ ${1:-} == --write-excerpts ]] && write=1 && shift
docs=("$@")
[[ ${#docs[@]} -eq 0 ]] && docs=(README.md docs/*.md)
for doc in "${docs[@]}"; do
  [[ -f $doc ]] || { echo "doc_refs.sh: no doc $doc" >&2; exit 2; }
done

if ((write)); then
  status=0
  written=$(mktemp)
  for doc in "${docs[@]}"; do
    excerpts write "$doc" >"$written" || status=1
    if ! cmp -s "$written" "$doc"; then
      cat "$written" >"$doc"
      echo "rewrote the excerpts in $doc from the code"
    fi
  done
  rm -f "$written"
  exit $status
fi
present=()
for d in "${code_dirs[@]}"; do [[ -d $d ]] && present+=("$d"); done

# One pass over the docs: "DOC:LINE<TAB>KIND<TAB>A<TAB>B" per reference:
# path (A the path), bare (A a `path:LINE` with no symbol beside it), symbol
# (A the symbol, B its path), name (A a name that reads as code) or link (A
# the target, B the doc's folder).
refs() {
  # `symbol` ( or `symbol` in, before a `path`
  # shellcheck disable=SC2016  # markdown's backticks, not a command
  local symbol='`[A-Za-z_][A-Za-z0-9_:.>-]*(\\([^`]*\\))?` (\\(|in )'
  awk -v top="($(IFS='|'; echo "${code_dirs[*]}|docs|data|third_party"))" -v outside="$outside" \
    -v symbol="$symbol" '
    BEGIN { beside = symbol "$" }
    FNR == 1 { fence = 0; dir = FILENAME; sub(/\/?[^\/]*$/, "", dir); if (dir == "") dir = "." }
    /^[ \t]*```/ { fence = !fence; next }
    fence { next }
    {
      where = FILENAME ":" FNR
      rest = $0; before = ""
      while (match(rest, "`" top "/[A-Za-z0-9_.*/{},-]*(:[0-9]+([-,][0-9]+)*)?`")) {
        path = substr(rest, RSTART + 1, RLENGTH - 2)
        before = before substr(rest, 1, RSTART - 1)
        print where "\tpath\t" path
        # a line number without its symbol: nothing to tell whether it moved
        if (path ~ /:[0-9]/ && before !~ beside) print where "\tbare\t" path
        before = before substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
      }
      rest = $0
      while (match(rest, symbol "`" top "/[A-Za-z0-9_.*/-]*(:[0-9]+(-[0-9]+)?)?`")) {
        ref = substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
        sym = ref; sub(/^`/, "", sym); sub(/`.*/, "", sym)
        path = ref; sub(/`$/, "", path); sub(/.*`/, "", path)
        print where "\tsymbol\t" sym "\t" path
      }
      rest = $0
      while (match(rest, /`[A-Za-z_][A-Za-z0-9_:.<>~-]*(\([^`]*\))?`/)) {
        token = substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
        call = token ~ /\(/
        sub(/\(.*/, "", token)
        name = token; sub(/.*::/, "", name); sub(/.*\./, "", name); sub(/.*->/, "", name)
        if (name !~ /^[A-Za-z_][A-Za-z0-9_]*$/ || name ~ outside) continue
        if (name ~ /^[A-Za-z]_[A-Za-z0-9][A-Za-z0-9]?$/) continue  # maths: m_h, v_0
        if (token ~ /::/) {  # every part of a qualified name
          parts = split(token, part, "::")
          for (i = 1; i < parts; ++i) if (part[i] ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print where "\tname\t" part[i]
        }
        if (call || token ~ /::/ || name ~ /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/ ||
            name ~ /^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$/ || name ~ /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/)
          print where "\tname\t" name
      }
      rest = $0
      while (match(rest, /\]\([^) \t]+\)/)) {
        target = substr(rest, RSTART + 2, RLENGTH - 3)
        rest = substr(rest, RSTART + RLENGTH)
        if (target !~ /^(https?|mailto):/ && target !~ /^#/) print where "\tlink\t" target "\t" dir
      }
    }' "${docs[@]}"
}

# words: every identifier in the sources, scripts and configs (not this
# check's own files), every file's name without its extension, and the
# layer libraries' names.
words() {
  grep -rIhoE --exclude=doc_refs.sh --exclude=doc_refs_broken.md '[A-Za-z_][A-Za-z0-9_]*' \
    "${present[@]}" CMakeLists.txt
  find "${present[@]}" -type f | sed 's#.*/##; s#\..*##'
  for d in "${present[@]}"; do echo "tapir_$d"; done
}

# expand PATH: the paths a reference names, one per line (a{b,c}d -> abd, acd).
expand() {
  if [[ $1 =~ ^([^{]*)\{([^}]*)\}(.*)$ ]]; then
    local head="${BASH_REMATCH[1]}" tail="${BASH_REMATCH[3]}" part parts
    IFS=, read -r -a parts <<<"${BASH_REMATCH[2]}"
    for part in "${parts[@]}"; do expand "$head$part$tail"; done
  else
    echo "$1"
  fi
}

# exists PATH: a file or folder, or a glob that matches one.
exists() {
  [[ -e $1 ]] && return 0
  [[ $1 == *[*?[]* ]] && compgen -G "$1" >/dev/null
}

all_refs=$(refs)
known=$(words | sort -u)
broken=$(
  while IFS=$'\t' read -r where kind a b; do
    case "$kind" in
      path)
        want=""  # the last line named: 42 in path:42, path:40-42 or path:40,42
        [[ $a == *:* ]] && want="${a##*[:,-]}"
        while read -r path; do
          if ! exists "$path"; then
            echo "$where: no such path: $path"
          elif [[ -n $want && -f $path ]] && (($(wc -l <"$path") < want)); then
            echo "$where: $path has no line $want"
          fi
        done < <(expand "${a%%:*}")
        ;;
      symbol)
        path="${b%%:*}"
        exists "$path" || continue  # reported as a path
        name="${a%%(*}"
        name="${name##*::}"
        name="${name##*.}"
        name="${name##*>}"
        [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        # shellcheck disable=SC2086  # a glob path names several files
        if ! grep -rIqw -- "$name" $path; then
          echo "$where: $name is not in $path"
        elif [[ $b == *:* && -f $path ]]; then
          lines="${b#*:}"
          first="${lines%-*}"
          last="${lines#*-}"
          (($(wc -l <"$path") < last)) && continue  # reported as a path
          sed -n "${first},${last}p" "$path" | grep -qw -- "$name" ||
            echo "$where: $b does not hold $name"
        fi
        ;;
      bare)
        echo "$where: $a names no symbol: write \`symbol\` (\`$a\`)"
        ;;
      link)
        [[ -e $b/${a%%#*} ]] || echo "$where: link to a missing file: ${a%%#*}"
        ;;
    esac
  done <<<"$all_refs"
  for doc in "${docs[@]}"; do excerpts check "$doc"; done
  # the names, against every word at once
  awk -F'\t' 'NR == FNR { known[$1] = 1; next }
    $2 == "name" && !($3 in known) { print $1 ": " $3 " is in no source" }' \
    <(echo "$known") <(echo "$all_refs")
)
if [[ -n $broken ]]; then
  sort -t: -k1,1 -k2,2n -s <<<"$broken"
  echo "$(wc -l <<<"$broken") broken references in the docs" >&2
  exit 1
fi
echo "every path, symbol, name and link named in ${#docs[@]} docs exists"
