#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (build dir build-fuzz, -DROCPD_FUZZ=ON)
# and runs each for the given number of seconds (default 30). Fails when any target finds
# something: a crash, a sanitizer report, a leak, a timeout or an out-of-memory (libFuzzer exits
# non-zero and leaves an artifact in build-fuzz/fuzz-runs/<target>/artifacts/).
#   tests/fuzz/run_fuzzers.sh [seconds-per-target]
# Environment: ROCPD_FUZZ_BUILD (build dir), ROCPD_FUZZ_TARGETS (space-separated subset),
# ROCPD_FUZZ_JOBS (build parallelism, and how many targets run at once; default 2). Each libFuzzer
# process is single-threaded: on two cores two targets run side by side, each for the full time
# on a core of its own. Longer runs: docs/fuzzing.md.
set -euo pipefail
seconds=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${ROCPD_FUZZ_BUILD:-$root/build-fuzz}
targets=(${ROCPD_FUZZ_TARGETS:-demangle kernel_short_name sql_functions member_open zstd_frames state_blobs kineto_import sql_rewrite})

# -O1 with line tables only: what libFuzzer recommends, and about half the build time of
# RelWithDebInfo (full debug info); sanitizer reports still name files and lines.
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DROCPD_FUZZ=ON -DROCPD_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" >/dev/null
cmake --build "$build" -j"${ROCPD_FUZZ_JOBS:-2}" --target fuzzers

jobs=${ROCPD_FUZZ_JOBS:-2}
run_target() {  # run_target TARGET: runs it, then writes its exit code to fuzz-runs/TARGET/rc
  local t=$1 exe=$build/tests/fuzz/fuzz_$1 work=$build/fuzz-runs/$1 rc=0
  # The seed corpus is only read; what the run discovers goes to $work/corpus (kept between runs).
  mkdir -p "$work/corpus" "$work/artifacts"
  rm -f "$work"/artifacts/* "$work/rc"
  local extra=()
  case $t in
    demangle | kernel_short_name) extra=(-max_len=16384) ;;
    sql_functions) extra=(-max_len=8192) ;;
    sql_rewrite) extra=(-max_len=4096 -dict=$root/tests/fuzz/sql_rewrite.dict) ;;
    kineto_import) extra=(-max_len=65536) ;;
  esac
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$exe" "$work/corpus" "$root/tests/fuzz/corpus/$t" \
    -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "${extra[@]}" >"$work/log" 2>&1 || rc=$?
  echo "$rc" >"$work/rc"
}

# $jobs targets at a time; the results are reported in the targets' order once all have run.
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "== fuzz_$t: ${seconds}s"
  run_target "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  work=$build/fuzz-runs/$t
  rc=$(cat "$work/rc" 2>/dev/null || echo "no exit code")
  echo "== fuzz_$t"
  grep -E '^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE' "$work/log" || true
  if [ "$rc" != 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
    echo "fuzz_$t: FINDING (exit $rc); artifacts: $(ls "$work/artifacts" | tr '\n' ' ')"
    grep -m1 -A40 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|fuzz invariant' "$work/log" || tail -40 "$work/log"
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzers with findings: ${failed[*]}"
  exit 1
fi
echo "fuzzers: no findings (${#targets[@]} targets, ${seconds}s each)"
