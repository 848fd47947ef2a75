"""rocpd_api_groups, the summary engine over rocpd_apis (docs/summaries.md): every grouping subset
of db, pid, tid, domain, name against SQLite's own GROUP BY over a native copy of rocpd_apis (the
independent computation), members attached and opened alike; row order; `db =` pruning and rowids;
NULL keys; the SQL fallback for a real time; argument errors."""
import itertools
import json
import os
import shutil
import sqlite3
import tempfile
import unittest

from rocpd_testlib import connect, main, set_files

KEYS = ["db", "pid", "tid", "domain", "name"]
FIGURES = ["instances", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns", "first_start", "last_end",
           "timed"]
SQL_FIGURES = ('count(*), sum(duration), avg(duration), median(duration), min(duration), max(duration), '
               'stddev(duration), min(start) FILTER (WHERE "end" >= start), max("end") FILTER (WHERE "end" >= start), '
               'count(duration)')


def groupings():
    for r in range(1, len(KEYS) + 1):
        yield from itertools.combinations(KEYS, r)


# rocpd_api_groups' declared types: a plain table of these columns stores what the table must return
# (instances INTEGER holds 3 as 3; total_ns, med_ns, min_ns, max_ns are untyped: a sum() of real
# durations stays 7455.0, as the aggregate gives it; first_start INTEGER holds a min(start) of 12.0 as 12).
TYPED = ("db TEXT, pid INTEGER, tid INTEGER, domain TEXT, name TEXT, instances INTEGER, total_ns, avg_ns REAL, "
         "med_ns, min_ns, max_ns, stddev_ns REAL, first_start INTEGER, last_end INTEGER, timed INTEGER")


def native_groups(con, keys, where=""):
    """SQLite's GROUP BY over the native copy, stored in a plain table of the declared types."""
    sel = ", ".join(k if k in keys else "NULL" for k in KEYS)
    con.execute("DROP TABLE IF EXISTS temp.want")
    con.execute(f"CREATE TEMP TABLE want({TYPED})")
    con.execute(f"INSERT INTO want SELECT {sel}, {SQL_FIGURES} FROM native_apis {where} "
                f"GROUP BY {', '.join(keys)} ORDER BY {', '.join(keys)}")
    return con.execute("SELECT * FROM want ORDER BY rowid").fetchall()


def engine_groups(con, keys, where=""):
    return con.execute(f"SELECT {', '.join(KEYS + FIGURES)} FROM rocpd_api_groups(?) {where}",
                       (",".join(keys),)).fetchall()


def close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))  # stddev: from exact integer sums
    return type(a) is type(b) and a == b


