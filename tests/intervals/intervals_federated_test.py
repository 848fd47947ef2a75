"""Interval analytics over real federated traces: the generator's ground truth, the published
matmul numbers, windows, bucket alignment and constraint pushdown (run by /usr/bin/python3)."""
import json
import os
import re
import sqlite3
import sys
import unittest

EXT = os.environ.get("ROCPD_EXT", "")
SETS = os.path.join(os.environ.get("ROCPD_FIXTURES", ""), "sets")
MATMUL = os.path.join(os.environ.get("ROCPD_SHARED_DATA", ""), "matmul_result.rpd")
SET_NAMES = ["same_rpd2", "same_rpd3", "same_rocpd", "mixed8", "sessions"]


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.enable_load_extension(False)
    return con


def open_set(name):
    con = connect()
    opened = con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, name),)).fetchone()[0]
    with open(os.path.join(SETS, name, "truth.json")) as f:
        truth = json.load(f)
    assert opened == len(truth["files"]), (name, opened)
    return con, truth


def truth_gpus(truth):
    """{(db, gpu): truth row} over every file of a set."""
    return {(f["db"], g["gpu"]): g for f in truth["files"] for g in f["gpus"]}


class GroundTruth(unittest.TestCase):
    def test_busy_matches_generator_truth(self):
        for name in SET_NAMES:
            con, truth = open_set(name)
            expected = truth_gpus(truth)
            rows = con.execute("SELECT db, gpu, busy_ns, sum_ns, overlap_ns, span_ns, busy, ops FROM rocpd_busy").fetchall()
            self.assertEqual(len(rows), len(expected), name)
            for db, gpu, busy_ns, sum_ns, overlap_ns, span_ns, busy, ops in rows:
                t = expected[(db, gpu)]
                with self.subTest(set=name, db=db, gpu=gpu):
                    self.assertEqual(busy_ns, t["busy_ns"])
                    self.assertEqual(sum_ns, t["sum_ns"])
                    self.assertEqual(overlap_ns, t["sum_ns"] - t["busy_ns"])
                    self.assertEqual(span_ns, t["last_ns"] - t["first_ns"])
                    self.assertEqual(ops, t["ops"])
                    self.assertTrue(0.0 <= busy <= 1.0)
            # The generator makes ops overlap: the upstream-style sum must visibly over-count.
            self.assertGreater(sum(r[4] for r in rows), 0, name)

    def test_busy_intervals_and_gaps_match_truth(self):
        for name in SET_NAMES:
            con, truth = open_set(name)
            expected = truth_gpus(truth)
            # Zero-length ops extend the truth's first/last but cover no time.
            covered = {(db, gpu): (first, last) for db, gpu, first, last in con.execute(
                'SELECT db, gpu, min(start), max("end") FROM rocpd_ops WHERE "end" > start GROUP BY 1, 2')}
            busy = {(db, gpu): (n, total, first, last) for db, gpu, n, total, first, last in con.execute(
                'SELECT db, gpu, count(*), sum(duration), min(start), max("end") FROM rocpd_busy_intervals GROUP BY 1, 2')}
            gaps = {(db, gpu): (n, total) for db, gpu, n, total in con.execute(
                "SELECT db, gpu, count(*), sum(duration) FROM rocpd_gaps GROUP BY 1, 2")}
            self.assertEqual(set(busy), set(expected), name)
            for key, t in expected.items():
                n, total, first, last = busy[key]
                with self.subTest(set=name, key=key):
                    self.assertEqual(n, t["busy_intervals"])
                    self.assertEqual(total, t["busy_ns"])
                    self.assertEqual((first, last), covered[key])
                    gap_n, gap_total = gaps.get(key, (0, 0))
                    self.assertEqual(gap_n, t["busy_intervals"] - 1)
                    self.assertEqual(gap_total + total, last - first)
            # Intervals are disjoint, not touching, sorted, and gaps sit exactly between them.
            bad = con.execute("""
                SELECT count(*) FROM (SELECT db, gpu, start, "end",
                                             lag("end") OVER (PARTITION BY db, gpu ORDER BY start) AS prev_end
                                      FROM rocpd_busy_intervals) WHERE prev_end >= start OR "end" <= start""").fetchone()[0]
            self.assertEqual(bad, 0, name)
            con.execute("CREATE TEMP TABLE b AS SELECT * FROM rocpd_busy_intervals")
            con.execute('CREATE INDEX b_end ON b(db, gpu, "end")')
            con.execute("CREATE INDEX b_start ON b(db, gpu, start)")
            unmatched = con.execute("""
                SELECT count(*) FROM rocpd_gaps g WHERE NOT EXISTS (
                  SELECT 1 FROM b WHERE b.db = g.db AND b.gpu = g.gpu AND b."end" = g.start)
                  OR NOT EXISTS (
                  SELECT 1 FROM b WHERE b.db = g.db AND b.gpu = g.gpu AND b.start = g."end")""").fetchone()[0]
            self.assertEqual(unmatched, 0, name)

    def test_utilization_sums_to_busy_and_is_aligned(self):
        for name in SET_NAMES:
            con, truth = open_set(name)
            expected = truth_gpus(truth)
            job_first = con.execute("SELECT min(first_ns) FROM rocpd_members").fetchone()[0]
            for query, args in [("SELECT * FROM rocpd_utilization WHERE buckets = ?", (30,)),
                                ("SELECT * FROM rocpd_utilization WHERE buckets = ?", (1000,)),
                                ("SELECT * FROM rocpd_utilization(?)", (1_000_000,)),
                                ("SELECT * FROM rocpd_utilization(?)", (77_777,))]:
                with self.subTest(set=name, query=query, args=args):
                    rows = con.execute(
                        f"SELECT db, gpu, sum(busy_ns), min(utilization), max(utilization), count(*), "
                        f"count(DISTINCT bucket_start), min(bucket_start) FROM ({query}) GROUP BY 1, 2", args).fetchall()
                    self.assertEqual({(r[0], r[1]) for r in rows}, set(expected))
                    counts = {r[5] for r in rows}
                    self.assertEqual(len(counts), 1, "every gpu of the job gets the same buckets")
                    for db, gpu, total, lo, hi, n, distinct, first in rows:
                        self.assertEqual(total, expected[(db, gpu)]["busy_ns"])
                        self.assertTrue(0.0 <= lo <= hi <= 1.0, (lo, hi))
                        self.assertEqual(n, distinct)
                        self.assertEqual(first, job_first, "buckets start at the job's first timestamp")
                    if "buckets" in query:
                        self.assertEqual(counts, {args[0]})
                    # Aligned: one bucket index means one time range in every member.
                    misaligned = con.execute(
                        f"SELECT count(*) FROM (SELECT bucket FROM ({query}) GROUP BY bucket "
                        f"HAVING count(DISTINCT bucket_start) > 1 OR count(DISTINCT bucket_end) > 1)", args).fetchone()[0]
                    self.assertEqual(misaligned, 0)
            # Ranks compare bucket by bucket: a self-join on the bucket index across members.
            pairs = con.execute("""
                WITH u AS (SELECT * FROM rocpd_utilization WHERE buckets = 30)
                SELECT count(*) FROM u a JOIN u b ON a.bucket = b.bucket AND a.db < b.db AND a.gpu = b.gpu""").fetchone()[0]
            if len(truth["files"]) > 1:
                self.assertGreater(pairs, 0)

    def test_bucket_width_and_explicit_window(self):
        con, truth = open_set("mixed8")
        first, last = con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()
        lo, hi = first + (last - first) // 4, first + (last - first) // 2 + 12345
        width = 100_003
        rows = con.execute("SELECT db, gpu, bucket, bucket_start, bucket_end, busy_ns, utilization, bucket_ns, lo, hi, "
                           "buckets FROM rocpd_utilization(?, ?, ?)", (width, lo, hi)).fetchall()
        self.assertTrue(rows)
        n = -(-(hi - lo) // width)
        for db, gpu, k, b0, b1, busy, util, w, l, h, count in rows:
            self.assertEqual((w, l, h, count), (width, lo, hi, n))
            self.assertEqual(b0, lo + k * width)
            self.assertEqual(b1, min(lo + (k + 1) * width, hi))
            self.assertAlmostEqual(util, busy / (b1 - b0))
        clipped = dict(((db, gpu), u) for db, gpu, u in con.execute(
            'SELECT db, gpu, interval_union(start, "end", ?, ?) FROM rocpd_ops GROUP BY 1, 2', (lo, hi)))
        sums = {}
        for db, gpu, *_rest in rows:
            sums.setdefault((db, gpu), 0)
        for db, gpu, k, b0, b1, busy, *_ in rows:
            sums[(db, gpu)] += busy
        for key, total in sums.items():
            self.assertEqual(total, clipped[key], key)

    def test_lo_hi_clip_busy_intervals_and_gaps(self):
        con, truth = open_set("same_rocpd")
        for (db, gpu), t in list(truth_gpus(truth).items())[:6]:
            span = t["last_ns"] - t["first_ns"]
            t1, t2 = t["first_ns"] + span // 3, t["first_ns"] + 2 * span // 3
            union = con.execute('SELECT interval_union(start, "end", ?, ?) FROM rocpd_ops WHERE db = ? AND gpu = ?',
                                (t1, t2, db, gpu)).fetchone()[0]
            with self.subTest(db=db, gpu=gpu):
                rows = con.execute('SELECT start, "end", duration FROM rocpd_busy_intervals(?, ?) '
                                   'WHERE db = ? AND gpu = ? ORDER BY start', (t1, t2, db, gpu)).fetchall()
                self.assertEqual(sum(r[2] for r in rows), union)
                self.assertTrue(all(t1 <= s < e <= t2 for s, e, _ in rows))
                gaps = con.execute('SELECT sum(duration), min(start), max("end") FROM rocpd_gaps '
                                   'WHERE lo = ? AND hi = ? AND db = ? AND gpu = ?', (t1, t2, db, gpu)).fetchone()
                self.assertEqual(gaps[0] + union, rows[-1][1] - rows[0][0], "gaps fill the holes between busy pieces")
                # Whole timeline = window before t1 + window from t1.
                before = con.execute('SELECT total(duration) FROM rocpd_busy_intervals(NULL, ?) WHERE db = ? AND gpu = ?',
                                     (t1, db, gpu)).fetchone()[0]
                after = con.execute('SELECT total(duration) FROM rocpd_busy_intervals(?) WHERE db = ? AND gpu = ?',
                                    (t1, db, gpu)).fetchone()[0]
                self.assertEqual(before + after, t["busy_ns"])

    def test_start_end_constraints_filter_like_a_plain_table(self):
        # Brute force: merge each gpu's ops in Python, then filter the merged intervals.
        con, truth = open_set("mixed8")
        ops = {}
        for db, gpu, s, e in con.execute('SELECT db, gpu, start, "end" FROM rocpd_ops'):
            if s is not None and e is not None and e > s:
                ops.setdefault((db, gpu), []).append((s, e))
        merged = {}
        for key, ivs in ops.items():
            out = []
            for s, e in sorted(ivs):
                if out and s <= out[-1][1]:
                    out[-1][1] = max(out[-1][1], e)
                else:
                    out.append([s, e])
            merged[key] = [tuple(i) for i in out]
        gaps = {k: [(a[1], b[0]) for a, b in zip(v, v[1:])] for k, v in merged.items()}
        (db, gpu), ivs = sorted(merged.items())[3]
        t1 = ivs[len(ivs) // 3][0] - 1
        t2 = ivs[2 * len(ivs) // 3][1] + 1
        for table, expected in (("rocpd_busy_intervals", merged), ("rocpd_gaps", gaps)):
            for where, keep in (("start >= ?1", lambda s, e: s >= t1), ("start > ?1", lambda s, e: s > t1),
                                ('"end" <= ?2', lambda s, e: e <= t2), ('"end" < ?2', lambda s, e: e < t2),
                                ('start >= ?1 AND "end" <= ?2', lambda s, e: s >= t1 and e <= t2),
                                ('"end" > ?1 AND start < ?2', lambda s, e: e > t1 and s < t2),
                                ("start = ?3", lambda s, e: s == expected[(db, gpu)][1][0])):
                with self.subTest(table=table, where=where):
                    got = con.execute(f'SELECT start, "end" FROM {table} WHERE db = ?4 AND gpu = ?5 AND {where} '
                                      'ORDER BY start', (t1, t2, expected[(db, gpu)][1][0], db, gpu)).fetchall()
                    self.assertEqual(got, [iv for iv in expected[(db, gpu)] if keep(*iv)])
                    self.assertTrue(got)

    def test_constraints_are_pushed_down(self):
        con, _ = open_set("mixed8")
        def plan(sql):
            return " ".join(r[3] for r in con.execute("EXPLAIN QUERY PLAN " + sql))
        def index(sql):  # (idxNum, sorted idxStr codes); the code order follows SQLite's constraint order
            m = re.search(r"VIRTUAL TABLE INDEX (\d+):(\w*)", plan(sql))
            return int(m.group(1)), "".join(sorted(m.group(2)))
        # Bounds on start/end are SQLite's to apply: rowids are positions, which must not depend
        # on what a scan reads (ops_window.h).
        self.assertEqual(index("SELECT * FROM rocpd_busy_intervals WHERE db = 'rank1' AND gpu = 2 AND \"end\" > 5 AND start < 9"),
                         (1 | 2, "DG"))
        self.assertEqual(index("SELECT * FROM rocpd_gaps WHERE db = 'rank1' AND gpu = 2 AND start >= 3 AND \"end\" <= 7"),
                         (1 | 2, "DG"))
        self.assertEqual(index("SELECT * FROM rocpd_busy_intervals(5, 9) WHERE db = 'x'"), (1 | 32 | 64, "DHL"))
        # db under another collation is not a member selector: SQLite compares it.
        self.assertEqual(index("SELECT * FROM rocpd_busy_intervals WHERE db = 'X' COLLATE NOCASE"), (0, ""))
        self.assertEqual(index("SELECT * FROM rocpd_utilization(1000, 5, 900) WHERE db = 'x'"), (1 | 16 | 32 | 64, "DHLW"))
        self.assertEqual(index("SELECT * FROM rocpd_utilization WHERE buckets = 30 AND gpu = 1"), (2 | 128, "GN"))
        # Arguments taken from another table: only plans that bind them are accepted.
        joined = con.execute("SELECT count(*), sum(u.busy_ns) FROM (SELECT 30 AS n UNION ALL SELECT 7) AS t "
                             "JOIN rocpd_utilization AS u ON u.buckets = t.n").fetchone()
        direct = con.execute("SELECT (SELECT count(*) FROM rocpd_utilization WHERE buckets = 30) + "
                             "(SELECT count(*) FROM rocpd_utilization WHERE buckets = 7), "
                             "2 * (SELECT sum(busy_ns) FROM rocpd_busy)").fetchone()
        self.assertEqual(joined, direct)
        # A pushed db / gpu gives the same rows as filtering everything.
        a = con.execute("SELECT * FROM rocpd_busy_intervals WHERE db = 'rank3' AND gpu = 1").fetchall()
        b = [r for r in con.execute("SELECT * FROM rocpd_busy_intervals") if r[0] == "rank3" and r[1] == 1]
        self.assertEqual(a, b)
        self.assertTrue(a)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_busy_intervals WHERE db = 'nope'").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_busy_intervals WHERE gpu = NULL").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_gaps WHERE db = 'rank1' AND db = 'rank2'").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_utilization(1000000) WHERE gpu = 1.5").fetchone()[0], 0)

    def test_check_view_counts_empty_ops(self):
        con, truth = open_set("mixed8")
        rows = {r[0]: r[1:] for r in con.execute("SELECT db, ops, null_bounds, negative, zero_length FROM rocpd_check")}
        for f in truth["files"]:
            ops, nulls, negative, zero = rows[f["db"]]
            self.assertEqual(ops, f["ops"])
            self.assertEqual(nulls, 0)
            self.assertEqual(negative, 0)
            zero_expected = con.execute('SELECT count(*) FROM rocpd_ops WHERE db = ? AND "end" = start', (f["db"],)).fetchone()[0]
            self.assertEqual(zero, zero_expected)


class PublishedMatmul(unittest.TestCase):
    def test_busy_equals_published_gpu_time(self):
        if not os.path.exists(MATMUL):
            self.skipTest(f"{MATMUL} is absent (public data read in place from ../shared/data)")
        con = connect()
        con.execute("SELECT rocpd_open(?)", (MATMUL,))
        rows = con.execute("SELECT gpu, busy_ns, sum_ns, overlap_ns, ops FROM rocpd_busy").fetchall()
        self.assertEqual(rows, [(2, 183918056, 183918056, 0, 85)])
        intervals = con.execute("SELECT count(*), sum(duration) FROM rocpd_busy_intervals").fetchone()
        self.assertEqual(intervals[1], 183918056)
        util = con.execute("SELECT sum(busy_ns), max(utilization) FROM rocpd_utilization WHERE buckets = 30").fetchone()
        self.assertEqual(util[0], 183918056)
        self.assertLessEqual(util[1], 1.0)


if __name__ == "__main__":
    unittest.main()
