#!/usr/bin/python3
"""Job-wide summaries (issue 10): the summary engine (rocpd_op_groups and the views over it,
rocpd_union('top'), the members' profile) against SQLite over ONE native table holding the same
canonical rows (db, gpu, kind, name, start, end, duration): what a user gets by merging first.
Ratios (native / ours, above 1 = we are faster) measured in the same run; the machine's noise
applies to both sides alike.

  bench_summaries.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen \
                     [--files 64] [--ops 100000] [--work /tmp/rocpd_bench] [--repeat 3]

With --files 1000 --ops 10000 it also gives the 1000-member figures (rocpd_open, first
rocpd_members, kernel summary, busy, utilization).
"""
import argparse
import os
import resource
import sqlite3
import subprocess
import sys
import time


def connect(ext, path=":memory:"):
    con = sqlite3.connect(path)
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def timed(fn, repeat):
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def generate(gen, out, files, ops):
    if os.path.exists(os.path.join(out, "truth.json")):
        return
    os.makedirs(out, exist_ok=True)
    subprocess.run([gen, "--out", out, "--procs", str(files), "--format", "rpd3", "--ops", str(ops), "--seed", "1"],
                   check=True, stdout=subprocess.DEVNULL)


# (label, our SQL, native SQL over table ops)
QUERIES = [
    ("kernel summary: name, count, sum, median, stddev",
     "SELECT name, instances, total_ns, med_ns, stddev_ns FROM rocpd_op_groups('name', 'kernel')",
     "SELECT name, count(*), sum(duration), median(duration), stddev(duration) FROM ops WHERE kind = 'kernel' "
     "GROUP BY name"),
    ("SELECT * FROM rocpd_kernel_summary",
     "SELECT * FROM rocpd_kernel_summary",
     "SELECT 100.0 * total_ns / sum(total_ns) OVER () AS time_pct, * FROM (SELECT name, sum(duration) AS total_ns, "
     "count(*), avg(duration), median(duration), min(duration), max(duration), stddev(duration) FROM ops "
     "WHERE kind = 'kernel' GROUP BY name) ORDER BY total_ns DESC, name"),
    ("SELECT * FROM rocpd_union('top')",
     "SELECT * FROM rocpd_union('top')",
     "SELECT db, name, count(*), sum(duration), avg(duration), min(duration), max(duration), stddev(duration) "
     "FROM ops GROUP BY db, name"),
    ("SELECT * FROM rocpd_busy",
     "SELECT * FROM rocpd_busy",
     "SELECT db, gpu, interval_union(start, \"end\"), count(*), sum(duration) FROM ops GROUP BY db, gpu"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--ops", type=int, default=100000)
    ap.add_argument("--work", default="/tmp/rocpd_bench")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-native", action="store_true", help="skip the merged-table baseline (1000-member runs)")
    args = ap.parse_args()

    job = os.path.join(args.work, f"job_{args.files}x{args.ops}")
    generate(args.gen, job, args.files, args.ops)
    files = sorted(f for f in os.listdir(job) if f.endswith(".rpd"))
    size = sum(os.path.getsize(os.path.join(job, f)) for f in files)
    print(f"data: {len(files)} rpd v3 files x {args.ops} ops = {len(files) * args.ops} ops, {size / 1e9:.2f} GB; "
          f"{os.cpu_count()} cores")

    con = connect(args.ext)
    t0 = time.perf_counter()
    con.execute("SELECT rocpd_open(?)", (os.path.join(job, "*.rpd"),))
    t_open = time.perf_counter() - t0
    t0 = time.perf_counter()
    con.execute("SELECT sum(ops) FROM rocpd_members").fetchone()
    t_profile = time.perf_counter() - t0
    print(f"rocpd_open of {len(files)} files: {t_open:.2f} s; first rocpd_members (profile pass): {t_profile:.2f} s")

    native = None
    if not args.no_native:
        merged = os.path.join(args.work, f"merged_canonical_{args.files}x{args.ops}.sqlite")
        if not os.path.exists(merged):
            con.execute("ATTACH ? AS m", (merged,))
            con.execute("CREATE TABLE m.ops AS SELECT db, gpu, kind, name, start, \"end\", duration FROM rocpd_ops")
            con.execute("DETACH m")
        native = connect(args.ext, merged)  # for median, stddev, interval_union

    print(f"{'query':55s} {'ours s':>8s} {'native s':>9s} {'ratio':>7s}")
    for label, ours_sql, native_sql in QUERIES:
        t_ours, r_ours = timed(lambda: con.execute(ours_sql).fetchall(), args.repeat)
        if native is None:
            print(f"{label:55s} {t_ours:8.2f}")
            continue
        t_nat, r_nat = timed(lambda: native.execute(native_sql).fetchall(), args.repeat)
        assert len(r_ours) == len(r_nat), (label, len(r_ours), len(r_nat))
        print(f"{label:55s} {t_ours:8.2f} {t_nat:9.2f} {t_nat / t_ours:6.1f}x")
    t_util, _ = timed(lambda: con.execute("SELECT * FROM rocpd_utilization(10000000)").fetchall(), args.repeat)
    print(f"{'SELECT * FROM rocpd_utilization(10000000)':55s} {t_util:8.2f}")
    # Peak memory of ours alone, in a child process: open, profile, every summary above.
    child = ("import sqlite3, sys\n"
             "con = sqlite3.connect(':memory:'); con.enable_load_extension(True); con.load_extension(sys.argv[1])\n"
             "con.execute('SELECT rocpd_open(?)', (sys.argv[2],)); con.execute('SELECT * FROM rocpd_members').fetchall()\n"
             "for q in sys.argv[3:]: con.execute(q).fetchall()\n")
    subprocess.run([sys.executable, "-c", child, args.ext, os.path.join(job, "*.rpd")] + [q[1] for q in QUERIES],
                   check=True)
    print(f"peak RSS of ours (open, profile, the summaries above; one process): "
          f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
