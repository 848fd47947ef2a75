#!/usr/bin/python3
"""Diagnosis benchmark (issue 11): rocpd_kernel_stacks, rocpd_idle_breakdown and the why views
(rocpd_comm_overlap, rocpd_queue_depth, rocpd_launch_stats, rocpd_kernel_sequences,
rocpd_kernel_counters) and rocpd_time_breakdown against a full scan of rocpd_ops, and each against a scan of the columns it
reads, on the same job, in the same run.

  cmake --build build --target bench_diagnosis   # or directly:
  bench_diagnosis.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen \
                     [--files 64] [--ops 100000] [--markers 10000] [--rpd-counters N] [--work DIR]
                     [--job DIR] [--only TEXT]

The job is generated once (rpd v3, --diagnosis 1: nested roctx ranges on the launching thread,
ranges on a helper thread, host stalls, event waits). Prints the data size, best-of-N times and
the ratios ours / full scan and ours / scan of the columns read (below 3 is the target). Each
case alternates with the full scan, and its ratio is to the best scan of those same rounds (the
last column).
"""
import argparse
import os
import sqlite3
import subprocess
import time


def connect(ext):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def best_of(fn, repeat):
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ext", required=True)
    p.add_argument("--gen", required=True)
    p.add_argument("--work", default="/tmp/rocpd_bench_diagnosis")
    p.add_argument("--files", type=int, default=64)
    p.add_argument("--ops", type=int, default=100000)
    p.add_argument("--markers", type=int, default=10000)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--rpd-counters", type=int, default=0, help="counters per kernel (rocpd_kernel_counters has rows)")
    p.add_argument("--job", help="an existing job directory to time instead of the generated one")
    p.add_argument("--only", help="time only the cases whose name contains this text (and the full scan, "
                   "first, plus the cases they are compared with)")
    args = p.parse_args()

    counters = f"_c{args.rpd_counters}" if args.rpd_counters else ""
    job = args.job or os.path.join(args.work, f"job_{args.files}x{args.ops}_m{args.markers}{counters}")
    if not args.job and not os.path.exists(os.path.join(job, "truth.json")):
        subprocess.run([args.gen, "--out", job, "--procs", str(args.files), "--format", "rpd3", "--ops", str(args.ops),
                        "--seed", "11", "--markers", str(args.markers), "--diagnosis", "1"]
                       + (["--rpd-counters", str(args.rpd_counters)] if args.rpd_counters else []),
                       check=True, stdout=subprocess.DEVNULL)
    files = [f for f in os.listdir(job) if f.endswith((".rpd", ".db"))]
    size = sum(os.path.getsize(os.path.join(job, f)) for f in files)
    con = connect(args.ext)
    con.execute("SELECT rocpd_open(?)", (job,)).fetchone()
    ops, apis, markers = con.execute(
        "SELECT sum(ops), sum(apis), (SELECT count(*) FROM rocpd_apis WHERE domain = 'marker') FROM rocpd_members").fetchone()
    print(f"job: {job}: {len(files)} files, {ops} ops, {apis} API rows of which {markers} markers, {size / 2**20:.0f} MB")

    cases = [
        ("full scan: SELECT count(*), sum(duration) FROM rocpd_ops",
         "SELECT count(*), sum(duration) FROM rocpd_ops"),
        ("full scan of the columns rocpd_idle_breakdown reads",
         "SELECT count(*), sum(gpu), sum(queue), sum(stream), sum(\"end\" - start), sum(correlation_id) FROM rocpd_ops"),
        ("full scan of the columns rocpd_kernel_stacks reads",
         "SELECT count(*), sum(length(name)), sum(length(kind)), sum(correlation_id), sum(op_id), sum(gpu), sum(queue), "
         "sum(\"end\" - start) FROM rocpd_ops"),
        ("scan of every input of rocpd_kernel_stacks (ops, API calls, markers)",
         "SELECT (SELECT total(length(name)) + total(length(kind)) + total(correlation_id) + total(op_id) + total(gpu) "
         "+ total(queue) + total(\"end\" - start) FROM rocpd_ops) "
         "+ (SELECT total(correlation_id) + total(pid) + total(tid) + total(\"end\" - start) + total(api_id) FROM rocpd_apis) "
         "+ (SELECT total(length(name)) + total(pid) + total(tid) + total(\"end\" - start) FROM rocpd_apis "
         "WHERE domain = 'marker')"),
        ("full scan of every column but demangled (SELECT * without demangle)",
         "SELECT count(*), sum(pid), sum(gpu), sum(queue), sum(stream), max(kind), max(name), max(start), max(\"end\"), "
         "sum(duration), sum(correlation_id), sum(op_id), sum(graph_id), sum(node) FROM rocpd_ops"),
        ("rocpd_kernel_stacks: every row",
         "SELECT count(*), sum(depth), sum(length(stack)), count(top_level), sum(tid) FROM rocpd_kernel_stacks"),
        ("rocpd_kernel_stacks: kernel time per top-level range",
         "SELECT top_level, count(*), sum(\"end\" - start) FROM rocpd_kernel_stacks GROUP BY top_level"),
        ("rocpd_idle_breakdown (default threshold)",
         "SELECT count(*), sum(idle_ns), sum(host_wait_ns), sum(kernel_wait_ns), sum(other_ns) FROM rocpd_idle_breakdown"),
        ("rocpd_gaps (for comparison)", "SELECT count(*), sum(duration) FROM rocpd_gaps"),
        ("rocpd_comm_overlap (view)", "SELECT count(*), sum(overlap_ns) FROM rocpd_comm_overlap"),
        # The why views (issue 11), each also against a scan of the columns it reads ("/ own"): ops, and for
        # those that find launches, the API columns of the launch calls.
        ("full scan of the columns rocpd_comm_overlap reads",
         "SELECT count(*), total(gpu), total(length(kind)), total(length(name)), total(\"end\" - start) FROM rocpd_ops"),
        ("rocpd_comm_overlap: every row", "SELECT count(*), total(overlap_ns), total(comm_ops) FROM rocpd_comm_overlap",
         "full scan of the columns rocpd_comm_overlap reads"),
        ("full scan of the columns rocpd_time_breakdown reads (ops, markers)",
         "SELECT (SELECT count(*) + total(gpu) + total(pid) + total(length(kind)) + total(length(name)) "
         "+ total(\"end\" - start) FROM rocpd_ops), (SELECT count(*) + total(pid) + total(tid) + total(length(name)) "
         "+ total(\"end\" - start) FROM rocpd_apis WHERE domain = 'marker')"),
        ("rocpd_time_breakdown: every row",
         "SELECT count(*), total(busy_ns), total(compute_ns), total(comm_ns), total(copy_ns), total(overlap_ns) "
         "FROM rocpd_time_breakdown", "full scan of the columns rocpd_time_breakdown reads (ops, markers)"),
        ("full scan of the columns rocpd_queue_depth reads (ops, apis)",
         "SELECT (SELECT count(*) + total(gpu) + total(queue) + total(stream) + total(\"end\" - start) + total(correlation_id) "
         "FROM rocpd_ops), (SELECT count(*) + total(correlation_id) + total(\"end\" - start) + total(api_id) FROM rocpd_apis)"),
        ("rocpd_queue_depth: every row", "SELECT count(*), total(depth), max(waiting), total(duration) FROM rocpd_queue_depth",
         "full scan of the columns rocpd_queue_depth reads (ops, apis)"),
        ("full scan of the columns rocpd_launch_stats reads (ops, apis)",
         "SELECT (SELECT count(*) + total(op_id) + total(correlation_id) + total(gpu) + total(queue) + total(stream) "
         "+ total(length(kind)) + total(length(name)) + total(\"end\" - start) FROM rocpd_ops), "
         "(SELECT count(*) + total(correlation_id) + total(\"end\" - start) + total(api_id) + total(pid) + total(tid) "
         "+ total(length(name)) FROM rocpd_apis)"),
        ("rocpd_launch_stats: every row",
         "SELECT count(*), total(cpu_ns), total(launch_delay_ns), total(short_op), total(length(api_name)) "
         "FROM rocpd_launch_stats", "full scan of the columns rocpd_launch_stats reads (ops, apis)"),
        ("rocpd_kernel_sequences: every row", "SELECT count(*), total(count), total(gpu_ns) FROM rocpd_kernel_sequences",
         "rocpd_kernel_stacks: every row"),
        ("rocpd_kernel_counters: every row", "SELECT count(*), total(n_counters), total(depth) FROM rocpd_kernel_counters_full",
         "rocpd_kernel_stacks: every row"),
        # What a user types first (issue 23: the three views within 3x of the full scan).
        ("rocpd_kernel_counters LIMIT 8", "SELECT * FROM rocpd_kernel_counters LIMIT 8"),
        ("rocpd_launch_latency: every row", "SELECT * FROM rocpd_launch_latency"),
        ("rocpd_kernel_sequences LIMIT 8", "SELECT * FROM rocpd_kernel_sequences LIMIT 8"),
    ]
    if args.only:
        wanted = {name for name, _, *own in cases if args.only in name}
        wanted |= {own[0] for name, _, *own in cases if name in wanted and own}
        cases = [cases[0]] + [c for c in cases[1:] if c[0] in wanted]
    # Each case is timed alternately with the full scan (scan, case, scan, case, ...), and its ratio is
    # to the best scan of those rounds: on a shared machine whose speed drifts over minutes, a scan
    # timed once at the start would be measured in other conditions than the late cases.
    scan_sql = cases[0][1]
    times = {}
    print(f"{'query':62} {'best s':>8} {'/ scan':>7} {'/ own':>7} {'scan s':>7}")
    for name, sql, *own in cases:
        best, scan = float("inf"), float("inf")
        for _ in range(args.repeat):
            if sql != scan_sql:
                scan = min(scan, best_of(lambda: con.execute(scan_sql).fetchall(), 1)[0])
            best = min(best, best_of(lambda: con.execute(sql).fetchall(), 1)[0])
        if sql == scan_sql:
            scan = best
        times[name] = best
        rel = f"{best / times[own[0]]:6.2f}x" if own else ""
        print(f"{name:62} {best:8.3f} {best / scan:6.2f}x {rel:>7} {scan:7.3f}", flush=True)


if __name__ == "__main__":
    main()
