"""rocpd_stats_state / rocpd_stats_merge / rocpd_stats_get against brute force in Python.

Expected values are computed here, independently of the extension: counts, exact integer sums
(Python ints), math.fsum, min/max with their types, statistics.stdev (exact fractions), and the
percentile definition of docs/stats.md (Fraction oracle for integers, the same double formula for
reals). Per-group states merged must give the whole set's figures; quantiles are exact (bit for bit)
up to 4096 values and within the documented bound of docs/states.md beyond. Also: NULLs, types,
error texts, the documented byte layout, and a job over the generated fixture set mixed8."""
import math
import os
import random
import sqlite3
import statistics
import struct
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main  # noqa: E402

ALPHA = 0.005          # docs/states.md: relative accuracy of a sketch answer
EXACT_LIMIT = 4096     # docs/states.md: values kept exactly
I64_MIN, I64_MAX = -2**63, 2**63 - 1
P_TEXTS = ["0", "0.1", "1", "5", "10", "12.5", "25", "33.3", "50", "66.7", "75", "90", "95", "99", "99.9", "100"]


def rank(n, p):
    """k = floor(h), f = h - k for h = (n - 1) * p / 100, p the exact value of the double."""
    h = (n - 1) * Fraction(p) / 100
    k = math.floor(h)
    return k, h - k


def percentile(values, p):
    """percentile(x, p) of docs/stats.md: INTEGER results exact, REAL as percentile_select computes."""
    n = len(values)
    k, frac = rank(n, p)
    if all(isinstance(v, int) for v in values):
        xs = sorted(values)
        if frac == 0:
            return xs[k]
        v = xs[k] + frac * (xs[k + 1] - xs[k])
        return v.numerator if v.denominator == 1 else float(v)
    xs = sorted(float(v) for v in values)
    lo = xs[k]
    if frac == 0:
        return lo
    hi = xs[k + 1]
    if lo == hi:
        return lo
    f = float(frac)
    return (1 - f) * lo + f * hi if math.isinf(hi - lo) else lo + f * (hi - lo)


def sketch_bound(values, p):
    """docs/states.md: |answer - percentile| <= alpha * ((1 - f)|x_k| + f|x_k+1|)."""
    xs = sorted(float(v) for v in values)
    k, frac = rank(len(xs), p)
    f = float(frac)
    hi = xs[k + 1] if frac else xs[k]
    return ALPHA * ((1 - f) * abs(xs[k]) + f * abs(hi))


