"""Exact error texts of the stats aggregates (median, percentile, stddev, histogram, histogram_log2)."""
import os
import sqlite3
import unittest


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(os.environ["ROCPD_EXT"])
    con.execute("CREATE TABLE t(x, p, w)")
    return con


class StatsErrors(unittest.TestCase):
    def setUp(self):
        self.con = connect()

    def tearDown(self):
        self.con.close()

    def error(self, sql, rows=()):
        self.con.execute("DELETE FROM t")
        self.con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.con.execute(sql).fetchall()
        return str(caught.exception)

    def test_non_numeric_values_name_the_function(self):
        rows = [(1, 50, 1), ("abc", 50, 1)]
        self.assertEqual(self.error("SELECT median(x) FROM t", rows), "median(): value must be a number, got text 'abc'")
        self.assertEqual(self.error("SELECT percentile(x, 50) FROM t", rows),
                         "percentile(): value must be a number, got text 'abc'")
        self.assertEqual(self.error("SELECT stddev(x) FROM t", rows), "stddev(): value must be a number, got text 'abc'")
        self.assertEqual(self.error("SELECT histogram(x, 1) FROM t", rows),
                         "histogram(): value must be a number, got text 'abc'")
        self.assertEqual(self.error("SELECT histogram_log2(x) FROM t", rows),
                         "histogram_log2(): value must be a number, got text 'abc'")
        self.assertEqual(self.error("SELECT median(x) FROM t", [(b"\x00\x01", 0, 0)]),
                         "median(): value must be a number, got a blob of 2 bytes")
        long_text = "k" * 60
        self.assertEqual(self.error("SELECT median(x) FROM t", [(long_text, 0, 0)]),
                         "median(): value must be a number, got text '" + "k" * 40 + "...'")

    def test_numeric_text_is_a_number(self):
        self.assertEqual(self.con.execute("SELECT median(x) FROM (SELECT '12' AS x UNION ALL SELECT ' 14 ')").fetchone(),
                         (13,))

    def test_percentile_p(self):
        for p, shown in [(150, "150"), (-0.5, "-0.5"), (None, "NULL"), ("high", "text 'high'")]:
            self.assertEqual(self.error("SELECT percentile(x, p) FROM t", [(1, p, 1)]),
                             f"percentile(): p must be a number between 0 and 100, got {shown}")
        self.assertEqual(self.error("SELECT percentile(x, p) FROM t", [(1, 50, 1), (2, 90, 1)]),
                         "percentile(): p must be the same for every row of a group, got 50 then 90")
        # p is checked on rows whose value is NULL too.
        self.assertEqual(self.error("SELECT percentile(x, p) FROM t", [(None, 101, 1)]),
                         "percentile(): p must be a number between 0 and 100, got 101")

    def test_histogram_parameters(self):
        self.assertEqual(self.error("SELECT histogram(x, w) FROM t", [(1, 0, 0)]),
                         "histogram(): width must be a positive number, got 0")
        self.assertEqual(self.error("SELECT histogram(x, w) FROM t", [(1, 0, None)]),
                         "histogram(): width must be a number, got NULL")
        self.assertEqual(self.error("SELECT histogram(x, w) FROM t", [(1, 0, "wide")]),
                         "histogram(): width must be a number, got text 'wide'")
        self.assertEqual(self.error("SELECT histogram(x, 1, w) FROM t", [(1, 0, "o")]),
                         "histogram(): origin must be a number, got text 'o'")
        self.assertEqual(self.error("SELECT histogram(x, w) FROM t", [(1, 0, 5), (2, 0, 6)]),
                         "histogram(): width and origin must be the same for every row of a group, got 5, 0 then 6, 0")
        self.assertEqual(self.error("SELECT histogram(x, 1) FROM t", [(0, 0, 0), (100000, 0, 0)]),
                         "histogram(): 100001 buckets of width 1 would be needed (limit 100000); choose a wider width")
        self.assertEqual(self.error("SELECT histogram(x, 1) FROM t", [(1e999, 0, 0)]),
                         "histogram(): value 9e999 has no bucket")

    def test_histogram_width_below_the_spacing_of_doubles(self):
        # Issue 21, defect 12: far from the origin such a width gave buckets with lo == hi that held values.
        self.assertEqual(self.error("SELECT histogram(x, 1.0) FROM t", [(1e17, 0, 0)]),
                         "histogram(): width 1 is too small for value 1e+17: buckets this far from the origin cannot "
                         "be told apart in floating point; choose a wider width")
        self.assertEqual(self.error("SELECT histogram(x, 0.5) FROM t", [(1, 0, 0), (2.0 ** 60, 0, 0)]),
                         "histogram(): width 0.5 is too small for value 1.152921504606847e+18: buckets this far from "
                         "the origin cannot be told apart in floating point; choose a wider width")

    def test_histogram_log2_negative(self):
        self.assertEqual(self.error("SELECT histogram_log2(x) FROM t", [(3, 0, 0), (-7, 0, 0)]),
                         "histogram_log2(): negative value -7 has no log2 bucket")

    def test_wrong_arity_is_sqlites_own_error(self):
        self.assertEqual(self.error("SELECT percentile(x) FROM t"), "wrong number of arguments to function percentile()")
        self.assertEqual(self.error("SELECT histogram(x) FROM t"), "wrong number of arguments to function histogram()")


if __name__ == "__main__":
    unittest.main()
