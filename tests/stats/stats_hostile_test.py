"""Hostile arguments to median/percentile/stddev/histogram/histogram_log2/time_bucket/interval_union:
infinities (1e999), huge and negative widths, p at the bottom of the doubles, text and blobs. Each
call ends in a value or an error naming the function, never a crash or a hang. Expected values are
worked out independently (Fraction, the definitions in docs/stats.md and docs/intervals.md)."""
import math
import os
import sqlite3
import unittest
from fractions import Fraction

I64_MIN, I64_MAX = -2**63, 2**63 - 1
INF = float("inf")


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(os.environ["ROCPD_EXT"])
    return con


class Hostile(unittest.TestCase):
    def setUp(self):
        self.con = connect()

    def tearDown(self):
        self.con.close()

    def value(self, sql, *args):
        return self.con.execute(sql, args).fetchone()[0]

    def error(self, sql, *args):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.con.execute(sql, args).fetchall()
        return str(caught.exception)

    def over(self, fn, values):
        """fn applied to a column of `values` (a VALUES list keeps SQL types as bound)."""
        rows = " UNION ALL ".join(["SELECT ? AS x"] * len(values))
        return self.value(f"SELECT {fn} FROM ({rows})", *values)

    def test_percentile_p_out_of_range_or_not_a_number(self):
        for p, shown in [("1e999", "inf"), ("-1e999", "-inf"), ("x'00ff'", "a blob of 2 bytes"),
                         ("'abc'", "text 'abc'"), ("100.00000000000001", "100.00000000000001")]:
            self.assertEqual(self.error(f"SELECT percentile(1, {p})"),
                             f"percentile(): p must be a number between 0 and 100, got {shown}", p)

    def test_percentile_smallest_ps(self):
        # p = 1e-300 and 5e-324 are in range; the result is x[0] + p/100 * gap, rounded once.
        for p in (1e-300, 5e-324, 2.2250738585072014e-308):
            got = self.over(f"percentile(x, {p!r})", [0, 2**62])
            want = float(Fraction(p) / 100 * 2**62)
            self.assertEqual((type(got), got), (float, want), p)

    def test_median_of_reals_whose_gap_overflows(self):
        self.assertEqual(self.over("median(x)", [-1.5e308, 1.5e308]), 0.0)
        want = float(Fraction(-1e308) + Fraction(3, 4) * (Fraction(1.7e308) - Fraction(-1e308)))
        self.assertEqual(self.over("percentile(x, 75)", [-1e308, 1.7e308]), want)

    def test_infinite_values(self):
        self.assertEqual(self.over("median(x)", [INF, INF, 1.0]), INF)
        self.assertIsNone(self.over("median(x)", [-INF, INF]))  # NaN: SQLite's NULL
        self.assertEqual(self.over("percentile(x, 0)", [-INF, 5]), -INF)
        self.assertIsNone(self.over("stddev(x)", [1.0, INF]))
        self.assertEqual(self.error("SELECT histogram(1e999, 1)"), "histogram(): value 9e999 has no bucket")
        self.assertEqual(self.error("SELECT histogram_log2(1e999)"), "histogram_log2(): value 9e999 has no log2 bucket")
        self.assertEqual(self.error("SELECT histogram_log2(-1e999)"),
                         "histogram_log2(): negative value -9e999 has no log2 bucket")

    def test_stddev_at_the_top_of_the_doubles(self):
        # sqrt(2) * 1e308 fits a double although the squared deviations do not.
        got = self.over("stddev(x)", [-1e308, 1e308])
        self.assertAlmostEqual(got / 1e308, math.sqrt(2), places=14)
        # sqrt(2) * 1.5e308 does not: infinity.
        self.assertEqual(self.over("stddev(x)", [-1.5e308, 1.5e308]), INF)

    def test_histogram_widths(self):
        for w, shown in [("1e999", "9e999"), ("-5", "-5"), ("0", "0"), ("-1e-300", "-1e-300")]:
            self.assertEqual(self.error(f"SELECT histogram(1, {w})"),
                             f"histogram(): width must be a positive number, got {shown}", w)
        self.assertEqual(self.error("SELECT histogram(1, x'00')"), "histogram(): width must be a number, got a blob of 1 bytes")
        self.assertEqual(self.error("SELECT histogram(1, 1, 1e999)"), "histogram(): origin must be a finite number, got 9e999")
        # A width far too small: no bucket index fits, an error rather than a hang.
        self.assertEqual(self.error("SELECT histogram(1e300, 1e-300)"),
                         "histogram(): value 1e+300 is too far from the origin for width 1e-300")
        # Widths at the top of int64: [INT64_MIN, -1) and [-1, INT64_MAX - 1), then a bucket whose
        # end is past INT64_MAX: its hi is null (bounds are INTEGERs or null, never REAL).
        self.assertEqual(self.over("histogram(x, 9223372036854775807, -9223372036854775808)", [I64_MIN, -2, I64_MAX]),
                         '[{"lo":-9223372036854775808,"hi":-1,"count":2},{"lo":-1,"hi":9223372036854775806,"count":0},'
                         '{"lo":9223372036854775806,"hi":null,"count":1}]')

    def test_time_bucket_edges(self):
        self.assertEqual(self.error("SELECT time_bucket(5, 1e999)"), "time_bucket: width must be an integer (ns), got real inf")
        self.assertEqual(self.error("SELECT time_bucket(5, -5)"), "time_bucket: width must be a positive number of ns, got -5")
        self.assertEqual(self.value("SELECT time_bucket(?, 1, ?)", I64_MAX, I64_MIN), I64_MAX)
        # floor((INT64_MIN - 0) / INT64_MAX) = -2: the bucket starts at -2 * INT64_MAX, below int64.
        msg = self.error("SELECT time_bucket(?, ?)", I64_MIN, I64_MAX)
        self.assertTrue(msg.startswith("time_bucket: the bucket of -9223372036854775808 starts before"), msg)

    def test_interval_union_longer_than_int64(self):
        msg = self.error("SELECT interval_union(?, ?)", I64_MIN, I64_MAX)
        self.assertTrue(msg.startswith("interval_union: the union is 18446744073709551615 ns long"), msg)

    def test_error_texts_cut_on_a_character_boundary(self):
        text = "k" + "\u00e9" * 30  # 'é' is two bytes: byte 40 is in the middle of one
        shown = text.encode()[:40].decode("utf-8", errors="ignore")
        self.assertEqual(self.error("SELECT median(?)", text), f"median(): value must be a number, got text '{shown}...'")


if __name__ == "__main__":
    unittest.main(verbosity=2)
