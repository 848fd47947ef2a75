"""Every error path of interval_union, time_bucket, rocpd_busy_intervals, rocpd_gaps and
rocpd_utilization, with its exact message (run by /usr/bin/python3)."""
import os
import sqlite3
import unittest

EXT = os.environ.get("ROCPD_EXT", "")
SETS = os.path.join(os.environ.get("ROCPD_FIXTURES", ""), "sets")

INT64_MAX = 9223372036854775807
INT64_MIN = -9223372036854775808

CASES = [
    ("SELECT interval_union('a', 1)", "interval_union: start must be an integer (ns), got text 'a'"),
    ("SELECT interval_union(1, x'00')", "interval_union: end must be an integer (ns), got a blob"),
    ("SELECT interval_union(1, 2.5)", "interval_union: end must be an integer (ns), got real 2.5"),
    ("SELECT interval_union(1, 2, 'lo', 3)", "interval_union: lo must be an integer (ns), got text 'lo'"),
    ("SELECT interval_union(1, 2, 0, 1e300)", "interval_union: hi must be an integer (ns), got real 1e+300"),
    (f"SELECT interval_union({INT64_MIN}, {INT64_MAX})",
     "interval_union: the union is 18446744073709551615 ns long, more than an integer holds "
     "(INT64_MAX = 9223372036854775807)"),
    (f"SELECT interval_union(s, e) OVER () FROM (SELECT {INT64_MIN} AS s, 0 AS e UNION ALL SELECT 0, {INT64_MAX})",
     "interval_union: the union is 18446744073709551615 ns long, more than an integer holds "
     "(INT64_MAX = 9223372036854775807)"),
    ("SELECT interval_union(1, 2, 3)", "wrong number of arguments to function interval_union()"),
    ("SELECT time_bucket(1, 0)", "time_bucket: width must be a positive number of ns, got 0"),
    ("SELECT time_bucket(1, -5)", "time_bucket: width must be a positive number of ns, got -5"),
    ("SELECT time_bucket('x', 5)", "time_bucket: ts must be an integer (ns), got text 'x'"),
    ("SELECT time_bucket(1, 5, 'o')", "time_bucket: origin must be an integer (ns), got text 'o'"),
    (f"SELECT time_bucket({INT64_MIN}, 10, 5)",
     "time_bucket: the bucket of -9223372036854775808 starts before the smallest integer (origin 5, width 10)"),
    ("SELECT * FROM rocpd_utilization",
     "rocpd_utilization: give the bucket width, rocpd_utilization(bucket_ns [, lo, hi]), or the number of buckets, "
     "WHERE buckets = N"),
    ("SELECT * FROM rocpd_utilization(NULL, 1, 2)",
     "rocpd_utilization: give the bucket width, rocpd_utilization(bucket_ns [, lo, hi]), or the number of buckets, "
     "WHERE buckets = N"),
    ("SELECT * FROM rocpd_utilization(0)", "rocpd_utilization: bucket_ns must be a positive number of ns, got 0"),
    ("SELECT * FROM rocpd_utilization(-3)", "rocpd_utilization: bucket_ns must be a positive number of ns, got -3"),
    ("SELECT * FROM rocpd_utilization(100) WHERE buckets = 3",
     "rocpd_utilization: give either bucket_ns or buckets, not both"),
    ("SELECT * FROM rocpd_utilization WHERE buckets = 0", "rocpd_utilization: buckets must be a positive count, got 0"),
    ("SELECT * FROM rocpd_utilization(100, 50, 50)", "rocpd_utilization: hi (50) must be greater than lo (50)"),
    ("SELECT * FROM rocpd_utilization(1, 0, 100000000000)",
     "rocpd_utilization: 100000000000 buckets per gpu are too many (at most 10000000); use a wider bucket_ns"),
    ("SELECT * FROM rocpd_utilization('w')", "rocpd_utilization: bucket_ns must be an integer (ns), got text 'w'"),
    ("SELECT * FROM rocpd_utilization(10, 'a')", "rocpd_utilization: lo must be an integer (ns), got text 'a'"),
    ("SELECT * FROM rocpd_utilization(10, 1, 'b')", "rocpd_utilization: hi must be an integer (ns), got text 'b'"),
    ("SELECT * FROM rocpd_utilization WHERE buckets = 2.5",
     "rocpd_utilization: buckets must be an integer (a count), got real 2.5"),
    ("SELECT * FROM rocpd_utilization(NULL, 0, 10) WHERE buckets = 11",
     "rocpd_utilization: 11 buckets cannot divide a window of 10 ns (one ns at least per bucket)"),
    ("SELECT * FROM rocpd_utilization(100, 1, 2, 3, 4)", "too many arguments on rocpd_utilization() - max 4"),
    ("SELECT * FROM rocpd_busy_intervals(1, 2, 'kernel', 4)", "too many arguments on rocpd_busy_intervals() - max 3"),
    ("SELECT * FROM rocpd_busy_intervals(1, 2, 3)",
     "rocpd_busy_intervals: kind must be text (a kind or op name of rocpd_ops such as 'kernel', or several separated "
     "by commas), got an integer"),
    ("SELECT * FROM rocpd_gaps(NULL, NULL, 'kernel,,copy')", "rocpd_gaps: kind 'kernel,,copy' has an empty item"),
    ("SELECT * FROM rocpd_gaps WHERE kind = ' '", "rocpd_gaps: kind ' ' has an empty item"),
    ("SELECT * FROM rocpd_gaps(10, 5)", "rocpd_gaps: hi (5) must be greater than lo (10)"),
    ("SELECT * FROM rocpd_busy_intervals('a')", "rocpd_busy_intervals: lo must be an integer (ns), got text 'a'"),
]


