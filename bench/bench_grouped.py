#!/usr/bin/python3
"""Ad-hoc GROUP BY over the federated tables (issue 34; docs/pushdown.md, docs/federation.md
"Grouped scans"): a user's own aggregate query over rocpd_ops (or rocpd_apis) against SQLite over
ONE native table holding the same canonical rows (db, gpu, kind, name, start, end, duration; for the
API calls db, pid, tid, domain, name, start, end, duration, in a second file; what a user gets by
merging first). Our sides: "pushed" runs what rocpd_sql_rewrite(query) returns (the rewrite over
the per-member engine when the query's shape allows, else the query unchanged; the rewrite call is
timed too), as the CLI and the Python package do; "as written" runs the query itself (grouped
scans); "not grouped" with grouped scans switched off (ROCPD_GROUPED_SCANS=0: the plan before
them); "member queries" is the grouped scan with its members read through the canonical member
queries (ROCPD_GROUPED_BY_COLUMNS=0). The cases are timed in alternation, round after round, each
the best of its rounds ("pushed" and "as written" one after the other, each first in every other
round); ratios are within the same run (above 1 = pushed faster). For a query that
cannot be pushed, "pushed" runs the same text as "as written": their ratio is the run's noise, and
the rewrite call's own time (what the pushed path adds to such a query) is printed beside it, in ms
and as a share of the query's time.

  bench_grouped.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen \\
                   [--files 64] [--ops 100000] [--work /tmp/rocpd_bench] [--rounds 4] [--match TEXT]
"""
import argparse
import os
import sqlite3
import subprocess
import sys
import time

# (label, query, grouped by the scan, table: {t} is rocpd_<table> on our side, <table> natively)
CASES = [
    ("GROUP BY name: count, sum, median (kernels)",
     "SELECT name, count(*), sum(duration), median(duration) FROM {t} WHERE kind = 'kernel' GROUP BY name", True,
     "ops"),
    ("GROUP BY db, gpu, kind: count, sum",
     "SELECT db, gpu, kind, count(*), sum(duration) FROM {t} GROUP BY db, gpu, kind", True, "ops"),
    ("not grouped by the scan: GROUP BY lower(name)",
     "SELECT lower(name), count(*), sum(duration) FROM {t} WHERE kind = 'kernel' GROUP BY lower(name)", False,
     "ops"),
    ("regrouped: count(DISTINCT gpu) by name",
     "SELECT name, count(DISTINCT gpu), sum(duration) FROM {t} WHERE kind = 'kernel' GROUP BY name", True, "ops"),
    ("GROUP BY name: percentile 90, 99 (kernels)",
     "SELECT name, percentile(duration, 90), percentile(duration, 99) FROM {t} WHERE kind = 'kernel' GROUP BY name",
     True, "ops"),
    ("WHERE gpu = 0 GROUP BY name: count, median",
     "SELECT name, count(*), median(duration) FROM {t} WHERE gpu = 0 GROUP BY name", True, "ops"),
    ("WHERE gpu = 0 AND kernels GROUP BY name",
     "SELECT name, count(*), median(duration) FROM {t} WHERE gpu = 0 AND kind = 'kernel' GROUP BY name", True,
     "ops"),
    ("spans: GROUP BY db, gpu, kind: min(start)...",
     "SELECT db, gpu, kind, count(*), sum(duration), min(start), max(\"end\") FROM {t} GROUP BY db, gpu, kind", True,
     "ops"),
    ("API calls GROUP BY name: count, sum, median",
     "SELECT name, count(*), sum(duration), median(duration) FROM {t} GROUP BY name", True, "apis"),
]
SIDES = ("pushed", "ours", "ours, member queries", "ours, not grouped", "native")


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


