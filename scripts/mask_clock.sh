#!/usr/bin/env bash
# Masks, in place, what differs between two runs of the same tapir command
# in a folder of its outputs, so that two such folders can be compared with
# diff -r (scripts/output_set.sh, tests/blas_pin.sh):
#   scripts/mask_clock.sh DIR
set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/mask_clock.sh DIR" >&2
  exit 2
fi
out="$1"
# What differs between any two runs: the lock files (a process id), and
# wall-clock seconds, speeds and the version wherever they are written (JSON
# keys and safetensors metadata named *seconds*, wall_s, *per_s, version;
# table columns headed "seconds"; "12.3 s" in text), and so the fingerprint
# a finished run records of its metrics.jsonl (which holds wall_s).
find "$out" -name .lock -delete
find "$out" -type f -name finished -print0 |
  xargs -0 -r perl -pi -e 's/("metrics\.jsonl"\s*:\s*)"[^"]*"/$1"-"/g'
# A safetensors file's header is masked the same way, and its length prefix
# written again (without the padding), since the masked values had their own
# lengths.
find "$out" -type f -print0 | xargs -0 perl -0777 -pi -e '
  my $st = length($_) > 8 && substr($_, 8, 1) eq "{" ? unpack("Q<", substr($_, 0, 8)) : 0;
  my ($head, $data) = $st ? (substr($_, 8, $st), substr($_, 8 + $st)) : ($_, undef);
  $_ = $head;
  s/("[a-z0-9_\/-]*(?:seconds|wall_s|per_s|version|commit)[a-z_]*"\s*:\s*)(\{[^{}]*\}|\[[^\[\]]*\]|"[^"]*"|[-0-9.eE+]+)/$1"-"/g;
  if (defined $data) { s/ +$//; $_ = pack("Q<", length($_)) . $_ . $data; next; }
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
