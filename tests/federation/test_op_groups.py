"""rocpd_op_groups, the summary engine (docs/summaries.md): every grouping and kind filter against a
brute-force aggregation in Python of the rows of rocpd_ops (count, sum, mean, median, extremes,
sample stddev, union of intervals, first start / last end), members attached and opened alike;
`db =` pruning; the SQL fallback for hostile values; argument errors; interrupts while the
member threads run."""
import json
import math
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
import unittest

from rocpd_testlib import SETS, connect, main, set_files

GROUPINGS = ["db,gpu", "db,gpu,kind", "name", "kind,name", "db,name", "gpu", "db", "kind", "db,gpu,kind,name"]
COLUMNS = ["db", "gpu", "kind", "name", "instances", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns",
           "stddev_ns", "busy_ns", "first_start", "last_end", "timed"]


def union_length(intervals):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def median(values):
    v = sorted(values)
    n = len(v)
    if n % 2:
        return v[n // 2]
    a, b = v[n // 2 - 1], v[n // 2]
    return (a + b) // 2 if (a + b) % 2 == 0 else (a + b) / 2


def brute_force(rows, keys, kind=None):
    """rows: (db, gpu, kind, name, start, end) tuples."""
    groups = {}
    for db, gpu, k, name, start, end in rows:
        if kind is not None and k != kind:
            continue
        values = {"db": db, "gpu": gpu, "kind": k, "name": name}
        key = tuple(values[c] if c in keys else None for c in ("db", "gpu", "kind", "name"))
        groups.setdefault(key, []).append((start, end))
    out = {}
    for key, ops in groups.items():
        durations = [max(e - s, 0) for s, e in ops if s is not None and e is not None]
        spans = [(s, e) for s, e in ops if s is not None and e is not None and e >= s]
        out[key] = {
            "instances": len(ops), "timed": len(durations),
            "total_ns": sum(durations) if durations else None,
            "avg_ns": sum(durations) / len(durations) if durations else None,
            "med_ns": median(durations) if durations else None,
            "min_ns": min(durations) if durations else None,
            "max_ns": max(durations) if durations else None,
            "stddev_ns": statistics.stdev(durations) if len(durations) > 1 else None,
            "busy_ns": union_length([(s, e) for s, e in spans if e > s]),
            "first_start": min(s for s, _ in spans) if spans else None,
            "last_end": max(e for _, e in spans) if spans else None,
        }
    return out


def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


class OpGroups(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        files = set_files("mixed8")
        cls.con = connect()
        # Two members attached (read on the connection's thread), the others opened (pool threads).
        for i, f in enumerate(files[:2]):
            cls.con.execute("ATTACH ? AS ?", (f"file:{f}?mode=ro", f"att{i}"))
        for f in files[2:]:
            cls.con.execute("SELECT rocpd_open(?)", (f,))
        cls.rows = cls.con.execute('SELECT db, gpu, kind, name, start, "end" FROM rocpd_ops').fetchall()
        assert len(cls.rows) >= 16000

    def check(self, got_rows, want, label):
        got = {}
        for r in got_rows:
            d = dict(zip(COLUMNS, r))
            got[(d["db"], d["gpu"], d["kind"], d["name"])] = d
        self.assertEqual(set(got), set(want), label)
        for key, w in want.items():
            for col, value in w.items():
                self.assertTrue(close(got[key][col], value), (label, key, col, got[key][col], value))

    def test_every_grouping_against_brute_force(self):
        for keys in GROUPINGS:
            for kind in (None, "kernel", "copy"):
                with self.subTest(group_by=keys, of_kind=kind):
                    args = (keys,) if kind is None else (keys, kind)
                    sql = f"SELECT {', '.join(COLUMNS)} FROM rocpd_op_groups({', '.join('?' * len(args))})"
                    got = self.con.execute(sql, args).fetchall()
                    self.check(got, brute_force(self.rows, keys.split(","), kind), (keys, kind))

    def test_durations_are_the_groups_durations(self):
        # The hidden column: every non-NULL duration of the group, in any order.
        for keys in ("name", "db,gpu,kind"):
            with self.subTest(group_by=keys):
                got = {}
                for r in self.con.execute("SELECT db, gpu, kind, name, durations FROM rocpd_op_groups(?)", (keys,)):
                    got[tuple(r[:4])] = sorted(json.loads(r[4]))
                want = {}
                for db, gpu, k, name, start, end in self.rows:
                    values = {"db": db, "gpu": gpu, "kind": k, "name": name}
                    key = tuple(values[c] if c in keys.split(",") else None for c in ("db", "gpu", "kind", "name"))
                    want.setdefault(key, [])
                    if start is not None and end is not None:
                        want[key].append(max(end - start, 0))
                self.assertEqual(got, {k: sorted(v) for k, v in want.items()})
        self.assertNotIn("durations", [d[0] for d in self.con.execute(
            "SELECT * FROM rocpd_op_groups('kind')").description])

    def test_rows_ordered_like_group_by(self):
        got = self.con.execute("SELECT db, gpu FROM rocpd_op_groups('db,gpu')").fetchall()
        want = self.con.execute("SELECT db, gpu FROM rocpd_ops GROUP BY db, gpu").fetchall()
        self.assertEqual(got, want)

    def test_db_pruning_keeps_rows_and_rowids(self):
        full = self.con.execute("SELECT rowid, * FROM rocpd_op_groups('db,name', 'kernel')").fetchall()
        for db in ("att1", "rank5", "nope"):
            one = self.con.execute("SELECT rowid, * FROM rocpd_op_groups('db,name', 'kernel') WHERE db = ?",
                                   (db,)).fetchall()
            self.assertEqual(one, [r for r in full if r[1] == db], db)
        rowids = [r[0] for r in full]
        self.assertEqual(len(rowids), len(set(rowids)))

    def test_views_read_the_engine(self):
        # rocpd_busy equals the brute-force union and sum per (db, gpu).
        want = brute_force(self.rows, ["db", "gpu"])
        got = self.con.execute("SELECT db, gpu, busy_ns, span_ns, sum_ns, ops FROM rocpd_busy").fetchall()
        # One row per (db, gpu) of the brute force, no more, no fewer (an empty answer fails).
        self.assertEqual(len(want), len({(db, gpu) for db, gpu, *_ in got}))
        self.assertEqual(sorted((k[0], k[1]) for k in want), sorted((r[0], r[1]) for r in got))
        self.assertGreaterEqual(len(got), 16)
        for db, gpu, busy_ns, span_ns, sum_ns, ops in got:
            w = want[(db, gpu, None, None)]
            self.assertEqual((busy_ns, span_ns, sum_ns, ops),
                             (w["busy_ns"], w["last_end"] - w["first_start"], w["total_ns"], w["instances"]))

    def test_argument_errors(self):
        cases = {
            "SELECT * FROM rocpd_op_groups": "rocpd_op_groups: no grouping given; use rocpd_op_groups(group_by",
            "SELECT * FROM rocpd_op_groups('db,pid')": "unknown grouping column 'pid' in 'db,pid'",
            "SELECT * FROM rocpd_op_groups('name,name')": "'name' appears twice in 'name,name'",
            "SELECT * FROM rocpd_op_groups('')": "unknown grouping column '' in ''",
            "SELECT * FROM rocpd_op_groups(3)": "group_by must be text",
        }
        for sql, message in cases.items():
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    self.con.execute(sql).fetchall()
                self.assertIn(message, str(cm.exception))
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_op_groups(NULL)").fetchone(), (0,))

    def test_interrupt_stops_member_threads(self):
        # The engine runs once per row of the outer CTE (the argument depends on it): a long query
        # whose time is spent inside the engine's threads.
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        stopped = {}
        timer = threading.Timer(1.0, lambda: (stopped.setdefault("at", time.monotonic()), con.interrupt()))
        timer.start()
        try:
            with self.assertRaises(sqlite3.OperationalError) as cm:
                con.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000) "
                            "SELECT count(*) FROM c, rocpd_op_groups AS g "
                            "WHERE g.group_by = 'db,name' || substr(c.x, 1, 0) AND g.med_ns > 0").fetchall()
        finally:
            timer.cancel()
        latency = time.monotonic() - stopped["at"]
        self.assertIn("interrupted", str(cm.exception))
        self.assertLess(latency, 0.5 * float(os.environ.get("ROCPD_TIMING_SCALE", "1")))


class Fallback(unittest.TestCase):
    """A member whose times are not all integers: the engine answers through SQL, identically."""

    def test_text_and_real_times(self):
        d = tempfile.mkdtemp()
        try:
            src = [f for f in set_files("same_rpd2")][0]
            dst = os.path.join(d, "hostile.rpd")
            shutil.copy(src, dst)
            raw = sqlite3.connect(dst)
            ids = [r[0] for r in raw.execute("SELECT id FROM rocpd_op ORDER BY id LIMIT 3")]
            raw.execute("UPDATE rocpd_op SET start = start + 0.5 WHERE id = ?", (ids[0],))
            raw.execute("UPDATE rocpd_op SET \"end\" = 'abc' WHERE id = ?", (ids[1],))
            raw.commit()
            raw.close()
            con = connect()
            con.execute("SELECT rocpd_open(?)", (dst,))
            sql_side = ("SELECT name, count(*), sum(duration), avg(duration), median(duration), min(duration), "
                        "max(duration), count(duration) FROM rocpd_ops GROUP BY name ORDER BY name")
            got = con.execute("SELECT name, instances, total_ns, avg_ns, med_ns, min_ns, max_ns, timed "
                              "FROM rocpd_op_groups('name')").fetchall()
            self.assertEqual(got, con.execute(sql_side).fetchall())
            # durations: a JSON array only for groups of integer durations (the real one's group: NULL).
            durations = dict(con.execute("SELECT name, durations FROM rocpd_op_groups('name')").fetchall())
            want = {}
            for name, value in con.execute("SELECT name, duration FROM rocpd_ops"):
                want.setdefault(name, [])
                want[name].append(value)
            for name, values in want.items():
                if any(isinstance(v, float) for v in values):
                    self.assertIsNone(durations[name], name)
                else:
                    self.assertEqual(sorted(json.loads(durations[name])), sorted(v for v in values if v is not None))
            self.assertTrue(any(v is None for v in durations.values()))
            # The union refuses a real start, as interval_union does.
            with self.assertRaises(sqlite3.OperationalError) as cm:
                con.execute("SELECT busy_ns FROM rocpd_op_groups('db,gpu')").fetchall()
            self.assertIn("interval_union: start must be an integer", str(cm.exception))
        finally:
            shutil.rmtree(d)



class ManyMembers(unittest.TestCase):
    """Grouped by db over more members than one engine batch (256): the rows, their order and their
    rowids equal SQL's GROUP BY over rocpd_ops and the `db =` scans; a member the engine cannot
    read (a real start) in a later batch sends the rest of the scan to SQL without a row twice."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        subprocess.run([os.environ["ROCPD_GEN"], "--out", cls.dir, "--procs", "600", "--format", "rpd3", "--ops",
                        "30", "--seed", "5", "--gpus", "2"], check=True, stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def check(self, con):
        got = con.execute("SELECT rowid, db, name, instances, total_ns, med_ns FROM rocpd_op_groups('db,name')").fetchall()
        want = con.execute("SELECT db, name, count(*), sum(duration), median(duration) FROM rocpd_ops "
                           "GROUP BY db, name").fetchall()
        self.assertEqual(sorted(r[1:] for r in got), sorted(want))
        self.assertEqual(len(got), len({r[0] for r in got}))
        order = [int(r[1][4:]) for r in got]  # rank<i>: members in natural order
        self.assertEqual(order, sorted(order))
        for db in ("rank3", "rank300", "rank599"):
            one = con.execute("SELECT rowid, db, name, instances, total_ns, med_ns FROM rocpd_op_groups('db,name') "
                              "WHERE db = ?", (db,)).fetchall()
            self.assertEqual(one, [r for r in got if r[1] == db], db)
        return got

    def test_engine_batches(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(self.dir, "*.rpd"),))
        self.assertGreater(len(self.check(con)), 600)

    def test_sql_after_a_batch(self):
        d = tempfile.mkdtemp()
        try:
            for f in os.listdir(self.dir):
                shutil.copy(os.path.join(self.dir, f), d)
            raw = sqlite3.connect(os.path.join(d, "rank400.rpd"))
            raw.execute("UPDATE rocpd_op SET start = start + 0.5 WHERE id = (SELECT min(id) FROM rocpd_op)")
            raw.commit()
            raw.close()
            con = connect()
            con.execute("SELECT rocpd_open(?)", (os.path.join(d, "*.rpd"),))
            got = self.check(con)
            self.assertTrue(any(isinstance(r[4], float) for r in got if r[1] == "rank400"))
        finally:
            shutil.rmtree(d)


class OverflowingSum(unittest.TestCase):
    """A group whose sum of durations an integer cannot hold: reading its total_ns fails, as SQL's
    sum() does, and only that: the group's other columns answer, and the other groups' total_ns,
    on the engine and on the SQL path alike."""

    def check(self, odd):
        d = tempfile.mkdtemp()
        try:
            dst = os.path.join(d, "big.rpd")
            shutil.copy(set_files("same_rpd2")[0], dst)
            raw = sqlite3.connect(dst)
            desc = raw.execute("SELECT description_id FROM rocpd_op GROUP BY 1 HAVING count(*) >= 3 ORDER BY 1").fetchone()[0]
            raw.execute('UPDATE rocpd_op SET "end" = start + 4000000000000000000 WHERE description_id = ?', (desc,))
            if odd:  # a real start elsewhere: the whole query takes the SQL path
                raw.execute("UPDATE rocpd_op SET start = start + 0.5 WHERE id = (SELECT min(id) FROM rocpd_op "
                            "WHERE description_id <> ?)", (desc,))
            raw.commit()
            raw.close()
            con = connect()
            con.execute("SELECT rocpd_open(?)", (dst,))
            durations = {}
            for name, start, end in con.execute('SELECT name, start, "end" FROM rocpd_ops'):
                durations.setdefault(name, []).append(max(end - start, 0))
            bigs = [k for k, v in durations.items() if sum(v) > 2 ** 63 - 1]  # (a description may name several ops)
            self.assertTrue(bigs)
            got = con.execute("SELECT name, instances, timed, avg_ns, min_ns, max_ns, med_ns, stddev_ns "
                              "FROM rocpd_op_groups('name')").fetchall()
            self.assertEqual(len(got), len(durations))
            for name, n, timed, avg, lo, hi, med, sd in got:
                v = durations[name]
                self.assertEqual((n, timed, lo, hi), (len(v), len(v), min(v), max(v)), name)
                self.assertTrue(math.isclose(avg, sum(v) / len(v), rel_tol=1e-12), (name, avg))
                self.assertTrue(math.isclose(med, statistics.median(v), rel_tol=1e-12), (name, med))
                if len(v) > 1:
                    self.assertTrue(math.isclose(sd, statistics.stdev(v), rel_tol=1e-9), (name, sd))
            with self.assertRaisesRegex(sqlite3.OperationalError, "rocpd_op_groups: integer overflow"):
                con.execute("SELECT name, total_ns FROM rocpd_op_groups('name')").fetchall()
            others = con.execute("SELECT name, total_ns FROM rocpd_op_groups('name') WHERE name NOT IN (%s)"
                                 % ", ".join("?" * len(bigs)), bigs).fetchall()
            self.assertEqual(sorted(others), sorted((k, sum(v) if all(isinstance(x, int) for x in v) else float(sum(v)))
                                                    for k, v in durations.items() if k not in bigs))
        finally:
            shutil.rmtree(d)

    def test_engine(self):
        self.check(odd=False)

    def test_sql_path(self):
        self.check(odd=True)

if __name__ == "__main__":
    main()
