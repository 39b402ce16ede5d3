#!/usr/bin/env bash
# Writes a fixed set of tapir outputs into one folder, so that two builds (or
# two commits) can be compared byte for byte with `diff -r`: a train run
# (config, metrics, checkpoint), a resumed run, a staggered search folder, a
# comparison (tables, JSON, verdicts), their HTML reports, a dump, an eval
# and an architecture plot. Small settings: about a minute on one core.
#   scripts/output_set.sh TAPIR OUT
# e.g. scripts/output_set.sh build/release/tools/tapir /tmp/set-after, then
#   diff -r /tmp/set-before /tmp/set-after
# Lines that hold wall-clock time or the build (seconds, timestamps, the
# version) are taken out of the text files by mask_clock below, so what
# remains must be identical for the same binary inputs on one machine.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/output_set.sh TAPIR OUT" >&2
  exit 2
fi
tapir="$(realpath "$1")"
rm -rf "$2"
mkdir -p "$2"
cd "$2"
# Relative paths: run folders record their own path.
out=.
common=(--threads 1)
run() { "$tapir" "$@" "${common[@]}" >>"$out/stdout.txt" 2>&1; }

run train --task modadd --p 47 --width 64 --layers 1 --steps 120 --eval-every 40 --out "$out/train"
run train --task modadd --p 47 --width 64 --layers 1 --steps 60 --eval-every 40 --out "$out/resumed"
run train --resume "$out/resumed" --steps 120
run train --task add --opt digits=2 --width 64 --layers 1 --mlp-act spline --attn score-spline \
  --pos alibi --steps 60 --eval-every 30 --out "$out/spline"
run search --task modadd --p 47 --width 64 --layers 1 --mlp-act spline --models 3 --stagger \
  --steps 90 --eval-every 30 --out "$out/search"
run compare --task modadd --p 47 --width 64 --layers 1 --steps 90 --eval-every 30 --seeds 2 \
  --threshold 0.1,0.5 --arch-file "$out/search/arch.safetensors" --out "$out/compare"
run eval --checkpoint "$out/train"
run dump --checkpoint "$out/train" --out "$out/dump.safetensors"
"$tapir" report "$out/search" >>"$out/stdout.txt" 2>&1
"$tapir" report "$out/compare" >>"$out/stdout.txt" 2>&1
"$tapir" plot arch "$out/search/arch.safetensors" -o "$out/arch.svg" >>"$out/stdout.txt" 2>&1
# What differs between any two runs: the lock files (a process id), and
# wall-clock seconds, speeds and the version wherever they are written (JSON
# keys and safetensors metadata named *seconds*, wall_s, *per_s, version;
# table columns headed "seconds"; "12.3 s" in text).
find "$out" -name .lock -delete
# A safetensors file's header is masked the same way, and its length prefix
# written again, since the masked values had their own lengths.
find "$out" -type f -print0 | xargs -0 perl -0777 -pi -e '
  my $st = length($_) > 8 && substr($_, 8, 1) eq "{" ? unpack("Q<", substr($_, 0, 8)) : 0;
  my ($head, $data) = $st ? (substr($_, 8, $st), substr($_, 8 + $st)) : ($_, undef);
  $_ = $head;
  s/("[a-z0-9_\/-]*(?:seconds|wall_s|per_s|version|commit)[a-z_]*"\s*:\s*)(\{[^{}]*\}|\[[^\[\]]*\]|"[^"]*"|[-0-9.eE+]+)/$1"-"/g;
  if (defined $data) { $_ = pack("Q<", length($_)) . $_ . $data; next; }
  s/\b[0-9]+(?:\.[0-9]+)? ?(?:s|ms|min)\b/T/g;
  s/[0-9.]+[kM]? (tokens|steps)\/s/T $1\/s/g;
  my @lines = split /\n/, $_, -1; my @mask;
  for (@lines) {
    my ($sep, @cells);
    if (/^\|/) { $sep = "|"; @cells = split /\|/, $_, -1; }
    elsif (/^<tr>/) { $sep = "</td><td>"; @cells = split /<\/t[dh]><t[dh]>/, $_, -1; }
    else { next; }
    if (grep { /seconds/ } @cells) { @mask = map { $cells[$_] =~ /seconds/ ? 1 : 0 } 0..$#cells; next; }
    next if /^\|-/;
    $cells[$_] = "-" for grep { $mask[$_] } 0..$#cells;
    $_ = join $sep, @cells;
  }
  $_ = join "\n", @lines;'
echo "wrote $2"