class ApiGroups(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        files = set_files("mixed8")
        cls.con = connect()
        # Two members attached (read on the connection's thread), the others opened (pool threads).
        for i, f in enumerate(files[:2]):
            cls.con.execute("ATTACH ? AS ?", (f"file:{f}?mode=ro", f"att{i}"))
        for f in files[2:]:
            cls.con.execute("SELECT rocpd_open(?)", (f,))
        cls.con.execute("CREATE TEMP TABLE native_apis AS SELECT * FROM rocpd_apis")
        n, domains, names = cls.con.execute(
            "SELECT count(*), count(DISTINCT domain), count(DISTINCT name) FROM native_apis").fetchone()
        assert n >= 16000 and domains >= 2 and names >= 20, (n, domains, names)

    def assert_same(self, got, want, label):
        self.assertEqual(len(got), len(want), label)
        for g, w in zip(got, want):
            self.assertTrue(all(close(a, b) for a, b in zip(g, w)), (label, g, w))

    def test_every_grouping_against_native_group_by(self):
        for keys in groupings():
            with self.subTest(group_by=keys):
                # Rows come in GROUP BY's order (db in natural order: rank names sort alike here).
                self.assert_same(engine_groups(self.con, keys), native_groups(self.con, keys), keys)

    def test_durations_are_the_groups_durations(self):
        for keys in (("name",), ("db", "tid")):
            with self.subTest(group_by=keys):
                got = {tuple(r[:-1]): sorted(json.loads(r[-1])) for r in self.con.execute(
                    f"SELECT {', '.join(keys)}, durations FROM rocpd_api_groups(?)", (",".join(keys),))}
                want = {tuple(r[:-1]): sorted(json.loads(r[-1])) for r in self.con.execute(
                    f"SELECT {', '.join(keys)}, json_group_array(duration) FILTER (WHERE duration IS NOT NULL) "
                    f"FROM native_apis GROUP BY {', '.join(keys)}")}
                self.assertEqual(got, want)
                self.assertGreater(sum(len(v) for v in got.values()), 16000)

    def test_db_pruning_keeps_rows_and_rowids(self):
        full = self.con.execute("SELECT rowid, * FROM rocpd_api_groups('db,tid,name')").fetchall()
        for db in ("att1", "rank5", "nope"):
            one = self.con.execute("SELECT rowid, * FROM rocpd_api_groups('db,tid,name') WHERE db = ?",
                                   (db,)).fetchall()
            self.assertEqual(one, [r for r in full if r[1] == db], db)
        self.assertGreater(len(full), 100)
        rowids = [r[0] for r in full]
        self.assertEqual(len(rowids), len(set(rowids)))
        # Rows of different groupings never share a rowid.
        every = [r[0] for keys in groupings()
                 for r in self.con.execute("SELECT rowid FROM rocpd_api_groups(?)", (",".join(keys),))]
        self.assertEqual(len(every), len(set(every)))

    def test_declared_types(self):
        got = [(r[1], r[2]) for r in self.con.execute("PRAGMA table_info(rocpd_api_groups)")]
        self.assertEqual(got, [tuple(c.split(" ")) if " " in c else (c, "") for c in TYPED.split(", ")])

    def test_argument_errors(self):
        cases = {
            "SELECT * FROM rocpd_api_groups": "rocpd_api_groups: no grouping given; use rocpd_api_groups(group_by",
            "SELECT * FROM rocpd_api_groups('db,gpu')": "unknown grouping column 'gpu' in 'db,gpu'",
            "SELECT * FROM rocpd_api_groups('tid,tid')": "'tid' appears twice in 'tid,tid'",
            "SELECT * FROM rocpd_api_groups(3)": "group_by must be text",
        }
        for sql, message in cases.items():
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    self.con.execute(sql).fetchall()
                self.assertIn(message, str(cm.exception))
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_api_groups(NULL)").fetchone(), (0,))

    def test_direct_only(self):
        con = connect()
        con.execute("CREATE VIEW v AS SELECT * FROM rocpd_api_groups('name')")
        with self.assertRaisesRegex(sqlite3.OperationalError, "unsafe use of virtual table"):
            con.execute("SELECT * FROM v").fetchall()


class NullsAndFallback(unittest.TestCase):
    """An rpd member whose API calls have NULL pid, tid and names (engine path), then a real start
    (the SQL path over temp.rocpd_apis): both answer as the native GROUP BY."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.path = os.path.join(cls.dir, "nulls.rpd")
        shutil.copy(set_files("same_rpd2")[0], cls.path)
        raw = sqlite3.connect(cls.path)
        # The file declares these columns NOT NULL: copy the table without the constraints.
        raw.executescript("""
            PRAGMA legacy_alter_table = ON;  -- the file's views name rocpd_api: left as they are
            CREATE TABLE api2 (id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
                               apiName_id INTEGER, args_id INTEGER);
            INSERT INTO api2 SELECT * FROM rocpd_api;
            DROP TABLE rocpd_api;
            ALTER TABLE api2 RENAME TO rocpd_api;
            UPDATE rocpd_api SET pid = NULL WHERE id % 7 = 0;
            UPDATE rocpd_api SET tid = NULL WHERE id % 5 = 0;
            UPDATE rocpd_api SET apiName_id = NULL WHERE id % 11 = 0;
            UPDATE rocpd_api SET "end" = NULL WHERE id % 13 = 0;
        """)
        raw.commit()
        raw.close()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def check_all(self, con):
        con.execute("CREATE TEMP TABLE IF NOT EXISTS native_apis AS SELECT * FROM rocpd_apis")
        for keys in groupings():
            with self.subTest(group_by=keys):
                want = native_groups(con, keys)
                got = engine_groups(con, keys)
                self.assertEqual(len(got), len(want), keys)
                for g, w in zip(got, want):
                    self.assertTrue(all(close(a, b) for a, b in zip(g, w)), (keys, g, w))

    def test_null_keys(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.path,))
        nulls = con.execute("SELECT count(*) - count(pid), count(*) - count(tid), count(*) - count(name), "
                            "count(*) - count(duration) FROM rocpd_apis").fetchone()
        self.assertTrue(all(n > 0 for n in nulls), nulls)
        self.check_all(con)

    def test_real_time_answers_by_sql(self):
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "real.rpd")
            shutil.copy(self.path, path)
            raw = sqlite3.connect(path)
            raw.execute("UPDATE rocpd_api SET start = start + 0.5 WHERE id = (SELECT min(id) FROM rocpd_api)")
            raw.commit()
            raw.close()
            con = connect()
            con.execute("SELECT rocpd_open(?)", (path,))
            self.assertEqual(con.execute("SELECT count(*) FROM rocpd_apis WHERE typeof(start) = 'real'").fetchone(),
                             (1,))
            self.check_all(con)
            # durations on this path: a JSON array for groups of integer durations, NULL for the real one's.
            got = dict(con.execute("SELECT name, durations FROM rocpd_api_groups('name')").fetchall())
            want = {}
            for name, value in con.execute("SELECT name, duration FROM native_apis"):
                want.setdefault(name, []).append(value)
            self.assertEqual(set(got), set(want))
            self.assertEqual(sum(1 for v in got.values() if v is None), 1)
            for name, values in want.items():
                if any(isinstance(v, float) for v in values):
                    self.assertIsNone(got[name], name)
                else:
                    self.assertEqual(sorted(json.loads(got[name])), sorted(v for v in values if v is not None), name)
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
