#!/usr/bin/env bash
# The pages tapir writes, as a person sees them: headless Chromium renders
# each to pixels, and every panel that has data must show its curves.
#   - Two small Stage I searches, a comparison of their functions against
#     the baseline (each search, the two pooled) and the pages of both:
#     the comparison's (the forest plot of ratios, accuracy and loss, each
#     search's learned functions: several multi-panel figures in one
#     document) and a search's.
#   - The claims page of the repository (docs/claims.html).
# For each page, the DOM (Chromium's, with a probe script added to a copy)
# gives every panel's plot area and the colours of its series with data;
# a screenshot of the page itself gives the pixels, and tests/page_pixels
# checks that each colour is seen in its plot area. The DOM must also show
# no legend over a plot area, and the comparison's forest plot must label
# its rows with the variants' short names ("search 0", "2 searches
# pooled"), the same as compare.json's.
# Then it shows that it sees what it claims to: the comparison's page with
# every clip reference resolving to the first clip rectangle (what ids
# shared between figures do) and the page with one curve removed must
# both fail.
#   report_pixels.sh TAPIR PAGE_PIXELS SOURCE_DIR WORK_DIR
# Exits 77 (skipped) when Chromium is not installed (scripts/setup.sh
# installs it).
set -euo pipefail
tapir=$1
page_pixels=$2
source_dir=$3
work=$4
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: chromium is not installed (scripts/setup.sh installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
cd "$work"
work=$(pwd)

fail() {
  echo "FAIL: $*"
  exit 1
}

# The probe added to a copy of a page: each panel's plot area in page
# pixels, its title and colours, the forest plots' row labels, the page's
# height and any legend that overlaps a plot area, as JSON in <pre id=probe>.
probe_script='<script>
window.addEventListener("load", () => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; };
  const meet = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const out = {panels: [], labels: [], overlaps: [], height: 0};
  const areas = [...document.querySelectorAll("g.panel")].map((g) => {
    const area = g.querySelector(".plot-area");
    const title = g.querySelector("text");
    const p = Object.assign(box(area), {title: title ? title.textContent : "",
      colors: (g.getAttribute("data-colors") || "").split(" ").filter((c) => c)});
    out.panels.push(p);
    return p;
  });
  for (const legend of document.querySelectorAll("g.legend")) {
    const b = box(legend);
    for (const a of areas) if (meet(b, a)) out.overlaps.push(a.title);
  }
  out.labels = [...document.querySelectorAll(".forest-label")].map((e) => e.textContent);
  out.height = Math.ceil(document.documentElement.scrollHeight);
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>'

# look PAGE NAME: the probe's JSON of PAGE into NAME.json, its screenshot
# into NAME.png, and the pixel check's verdict into NAME.pixels (its exit
# status returned).
look() {
  local page=$1 name=$2
  cp "$page" "$name.probe.html"
  printf '%s\n' "$probe_script" >>"$name.probe.html"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --force-device-scale-factor=1 --window-size=1400,900 --user-data-dir="$work/profile-$name" \
    --dump-dom "file://$work/$name.probe.html" >"$name.dom" 2>"$name.log" ||
    fail "chromium could not load $page: $(tail -3 "$name.log")"
  sed -n 's:.*<pre id="probe">\(.*\)</pre>.*:\1:p' "$name.dom" |
    sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g' >"$name.json"
  [ -s "$name.json" ] || fail "the probe of $page wrote nothing: $(tail -3 "$name.log")"
  local height
  height=$(jq '.height' "$name.json")
  cp "$page" "$name.html"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --force-device-scale-factor=1 --window-size="1400,$height" \
    --user-data-dir="$work/profile-$name-shot" --screenshot="$work/$name.png" \
    "file://$work/$name.html" >"$name.shot.log" 2>&1 ||
    fail "chromium could not render $page: $(tail -3 "$name.shot.log")"
  jq '.panels' "$name.json" >"$name.panels.json"
  "$page_pixels" "$name.png" "$name.panels.json" >"$name.pixels"
}

# see PAGE NAME: look, and every panel must show its colours, no legend
# may cover a plot area.
see() {
  local rc=0
  look "$1" "$2" || rc=$?
  cat "$2.pixels"
  [ "$rc" -eq 0 ] || fail "$1: a panel does not show its curves"
  [ "$(jq '.panels | length' "$2.json")" -gt 0 ] || fail "$1: no panel found"
  [ "$(jq '.overlaps | length' "$2.json")" -eq 0 ] ||
    fail "$1: a legend covers the plot area of $(jq -c '.overlaps' "$2.json")"
}

common=(--task modadd --p 11 --width 16 --layers 1 --mlp-act spline --threads 1 --quiet)
for k in 0 1; do
  "$tapir" search "${common[@]}" --models 2 --steps 30 --search-steps 40 --eval-every 10 \
    --eval-limit 128 --seed $((k + 1)) --out "search/search-$k" >/dev/null
done
"$tapir" compare "${common[@]}" --steps 120 --eval-every 20 --seeds 2 --threshold 0.5 \
  --arch-file search/search-0/arch.safetensors --arch-file search/search-1/arch.safetensors \
  --out cmp >/dev/null
"$tapir" report cmp >/dev/null
"$tapir" report search/search-0 >/dev/null

echo "== the comparison's page"
see cmp/report.html compare
# The forest plot's rows: the variants' short names, as compare.json has them.
expected=$(jq -r '.against_baseline as $a | $a[] | select(.split == $a[0].split) | .label' \
  cmp/compare.json)
got=$(jq -r '.labels[]' compare.json | head -n "$(printf '%s\n' "$expected" | wc -l)")
[ "$got" = "$expected" ] || fail "the forest plot's rows are labelled '$got', not '$expected'"
for name in "search 0" "search 1" "2 searches pooled"; do
  printf '%s\n' "$expected" | grep -qx "$name" || fail "no forest row named '$name': $expected"
done
# No figure names a variant by its file (the full names are in compare.md's
# legend table and compare.json).
named=$(grep -o '<text[^>]*>[^<]*arch:search[^<]*</text>' cmp/report.html | head -1 || true)
[ -z "$named" ] || fail "a figure names a variant by its file: $named"

echo "== a search's page"
see search/search-0/report.html search

echo "== the claims page"
see "$source_dir/docs/claims.html" claims

echo "== the comparison's page with its clip references resolving elsewhere (must fail)"
# What ids shared between figures do: url(#clip1) finds the first element
# with that id, another figure's rectangle. Here every reference finds the
# page's first clip rectangle, the accuracy panel's.
first=$(grep -o '<clipPath id="[^"]*"' cmp/report.html | head -1 | sed 's/.*id="//; s/"//')
[ -n "$first" ] || fail "the comparison's page has no clip path"
sed -E "s/url\(#[^)]*\)/url(#$first)/g" cmp/report.html >mutated-ids.html
rc=0
look mutated-ids.html same-ids || rc=$?
cat same-ids.pixels
[ "$rc" -ne 0 ] || fail "clip paths resolving to another panel's rectangle went unseen"

echo "== the comparison's page with one curve removed (must fail)"
awk '/<polyline/ && !done { done = 1; next } { print }' cmp/report.html >mutated-curve.html
rc=0
look mutated-curve.html one-less || rc=$?
cat one-less.pixels
[ "$rc" -ne 0 ] || fail "a series not drawn went unseen"
echo "ok: every panel shows its curves; the forest plot's rows are the variants' names"
