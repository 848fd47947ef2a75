#!/usr/bin/python3
"""Interval analytics benchmark (not run by ctest; `cmake --build BUILD --target bench_intervals`).

A. interval_union over 800k ops in 8 (db, gpu) partitions (8 generated files, 1 gpu each, the rows
   copied into one plain table) against the pure-SQL gaps-and-islands method with window functions
   over the same rows.
B. rocpd_utilization with 1000 buckets over 64 generated files x 100k ops (mixed formats, 4 gpus
   each) against a pure-SQL union (gaps and islands) + clip-and-sum into the same 1000 buckets,
   both reading the federated rocpd_ops.
Each pair must give the same answers; the table shows best-of-N wall times and the ratio.
Run by Debian's /usr/bin/python3 (its sqlite3 module can load extensions).

usage: bench_intervals.py EXT GEN DATA_DIR [--quick]
"""
import os
import sqlite3
import subprocess
import sys
import time

GAPS_AND_ISLANDS_UNION = """
WITH o AS (SELECT db, gpu, start, "end" FROM {src} WHERE "end" > start),
m AS (SELECT db, gpu, start, "end",
             max("end") OVER (PARTITION BY db, gpu ORDER BY start, "end"
                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM o),
f AS (SELECT db, gpu, start, "end", CASE WHEN prev_end IS NULL OR start > prev_end THEN 1 ELSE 0 END AS new_island
      FROM m),
i AS (SELECT db, gpu, start, "end",
             sum(new_island) OVER (PARTITION BY db, gpu ORDER BY start, "end" ROWS UNBOUNDED PRECEDING) AS island
      FROM f)
SELECT db, gpu, min(start) AS s, max("end") AS e FROM i GROUP BY db, gpu, island
"""

UNION_BASELINE = f"SELECT db, gpu, sum(e - s) FROM ({GAPS_AND_ISLANDS_UNION.format(src='ops')}) GROUP BY db, gpu ORDER BY 1, 2"
UNION_EXTENSION = 'SELECT db, gpu, interval_union(start, "end") FROM ops GROUP BY db, gpu ORDER BY 1, 2'

# Clip-and-sum of the merged intervals into the 1000 buckets of the job range (the same grid
# rocpd_utilization uses: origin = first timestamp, width = ceil(span / 1000), last bucket cut at hi).
CLIP_AND_SUM_BASELINE = f"""
WITH job AS (SELECT min(first_ns) AS lo, max(last_ns) AS hi FROM rocpd_members),
grid AS (SELECT lo, hi, (hi - lo + 999) / 1000 AS width FROM job),
islands AS ({GAPS_AND_ISLANDS_UNION.format(src='rocpd_ops')})
SELECT db, gpu, k, sum(min(e, lo + (k + 1) * width, hi) - max(s, lo + k * width)) AS busy
FROM islands, grid JOIN buckets ON k BETWEEN (s - lo) / width AND (e - 1 - lo) / width
GROUP BY db, gpu, k ORDER BY 1, 2, 3
"""
UTILIZATION_EXTENSION = "SELECT db, gpu, bucket, busy_ns FROM rocpd_utilization WHERE buckets = 1000 AND busy_ns > 0 ORDER BY 1, 2, 3"


def connect(ext):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def generate(gen, out, procs, ops, gpus):
    if os.path.exists(os.path.join(out, "truth.json")):
        return
    print(f"generating {procs} files x {ops} ops into {out} ...", flush=True)
    subprocess.run([gen, "--out", out, "--procs", str(procs), "--format", "mixed", "--ops", str(ops),
                    "--seed", "2026", "--gpus", str(gpus)], check=True, stdout=subprocess.DEVNULL)


def best_of(con, sql, runs):
    best, rows = None, None
    for _ in range(runs):
        t0 = time.perf_counter()
        rows = con.execute(sql).fetchall()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, rows


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    ext, gen, data = sys.argv[1:4]
    quick = "--quick" in sys.argv  # a smaller run to check the script itself
    os.makedirs(data, exist_ok=True)
    runs = 1 if quick else 3
    table = []

    # A: 8 partitions x 100k ops.
    a_ops = 10_000 if quick else 100_000
    a_dir = os.path.join(data, f"union_8x{a_ops}")
    generate(gen, a_dir, 8, a_ops, 1)
    con = connect(ext)
    con.execute("SELECT rocpd_open(?)", (a_dir,))
    con.execute('CREATE TEMP TABLE ops AS SELECT db, gpu, start, "end" FROM rocpd_ops')
    n, parts = con.execute("SELECT count(*), count(DISTINCT db || '/' || gpu) FROM ops").fetchone()
    # Without an index both queries sort the rows; with the covering index a user would create for
    # this analysis, both read them in (db, gpu, start) order (the window query still sorts later steps).
    for label in ("no index", "index on (db, gpu, start, end)"):
        if label != "no index":
            con.execute('CREATE INDEX ops_partition ON ops(db, gpu, start, "end")')
        t_base, base = best_of(con, UNION_BASELINE, runs)
        t_ext, ours = best_of(con, UNION_EXTENSION, runs)
        if base != ours:
            print("MISMATCH in A:", base[:3], ours[:3])
            return 1
        table.append((f"A interval_union, {n} ops, {parts} (db, gpu), {label}", t_base, t_ext))
    con.close()

    # B: 64 files x 100k ops, 1000 buckets.
    b_files, b_ops = (8, 10_000) if quick else (64, 100_000)
    b_dir = os.path.join(data, f"util_{b_files}x{b_ops}")
    generate(gen, b_dir, b_files, b_ops, 4)
    con = connect(ext)
    con.execute("SELECT rocpd_open(?)", (b_dir,))
    con.execute("CREATE TEMP TABLE buckets(k INTEGER PRIMARY KEY)")
    con.executemany("INSERT INTO buckets VALUES (?)", [(k,) for k in range(1000)])
    n, parts = con.execute("SELECT sum(ops), (SELECT count(*) FROM rocpd_busy) FROM rocpd_members").fetchone()
    t_ext, ours = best_of(con, UTILIZATION_EXTENSION, runs)
    t_base, base = best_of(con, CLIP_AND_SUM_BASELINE, 1)
    if base != ours:
        diff = [(a, b) for a, b in zip(base, ours) if a != b][:3]
        print("MISMATCH in B:", len(base), len(ours), diff)
        return 1
    t_read, _ = best_of(con, 'SELECT count(*), max(start), max("end") FROM rocpd_ops', runs)
    table.append((f"B rocpd_utilization 1000 buckets, {b_files} files, {n} ops, {parts} (db, gpu)", t_base, t_ext))
    con.close()

    print()
    print(f"{'benchmark':<72} {'pure SQL s':>10} {'extension s':>11} {'ratio':>7}")
    for name, base_s, ext_s in table:
        print(f"{name:<72} {base_s:>10.3f} {ext_s:>11.3f} {base_s / ext_s:>6.1f}x")
    print(f"(B: reading every op of rocpd_ops once, no analysis, takes {t_read:.3f} s)")
    print("same answers: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
