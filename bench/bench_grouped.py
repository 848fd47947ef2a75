#!/usr/bin/python3
"""Ad-hoc GROUP BY over the federated tables (issue 34, docs/federation.md "Grouped scans"): a
user's own aggregate query over rocpd_ops against SQLite over ONE native table holding the same
canonical rows (db, gpu, kind, name, start, end, duration; what a user gets by merging first), and
against our own table with grouped scans switched off (ROCPD_GROUPED_SCANS=0: the plan of the
previous version). The cases are timed in alternation, round after round, each the best of its
rounds; ratios are within the same run (above 1 = ours faster). "member queries" is our grouped
scan with its members read through the canonical member queries (ROCPD_GROUPED_BY_COLUMNS=0: names
joined per row, as a plain scan reads them) instead of by name key (docs/federation.md).

  bench_grouped.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen \\
                   [--files 64] [--ops 100000] [--work /tmp/rocpd_bench] [--rounds 3]
"""
import argparse
import os
import sqlite3
import subprocess
import sys
import time

CASES = [
    ("GROUP BY name: count, sum, median (kernels)",
     "SELECT name, count(*), sum(duration), median(duration) FROM {t} WHERE kind = 'kernel' GROUP BY name", True),
    ("GROUP BY db, gpu, kind: count, sum",
     "SELECT db, gpu, kind, count(*), sum(duration) FROM {t} GROUP BY db, gpu, kind", True),
    ("not grouped by the scan: GROUP BY lower(name)",
     "SELECT lower(name), count(*), sum(duration) FROM {t} WHERE kind = 'kernel' GROUP BY lower(name)", False),
]
SIDES = ("ours", "ours, member queries", "ours, not grouped", "native")


def connect(ext, path=":memory:"):
    con = sqlite3.connect(path)
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def generate(gen, out, files, ops):
    if os.path.exists(os.path.join(out, "truth.json")):
        return
    os.makedirs(out, exist_ok=True)
    subprocess.run([gen, "--out", out, "--procs", str(files), "--format", "rpd3", "--ops", str(ops), "--seed", "1"],
                   check=True, stdout=subprocess.DEVNULL)


def run(con, sql, grouped, by_columns=True):
    # The switch is read when a statement is planned: a distinct text per setting, so that the
    # interpreter's statement cache never hands back a plan made under the other.
    os.environ["ROCPD_GROUPED_SCANS"] = "1" if grouped else "0"
    os.environ["ROCPD_GROUPED_BY_COLUMNS"] = "1" if by_columns else "0"  # read when the scan starts
    t0 = time.perf_counter()
    rows = con.execute(sql + (" /* grouped */" if grouped else " /* not grouped */")).fetchall()
    return time.perf_counter() - t0, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--ops", type=int, default=100000)
    ap.add_argument("--work", default="/tmp/rocpd_bench")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    job = os.path.join(args.work, f"job_{args.files}x{args.ops}")
    generate(args.gen, job, args.files, args.ops)
    files = sorted(f for f in os.listdir(job) if f.endswith(".rpd"))
    size = sum(os.path.getsize(os.path.join(job, f)) for f in files)
    con = connect(args.ext)
    con.execute("SELECT rocpd_open(?)", (os.path.join(job, "*.rpd"),))
    merged = os.path.join(args.work, f"merged_canonical_{args.files}x{args.ops}.sqlite")
    if not os.path.exists(merged):  # as bench_summaries.py makes it
        con.execute("ATTACH ? AS m", (merged,))
        con.execute("CREATE TABLE m.ops AS SELECT db, gpu, kind, name, start, \"end\", duration FROM rocpd_ops")
        con.execute("DETACH m")
    native = connect(args.ext, merged)  # median() is ours on both sides
    ops = native.execute("SELECT count(*) FROM ops").fetchone()[0]
    print(f"data: {len(files)} rpd v3 files x {args.ops} ops = {ops} ops, {size / 1e9:.2f} GB; merged native table "
          f"{os.path.getsize(merged) / 1e9:.2f} GB; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    con.execute("SELECT count(*) FROM rocpd_ops").fetchone()  # members' connections open, files cached

    best = {}
    for _ in range(args.rounds):
        for label, sql, pushed in CASES:
            for side in SIDES:
                if side == "ours, member queries" and not pushed:
                    continue  # the same plan as "ours"
                if side == "native":
                    t0 = time.perf_counter()
                    rows = native.execute(sql.format(t="ops")).fetchall()
                    t = time.perf_counter() - t0
                else:
                    t, rows = run(con, sql.format(t="rocpd_ops"), side != "ours, not grouped",
                                  side != "ours, member queries")
                key = (label, side)
                prev = best.get(key)
                best[key] = (min(t, prev[0]) if prev else t, sorted(rows, key=repr))
    os.environ.pop("ROCPD_GROUPED_SCANS", None)
    os.environ.pop("ROCPD_GROUPED_BY_COLUMNS", None)
    print(f"{'query':48s} {'ours s':>8s} {'member queries s':>17s} {'not grouped s':>14s} {'native s':>9s} "
          f"{'native/ours':>12s} {'not grouped/ours':>17s}")
    for label, _, pushed in CASES:
        ours, nog, nat = (best[(label, s)] for s in ("ours", "ours, not grouped", "native"))
        mq = best.get((label, "ours, member queries"), ours)
        assert ours[1] == nog[1] == nat[1] == mq[1], label
        shown = f"{mq[0]:17.2f}" if pushed else f"{'-':>17s}"
        print(f"{label:48s} {ours[0]:8.2f} {shown} {nog[0]:14.2f} {nat[0]:9.2f} {nat[0] / ours[0]:11.2f}x "
              f"{nog[0] / ours[0]:16.2f}x")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
