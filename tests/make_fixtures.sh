#!/bin/sh
# Generates the fixture sets every SQL/Python test may use (see tests/README.md).
set -eu
gen=$1 out=$2
rm -rf "$out"/sets && mkdir -p "$out"/sets
# The same workload in the three formats (identical ground truth).
for f in rpd2 rpd3 rocpd; do
  "$gen" --out "$out/sets/same_$f" --procs 4 --format $f --ops 3000 --seed 7
done
# A mixed job of 8 ranks, and an rpd file holding two sessions.
"$gen" --out "$out/sets/mixed8" --procs 8 --format mixed --ops 2000 --seed 11
"$gen" --out "$out/sets/sessions" --procs 1 --format rpd3 --ops 2000 --seed 13 --sessions 2
echo "fixtures ready in $out/sets"