def same(got, want):
    """Same SQL type and the same value, floats bit for bit."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        return struct.pack("<d", got) == struct.pack("<d", want)
    return got == want


class StatsStates(unittest.TestCase):
    def setUp(self):
        self.con = connect()
        self.con.execute("CREATE TABLE t(g, x)")
        self.rng = random.Random(20261130)

    def load(self, groups):
        """groups: {g: [values]} into table t."""
        self.con.execute("DELETE FROM t")
        self.con.executemany("INSERT INTO t VALUES (?, ?)", [(g, x) for g, xs in groups.items() for x in xs])

    def merged(self, *whats):
        """rocpd_stats_get(merge of the per-group states, what) for each what."""
        cols = ", ".join("rocpd_stats_get(m, ?)" for _ in whats)
        return self.con.execute(
            f"SELECT {cols} FROM (SELECT rocpd_stats_merge(s) AS m FROM "
            "(SELECT g, rocpd_stats_state(x) AS s FROM t GROUP BY g))", whats).fetchone()

    def error(self, sql, *args):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.con.execute(sql, args).fetchall()
        return str(caught.exception)

    def random_values(self, n, kind):
        r = self.rng
        if kind == "ints":
            return [r.choice([r.randrange(0, 10**6), r.randrange(I64_MIN, I64_MAX), r.randrange(-5, 5)])
                    for _ in range(n)]
        if kind == "durations":
            return [int(r.lognormvariate(9, 2)) for _ in range(n)]
        if kind == "reals":  # magnitudes of each sign within the 19.6 decades a store holds unfolded
            return [r.choice([r.lognormvariate(0, 4), -r.paretovariate(1.2), 0.0, r.uniform(-1e6, 1e6)])
                    for _ in range(n)]
        if kind == "huge":
            return [r.uniform(-1e300, 1e300) for _ in range(n)]
        return [r.randrange(-1000, 1000) if r.random() < 0.5 else r.uniform(-1000, 1000) for _ in range(n)]

    def check_whole(self, values, label):
        """Merged per-group states of `values` (already in t) against the brute force of all of them."""
        count, lo, hi, mean, sd = self.merged("count", "min", "max", "mean", "stddev")
        ints = all(isinstance(v, int) for v in values)
        self.assertEqual(count, len(values), label)
        if ints and not I64_MIN <= sum(values) <= I64_MAX:
            self.assertIn("integer overflow: the sum", self.error(
                "SELECT rocpd_stats_get(rocpd_stats_merge(s), 'sum') FROM (SELECT rocpd_stats_state(x) AS s FROM t GROUP BY g)"))
        elif ints:
            self.assertTrue(same(self.merged("sum")[0], sum(values)), label)
        else:
            total = self.merged("sum")[0]
            want = math.fsum(values)
            self.assertIsInstance(total, float)
            self.assertLessEqual(abs(total - want), 1e-15 * max(abs(want), max(abs(v) for v in values)), label)
        # min/max keep their type; of equal values the INTEGER is returned.
        want_lo = min(values, key=lambda v: (v, isinstance(v, float)))
        want_hi = max(values, key=lambda v: (v, not isinstance(v, float)))
        self.assertTrue(same(lo, want_lo), (label, lo, want_lo))
        self.assertTrue(same(hi, want_hi), (label, hi, want_hi))
        exact_mean = sum(Fraction(v) for v in values) / len(values)
        self.assertLessEqual(abs(mean - float(exact_mean)), 1e-13 * max(abs(v) for v in values), label)
        if len(values) < 2:
            self.assertIsNone(sd)
        else:
            want_sd = statistics.stdev(Fraction(v) for v in values)  # exact fractions, rounded once
            self.assertLessEqual(abs(sd - float(want_sd)), 1e-12 * float(want_sd), label)
        for p_text in P_TEXTS:
            got = self.merged("p" + p_text)[0]
            want = percentile(values, float(p_text))
            if len(values) <= EXACT_LIMIT:
                self.assertTrue(same(got, want), (label, p_text, got, want))
            else:
                self.assertIsInstance(got, float)
                self.assertLessEqual(abs(got - want), sketch_bound(values, float(p_text)) * (1 + 1e-9),
                                     (label, p_text, got, want))

    def test_merged_groups_equal_the_whole_set(self):
        for kind in ["ints", "durations", "reals", "mixed", "huge"]:
            for groups, per_group in [(1, 1), (3, 7), (8, 300), (5, 819), (8, 2000), (13, 1500)]:
                data = {g: self.random_values(per_group + self.rng.randrange(0, 3), kind) for g in range(groups)}
                self.load(data)
                values = [v for xs in data.values() for v in xs]
                with self.subTest(kind=kind, n=len(values)):
                    self.check_whole(values, f"{kind} {len(values)}")

    def test_exact_quantiles_are_percentile_and_median_bit_for_bit(self):
        for kind in ["ints", "reals", "mixed"]:
            for n in [1, 2, 5, 100, EXACT_LIMIT]:
                self.load({0: self.random_values(n, kind)})
                for p_text in P_TEXTS:
                    got, sql = self.con.execute(
                        "SELECT rocpd_stats_get(rocpd_stats_state(x), ?), percentile(x, ?) FROM t",
                        ("p" + p_text, float(p_text))).fetchone()
                    self.assertTrue(same(got, sql), (kind, n, p_text, got, sql))
                got, sql = self.con.execute("SELECT rocpd_stats_get(rocpd_stats_state(x), 'median'), median(x) FROM t").fetchone()
                self.assertTrue(same(got, sql), (kind, n, got, sql))

    def test_sketch_is_reached_through_every_kind_of_merge(self):
        # Exact + exact past the limit, exact + sketch, sketch + exact, sketch + sketch.
        for sizes in [(3000, 3000), (100, 9000), (9000, 100), (6000, 7000)]:
            data = {g: self.random_values(n, "durations") for g, n in enumerate(sizes)}
            self.load(data)
            values = data[0] + data[1]
            for order in ["g", "g DESC"]:
                got = self.con.execute(
                    "SELECT rocpd_stats_get(rocpd_stats_merge(s), 'p90'), rocpd_stats_get(rocpd_stats_merge(s), 'count') "
                    f"FROM (SELECT g, rocpd_stats_state(x) AS s FROM t GROUP BY g ORDER BY {order})").fetchone()
                self.assertEqual(got[1], len(values))
                self.assertLessEqual(abs(got[0] - percentile(values, 90)), sketch_bound(values, 90) * (1 + 1e-9), sizes)

    def test_folding_keeps_the_upper_quantiles_and_the_memory_bound(self):
        # Magnitudes from 1e-300 to 1e300: 600 decades, far more than the 4608 buckets of a store.
        values = [10 ** self.rng.uniform(-300, 300) for _ in range(20000)]
        self.load({g: values[g::4] for g in range(4)})
        blob = self.con.execute(
            "SELECT rocpd_stats_merge(s) FROM (SELECT rocpd_stats_state(x) AS s FROM t GROUP BY g)").fetchone()[0]
        self.assertEqual(len(blob), 128 + 8 + 8 + 8 * 4608 + 8)  # the positive store is full, the negative empty
        log_gamma = math.log1p(0.0049) - math.log1p(-0.0049)
        kept_from = math.ceil(math.log(max(values)) / log_gamma) - 4608 + 1
        xs = sorted(values)
        checked = 0
        for p_text in P_TEXTS + ["96.9", "97.5", "98", "99.5", "99.99"]:
            k, _ = rank(len(xs), float(p_text))
            if math.log(xs[k]) / log_gamma <= kept_from + 1:
                continue  # in or next to the folded buckets: no bound (docs/states.md)
            got = self.con.execute("SELECT rocpd_stats_get(?, ?)", (blob, "p" + p_text)).fetchone()[0]
            self.assertLessEqual(abs(got - percentile(values, float(p_text))),
                                 sketch_bound(values, float(p_text)) * (1 + 1e-9), p_text)
            checked += 1
        self.assertGreaterEqual(checked, 6)
        self.assertEqual(self.con.execute("SELECT rocpd_stats_get(?, 'count'), rocpd_stats_get(?, 'min'), "
                                          "rocpd_stats_get(?, 'p0')", (blob,) * 3).fetchone(),
                         (len(values), xs[0], xs[0]))

    def test_merge_of_integer_states_is_the_state_of_all_values_byte_for_byte(self):
        for n in [0, 10, 4000, 30000]:
            data = {g: self.random_values(n // 7, "durations") for g in range(7)}
            self.load(data)
            whole = self.con.execute("SELECT rocpd_stats_state(x) FROM t").fetchone()[0]
            # Two levels: per group, then per g % 3, then everything (as a cluster would reduce).
            merged = self.con.execute(
                "SELECT rocpd_stats_merge(s2) FROM (SELECT g % 3 AS h, rocpd_stats_merge(s) AS s2 FROM "
                "(SELECT g, rocpd_stats_state(x) AS s FROM t GROUP BY g) GROUP BY h)").fetchone()[0]
            self.assertEqual(merged, whole, n)

    def test_nulls(self):
        self.load({0: [None, 5, None, 7], 1: [None, None]})
        self.assertEqual(self.con.execute(
            "SELECT g, rocpd_stats_get(rocpd_stats_state(x), 'count'), rocpd_stats_get(rocpd_stats_state(x), 'median'), "
            "rocpd_stats_get(rocpd_stats_state(x), 'sum'), rocpd_stats_get(rocpd_stats_state(x), 'min'), "
            "rocpd_stats_get(rocpd_stats_state(x), 'stddev') FROM t GROUP BY g").fetchall(),
            [(0, 2, 6, 12, 5, math.sqrt(2)), (1, 0, None, None, None, None)])
        # No rows at all: the empty state, count 0.
        self.assertEqual(self.con.execute(
            "SELECT rocpd_stats_get(rocpd_stats_state(x), 'count'), rocpd_stats_get(rocpd_stats_state(x), 'mean') "
            "FROM t WHERE 0").fetchone(), (0, None))
        # NULL states are skipped by merge; get of NULL is NULL (what is still checked).
        self.assertEqual(self.con.execute(
            "SELECT rocpd_stats_get(rocpd_stats_merge(s), 'count') FROM "
            "(SELECT rocpd_stats_state(5) AS s UNION ALL SELECT NULL UNION ALL SELECT rocpd_stats_state(6))").fetchone(), (2,))
        self.assertEqual(self.con.execute(
            "SELECT rocpd_stats_get(rocpd_stats_merge(NULL), 'count'), rocpd_stats_get(NULL, 'max')").fetchone(), (0, None))

    def test_result_types(self):
        self.load({0: [1, 2.5, 3]})
        got = self.merged("count", "sum", "min", "max", "median")
        self.assertEqual(got, (3, 6.5, 1, 3, 2.5))
        self.assertEqual([type(v) for v in got], [int, float, int, int, float])
        self.assertAlmostEqual(self.merged("mean")[0], 6.5 / 3, places=15)
        self.load({0: [4, 1, 3]})
        got = self.merged("sum", "min", "max", "median")
        self.assertEqual(got, (8, 1, 4, 3))
        self.assertEqual([type(v) for v in got], [int, int, int, int])
        self.assertAlmostEqual(self.merged("mean")[0], 8 / 3, places=15)
        self.load({0: ["12", " 14 "]})  # numeric text is a number, as in median()
        self.assertEqual(self.merged("median", "sum"), (13, 26))

    def test_integer_sum_is_exact_and_overflow_is_reported_on_read(self):
        self.load({0: [I64_MAX, I64_MAX], 1: [-I64_MAX, -5]})  # the partial sum leaves int64 and returns
        self.assertEqual(self.merged("sum", "count"), (I64_MAX - 5, 4))
        self.load({0: [I64_MAX], 1: [1]})
        self.assertEqual(self.merged("count", "max")[0], 2)
        self.assertEqual(self.error(
            "SELECT rocpd_stats_get(rocpd_stats_merge(s), 'sum') FROM (SELECT rocpd_stats_state(x) AS s FROM t GROUP BY g)"),
            "rocpd_stats_get(): integer overflow: the sum 9223372036854775808 does not fit in a 64-bit integer "
            "('mean' still answers)")
        self.assertEqual(self.error("SELECT sum(x) FROM t"), "integer overflow")  # SQLite's own sum()
        self.assertEqual(self.merged("mean")[0], 2.0**62)

    def test_infinities(self):
        self.load({0: [1, 1e999], 1: [3]})
        self.assertEqual(self.merged("sum", "mean", "stddev", "max", "median"), (math.inf, math.inf, None, math.inf, 3.0))
        self.load({0: [-1e999, 1e999]})
        self.assertEqual(self.merged("sum", "mean", "median", "min", "p0"), (None, None, None, -math.inf, -math.inf))

    def test_errors(self):
        self.assertEqual(self.error("SELECT rocpd_stats_state('abc')"),
                         "rocpd_stats_state(): value must be a number, got text 'abc'")
        self.assertEqual(self.error("SELECT rocpd_stats_state(x'0102')"),
                         "rocpd_stats_state(): value must be a number, got a blob of 2 bytes")
        accepted = ("rocpd_stats_get(): what must be 'count', 'sum', 'min', 'max', 'mean', 'stddev', 'median' or "
                    "'p<N>' with N in [0, 100] (e.g. 'p90', 'p99.9'), got ")
        for what, shown in [("foo", "text 'foo'"), ("p101", "text 'p101'"), ("p-1", "text 'p-1'"), ("P50", "text 'P50'"),
                            ("p", "text 'p'"), ("p1e2", "text 'p1e2'"), ("p50.", "text 'p50.'"), ("", "text ''"),
                            ("median ", "text 'median '"), (None, "NULL"), (50, "50")]:
            self.assertEqual(self.error("SELECT rocpd_stats_get(rocpd_stats_state(1), ?)", what), accepted + shown)
        self.assertEqual(self.error("SELECT rocpd_stats_get(NULL, 'q')"), accepted + "text 'q'")
        not_state = ("{}(): argument 1 must be a rocpd_stats state (a BLOB from rocpd_stats_state or "
                     "rocpd_stats_merge), got {}")
        self.assertEqual(self.error("SELECT rocpd_stats_get('x', 'count')"), not_state.format("rocpd_stats_get", "text 'x'"))
        self.assertEqual(self.error("SELECT rocpd_stats_merge(5)"), not_state.format("rocpd_stats_merge", "5"))
        blob = self.con.execute("SELECT rocpd_stats_state(x) FROM (SELECT 1 AS x UNION ALL SELECT 2)").fetchone()[0]
        for bad, text in [(b"", "is not a rocpd_stats state (bad magic)"),
                          (b"\x00" + blob[1:], "is not a rocpd_stats state (bad magic)"),
                          (blob[:4] + b"\x02" + blob[5:], "is a rocpd_stats state of version 2; this build reads version 1"),
                          (blob[:100], "is truncated (100 bytes)"),
                          (blob + b"\x00", "is corrupt (1 bytes after the last field)"),
                          (self.con.execute("SELECT interval_union_state(1, 2)").fetchone()[0],
                           "is an interval_union state, not a rocpd_stats state")]:
            for fn, sql in [("rocpd_stats_get", "SELECT rocpd_stats_get(?, 'count')"), ("rocpd_stats_merge", "SELECT rocpd_stats_merge(?)")]:
                self.assertEqual(self.error(sql, bad), f"{fn}(): argument 1 {text}")
        self.assertEqual(self.error("SELECT rocpd_stats_get(rocpd_stats_state(1))"),
                         "wrong number of arguments to function rocpd_stats_get()")
        self.assertEqual(self.error("SELECT rocpd_stats_state(x) OVER () FROM t"),
                         "rocpd_stats_state() may not be used as a window function")

    def test_documented_layout(self):
        """docs/states.md, byte by byte, decoded here with struct."""
        self.load({0: [5, -3, 5, 10]})
        blob = self.con.execute("SELECT rocpd_stats_state(x) FROM t").fetchone()[0]
        self.assertEqual(blob[:5], b"rpST\x01")
        summary, types, reserved = blob[5], blob[6], blob[7]
        count, n_int, pos_inf, neg_inf = struct.unpack_from("<4Q", blob, 8)
        lo, hi = struct.unpack_from("<2q", blob, 40)
        s1 = lo & (2**64 - 1) | hi << 64
        s2 = sum(limb << (64 * i) for i, limb in enumerate(struct.unpack_from("<3Q", blob, 56)))
        rsum, rcomp, rmean, rm2 = struct.unpack_from("<4d", blob, 80)
        mn, mx = struct.unpack_from("<2q", blob, 112)
        values = struct.unpack_from("<4q", blob, 128)
        self.assertEqual((summary, types, reserved, count, n_int, pos_inf, neg_inf), (0, 3, 0, 4, 4, 0, 0))
        self.assertEqual((s1, s2, rsum, rcomp, rmean, rm2, mn, mx), (17, 159, 0, 0, 0, 0, -3, 10))
        self.assertEqual(values, (-3, 5, 5, 10))
        self.assertEqual(len(blob), 128 + 4 * 8)
        # A sketch: zero count, then per store (positive, negative) first index, bucket count, counts.
        self.load({0: [0] * 10 + [1000] * 5000 + [-2.0] * 7})
        blob = self.con.execute("SELECT rocpd_stats_state(x) FROM t").fetchone()[0]
        self.assertEqual(blob[5], 1)
        zeros, = struct.unpack_from("<Q", blob, 128)
        first, n = struct.unpack_from("<iI", blob, 136)
        self.assertEqual((zeros, n, struct.unpack_from("<Q", blob, 144)[0]), (10, 1, 5000))
        log_gamma = math.log1p(0.0049) - math.log1p(-0.0049)
        self.assertEqual(first, math.ceil(math.log(1000) / log_gamma))
        nfirst, nn = struct.unpack_from("<iI", blob, 152)
        self.assertEqual((nfirst, nn, struct.unpack_from("<Q", blob, 160)[0]), (math.ceil(math.log(2) / log_gamma), 1, 7))
        self.assertEqual(len(blob), 168)


class FixtureJob(unittest.TestCase):
    """The job of docs/states.md on the generated set mixed8 (8 members, 2000 ops each)."""

    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        path = os.path.join(SETS, "mixed8")
        if not os.path.isdir(path):
            raise unittest.SkipTest("fixtures not generated")
        cls.con.execute("SELECT rocpd_open(?)", (path,))
        cls.rows = cls.con.execute("SELECT db, duration FROM rocpd_ops").fetchall()

    def test_median_of_merged_member_states(self):
        durations = [d for _, d in self.rows if d is not None]
        self.assertGreater(len(durations), EXACT_LIMIT)  # the merged state is a sketch
        got, sql_median = self.con.execute(
            "SELECT rocpd_stats_get(rocpd_stats_merge(s), 'median'), (SELECT median(duration) FROM rocpd_ops) FROM "
            "(SELECT db, rocpd_stats_state(duration) s FROM rocpd_ops GROUP BY db)").fetchone()
        want = percentile(durations, 50)
        self.assertEqual(sql_median, want)
        self.assertLessEqual(abs(got - want), sketch_bound(durations, 50) * (1 + 1e-9), (got, want))
        whole = self.con.execute(
            "SELECT rocpd_stats_get(m, 'count'), rocpd_stats_get(m, 'sum'), rocpd_stats_get(m, 'min'), "
            "rocpd_stats_get(m, 'max'), rocpd_stats_get(m, 'stddev'), rocpd_stats_get(m, 'p99') FROM "
            "(SELECT rocpd_stats_merge(s) AS m FROM (SELECT db, rocpd_stats_state(duration) s FROM rocpd_ops GROUP BY db))"
        ).fetchone()
        self.assertEqual(whole[:4], (len(durations), sum(durations), min(durations), max(durations)))
        self.assertAlmostEqual(whole[4] / float(statistics.stdev(Fraction(d) for d in durations)), 1, places=12)
        self.assertLessEqual(abs(whole[5] - percentile(durations, 99)), sketch_bound(durations, 99) * (1 + 1e-9))

    def test_each_member_state_is_exact(self):
        by_db = {}
        for db, d in self.rows:
            if d is not None:
                by_db.setdefault(db, []).append(d)
        got = dict(self.con.execute(
            "SELECT db, rocpd_stats_get(rocpd_stats_state(duration), 'p90') FROM rocpd_ops GROUP BY db").fetchall())
        self.assertEqual(sorted(got), sorted(by_db))
        for db, values in by_db.items():
            self.assertLessEqual(len(values), EXACT_LIMIT)
            self.assertTrue(same(got[db], percentile(values, 90)), db)


if __name__ == "__main__":
    main()
