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
# The newer upstream layouts, outside sets/ so that tests iterating over sets/* opt in to them
# one by one (docs/generator.md, "Fixtures"): rocprofv3 3.0.0 and 3.0.5 files with counters,
# rocpd merge files, and a multi-node mixed job with encoded rpd ids and skewed host clocks.
rm -rf "$out"/layouts && mkdir -p "$out"/layouts
"$gen" --out "$out/layouts/rocpd_v300" --procs 2 --format rocpd --ops 2000 --seed 17 --rocpd-version 3.0.0
"$gen" --out "$out/layouts/rocpd_v305" --procs 3 --format rocpd --ops 2000 --seed 17 --rocpd-version 3.0.5 --counters 3
"$gen" --out "$out/layouts/merged" --procs 4 --format rocpd --ops 1500 --seed 19 --merge 2 --rocpd-version 3.0.3 --counters 2
"$gen" --out "$out/layouts/multinode" --procs 4 --format mixed --ops 1500 --seed 23 --rpd-nodes 2 --host-skew 2000000 \
  --rocpd-version 3.0.4
"$gen" --out "$out/layouts/rocprofsys" --procs 2 --format rocprofsys --ops 1500 --seed 29
"$gen" --out "$out/layouts/rocpd4" --procs 1 --format rocpd4 --ops 500 --seed 31
# Nsight Systems exports: rank0's report holds two processes (repeated correlation ids), memsets.
"$gen" --out "$out/layouts/nsys" --procs 2 --format nsys --ops 1500 --seed 37 --sessions 2 --memsets 20
# PyTorch profiler (Kineto) JSON traces: one file per layout (base, absolute ts, base after the events).
"$gen" --out "$out/layouts/kineto" --procs 3 --format kineto --ops 1500 --seed 37
# The sets' workload (seed 7) as rocpd 4.x and rocprofiler-systems write it.
for f in rocpd4 rocprofsys; do
  "$gen" --out "$out/layouts/same_$f" --procs 4 --format $f --ops 3000 --seed 7
done
echo "fixtures ready in $out/sets and $out/layouts"
