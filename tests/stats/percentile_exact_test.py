"""percentile/median on all-INTEGER groups against an exact oracle: Python's fractions.Fraction.

The oracle: h = (n - 1) * p / 100 with p the exact value of the double bound as parameter, k = floor(h),
result = x[k] + (h - k) * (x[k+1] - x[k]) as a Fraction; an INTEGER when whole, else float(Fraction),
which CPython rounds correctly (integer true division). Groups include values at the int64 limits and
neighbours more than 2^53 apart, where a double fraction is off by thousands of ns."""
import math
import os
import random
import sqlite3
import unittest
from fractions import Fraction

I64_MIN, I64_MAX = -2**63, 2**63 - 1


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(os.environ["ROCPD_EXT"])
    return con


def oracle(values, p):
    xs = sorted(values)
    h = (len(xs) - 1) * Fraction(p) / 100
    k = math.floor(h)
    frac = h - k
    if frac == 0:
        return xs[k]
    v = xs[k] + frac * (xs[k + 1] - xs[k])
    return v.numerator if v.denominator == 1 else float(v)


def same(got, want):
    """Same SQL type and same value (floats bit for bit, so -0.0 is not 0.0)."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        return math.copysign(1, got) == math.copysign(1, want) and got == want
    return got == want


def interesting_ps(n, rng):
    ps = [0, 100, 50, 25, 75, 90, 99, 99.9, 1e-300, 5e-324, 2.2250738585072014e-308, 100 - 1e-13,
          33.3, 66.7, 12.5, 0.1, math.nextafter(50, 0), math.nextafter(50, 100)]
    if n > 1:  # p landing exactly on a rank, and just beside it
        for k in range(n):
            q = 100 * k / (n - 1)
            ps += [q, math.nextafter(q, 0), math.nextafter(q, 100)]
    ps += [rng.uniform(0, 100) for _ in range(6)]
    return [p for p in ps if 0 <= p <= 100]


class PercentileExact(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.rng = random.Random(20261123)
        cls.con.execute("CREATE TABLE t(g INTEGER, x INTEGER, p REAL)")

    def check_groups(self, groups):
        """groups: list of (values, p). One GROUP BY query per call; returns the mismatches."""
        con = self.con
        con.execute("DELETE FROM t")
        con.executemany("INSERT INTO t VALUES (?, ?, ?)",
                        [(g, x, p) for g, (values, p) in enumerate(groups) for x in values])
        got = dict(((g, v) for g, v in con.execute("SELECT g, percentile(x, p) FROM t GROUP BY g")))
        bad = []
        for g, (values, p) in enumerate(groups):
            want = oracle(values, p)
            if not same(got[g], want):
                bad.append((sorted(values), repr(p), got[g], want))
        return bad

    def test_int64_limits(self):
        values = [I64_MIN, I64_MAX]
        groups = [(values, p) for p in interesting_ps(2, self.rng)]
        groups += [([I64_MAX, I64_MAX - 2], 50), ([I64_MIN, I64_MIN + 1], 50), ([I64_MIN, I64_MIN + 3], 50),
                   ([I64_MIN, -1, 0, I64_MAX], 50), ([I64_MIN, I64_MAX, I64_MAX], 25)]
        self.assertEqual(self.check_groups(groups), [])

    def test_gaps_above_2_pow_53(self):
        groups = []
        for _ in range(300):
            n = self.rng.randint(2, 9)
            values = [self.rng.randint(I64_MIN, I64_MAX) for _ in range(n)]
            for p in self.rng.sample(interesting_ps(n, self.rng), 8):
                groups.append((values, p))
        self.assertEqual(self.check_groups(groups), [])

    def test_nanosecond_timestamps(self):
        # Durations and timestamps of a trace: ~1.7e18 with gaps of a few ns to hours.
        groups = []
        for _ in range(300):
            base = self.rng.randint(1_600_000_000_000_000_000, 1_800_000_000_000_000_000)
            values = [base + self.rng.choice([self.rng.randint(0, 9), self.rng.randint(0, 2**60)])
                      for _ in range(self.rng.randint(1, 12))]
            groups.append((values, self.rng.choice(interesting_ps(len(values), self.rng))))
        self.assertEqual(self.check_groups(groups), [])

    def test_median_is_exact(self):
        con = self.con
        for values in ([I64_MAX, I64_MAX - 3], [I64_MIN, I64_MAX], [2**62 + 1, -2**62], [1, 2, 3, 2**63 - 1],
                       [0, 2**53 + 1], [-(2**60) - 1, 2**60]):
            got = con.execute("SELECT median(value) FROM json_each(?)", (str(values),)).fetchone()[0]
            self.assertTrue(same(got, oracle(values, 50)), (values, got, oracle(values, 50)))

    def test_window_frames(self):
        con = self.con
        values = [self.rng.randint(I64_MIN, I64_MAX) for _ in range(60)]
        con.execute("DELETE FROM t")
        con.executemany("INSERT INTO t VALUES (?, ?, NULL)", list(enumerate(values)))
        for p in (37.5, 90, 1e-300, 62.1):
            rows = con.execute("""SELECT percentile(x, ?) OVER (ORDER BY g ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING)
                                  FROM t ORDER BY g""", (p,)).fetchall()
            for i, (got,) in enumerate(rows):
                want = oracle(values[max(0, i - 3):i + 2], p)
                self.assertTrue(same(got, want), (i, p, got, want))

    def test_integer_p_matches_real_p(self):
        # p = 90 bound as INTEGER and as REAL: the same exact rank.
        values = [I64_MIN, 3, 2**61 + 7]
        for p in (90, 90.0):
            got = self.con.execute("SELECT percentile(value, ?) FROM json_each(?)", (p, str(values))).fetchone()[0]
            self.assertTrue(same(got, oracle(values, 90)), (p, got))


if __name__ == "__main__":
    unittest.main(verbosity=2)