class Errors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = sqlite3.connect(":memory:")
        cls.con.enable_load_extension(True)
        cls.con.load_extension(EXT)
        cls.con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))

    def test_exact_messages(self):
        for sql, message in CASES:
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as caught:
                    self.con.execute(sql).fetchall()
                self.assertEqual(str(caught.exception), message)

    def test_too_many_buckets_name_the_member(self):
        # The set's members overlap in time (one clock cluster spanning the job, 56.5 ms), so each
        # member's grid spans the cluster: 1 ns buckets are 56.5 million per gpu.
        lo, hi = self.con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.con.execute("SELECT * FROM rocpd_utilization(1)").fetchall()
        self.assertEqual(str(caught.exception),
                         "rocpd_utilization: member rank0: %d buckets per gpu are too many (at most 10000000); use a "
                         "wider bucket_ns" % (hi - lo))

    def test_connection_still_works_after_errors(self):
        for sql, _ in CASES:
            try:
                self.con.execute(sql).fetchall()
            except sqlite3.OperationalError:
                pass
        self.assertEqual(self.con.execute("SELECT interval_union(0, 10)").fetchone()[0], 10)
        self.assertGreater(self.con.execute("SELECT count(*) FROM rocpd_busy_intervals").fetchone()[0], 0)

    def test_empty_federation_gives_no_rows(self):
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        con.load_extension(EXT)
        for table in ("rocpd_busy_intervals", "rocpd_gaps", "rocpd_utilization(1000)", "rocpd_check"):
            self.assertEqual(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0], 0, table)
        # The analysis views refuse instead, saying how to open traces (docs/views.md).
        with self.assertRaisesRegex(sqlite3.OperationalError, r"^rocpd_busy: no trace is open on this connection: "
                                    r"open traces first with SELECT rocpd_open\('path'\)"):
            con.execute("SELECT count(*) FROM rocpd_busy").fetchone()
        # With explicit lo/hi but no members there is still nothing to report.
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_utilization(10, 0, 100)").fetchone()[0], 0)


if __name__ == "__main__":
    unittest.main()