def run_pushed(con, sql):
    os.environ["ROCPD_GROUPED_SCANS"] = "1"
    os.environ["ROCPD_GROUPED_BY_COLUMNS"] = "1"
    t0 = time.perf_counter()
    text = con.execute("SELECT rocpd_sql_rewrite(?)", (sql + " /* grouped */",)).fetchone()[0]
    t1 = time.perf_counter()
    rows = con.execute(text).fetchall()
    return time.perf_counter() - t0, rows, t1 - t0, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--ops", type=int, default=100000)
    ap.add_argument("--work", default="/tmp/rocpd_bench")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--match", default="", help="only the cases whose label contains this text")
    args = ap.parse_args()
    cases = [c for c in CASES if args.match in c[0]]

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
    merged_apis = os.path.join(args.work, f"merged_apis_{args.files}x{args.ops}.sqlite")
    if not os.path.exists(merged_apis):
        con.execute("ATTACH ? AS m", (merged_apis,))
        con.execute("CREATE TABLE m.apis AS SELECT db, pid, tid, domain, name, start, \"end\", duration FROM rocpd_apis")
        con.execute("DETACH m")
    native = connect(args.ext, merged)  # median() is ours on both sides
    native.execute("ATTACH ? AS a", (f"file:{merged_apis}?mode=ro",))
    ops = native.execute("SELECT count(*) FROM ops").fetchone()[0]
    apis = native.execute("SELECT count(*) FROM apis").fetchone()[0]
    print(f"data: {len(files)} rpd v3 files x {args.ops} ops = {ops} ops and {apis} API calls, {size / 1e9:.2f} GB; "
          f"merged native tables {os.path.getsize(merged) / 1e9:.2f} GB (ops), {os.path.getsize(merged_apis) / 1e9:.2f} "
          f"GB (API calls); {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    con.execute("SELECT count(*) FROM rocpd_ops").fetchone()  # members' connections open, files cached

    best, rewrite_s, unchanged = {}, {}, {}
    for label, sql, _, table in cases:
        verdict = con.execute("SELECT rocpd_sql_pushdown(?)", (sql.format(t="rocpd_" + table),)).fetchone()[0]
        print(f"{label}: {verdict}")
    for round_no in range(args.rounds):
        for label, sql, pushed, table in cases:
            # "pushed" and "as written" run next to each other, each first in every other round: the
            # first run after another case's native query pays for the caches that query took.
            pair = ("pushed", "ours") if round_no % 2 == 0 else ("ours", "pushed")
            for side in pair + SIDES[2:]:
                if side == "ours, member queries" and not pushed:
                    continue  # the same plan as "ours"
                if side == "pushed":
                    t, rows, rw, text = run_pushed(con, sql.format(t="rocpd_" + table))
                    rewrite_s[label] = min(rw, rewrite_s.get(label, rw))
                    unchanged[label] = text == sql.format(t="rocpd_" + table) + " /* grouped */"
                elif side == "native":
                    t0 = time.perf_counter()
                    rows = native.execute(sql.format(t=table)).fetchall()
                    t = time.perf_counter() - t0
                else:
                    t, rows = run(con, sql.format(t="rocpd_" + table), side != "ours, not grouped",
                                  side != "ours, member queries")
                key = (label, side)
                prev = best.get(key)
                best[key] = (min(t, prev[0]) if prev else t, sorted(rows, key=repr))
    os.environ.pop("ROCPD_GROUPED_SCANS", None)
    os.environ.pop("ROCPD_GROUPED_BY_COLUMNS", None)
    print(f"{'query':48s} {'pushed s':>9s} {'as written s':>13s} {'member queries s':>17s} {'not grouped s':>14s} "
          f"{'native s':>9s} {'native/pushed':>14s} {'as written/pushed':>18s} {'rewrite call ms':>16s} "
          f"{'rewrite call %':>15s}")
    for label, _, pushed, _ in cases:
        pu, ours, nog, nat = (best[(label, s)] for s in ("pushed", "ours", "ours, not grouped", "native"))
        mq = best.get((label, "ours, member queries"), ours)
        assert pu[1] == ours[1] == nog[1] == nat[1] == mq[1], label
        shown = f"{mq[0]:17.2f}" if pushed else f"{'-':>17s}"
        print(f"{label:48s} {pu[0]:9.2f} {ours[0]:13.2f} {shown} {nog[0]:14.2f} {nat[0]:9.2f} {nat[0] / pu[0]:13.2f}x "
              f"{ours[0] / pu[0]:17.2f}x {rewrite_s[label] * 1e3:16.2f} {100 * rewrite_s[label] / ours[0]:14.3f}%")
    # What the issue asks to see (issue 34): pushed queries >= 3x the merged native table; a query the
    # rewrite does not push within 1.05x of today. Such a query runs the very statement typed (the
    # rewrite returns it unchanged): the pushed path adds the rewrite call, nothing else; the
    # measured ratio of two runs of one statement is this machine's noise.
    print("verdicts:")
    for label, _, _, _ in cases:
        pu, ours, nat = (best[(label, s)][0] for s in ("pushed", "ours", "native"))
        if unchanged[label]:
            print(f"  {label}: not pushed, the same statement runs; the rewrite call adds "
                  f"{100 * rewrite_s[label] / ours:.3f} % ({(ours + rewrite_s[label]) / ours:.4f}x today; measured "
                  f"{pu / ours:.2f}x)")
        else:
            print(f"  {label}: pushed, {nat / pu:.2f}x the merged native table ({'>=' if nat / pu >= 3 else '<'} 3x)")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
