"""The virtual-table contract and hostile input (issue 8): every federated table answers like a plain
table holding the same rows, and no file, argument or fault crashes, hangs or gives a silently wrong
number. One test (or more) per defect measured; expected values come from plain copies of the same
rows, from rows written by hand, or from a brute-force computation here (run by /usr/bin/python3)."""
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rocpd_testlib import EXT, SHARED_DATA, connect, generate, main, set_files  # noqa: E402
from tiny_traces import make_rpd  # noqa: E402

# Latency bounds are for the plain build; sanitizer builds scale them (tests/CMakeLists.txt).
TIMING_SCALE = float(os.environ.get("ROCPD_TIMING_SCALE", "1"))


def rows(con, sql, args=()):
    return con.execute(sql, args).fetchall()


def mixed_con():
    """mixed8 (rpd v2/v3 and rocprofv3 files) opened, one more set attached."""
    con = connect()
    con.execute("SELECT rocpd_open(?)", (os.path.dirname(set_files("mixed8")[0]),))
    con.execute("ATTACH ? AS att", (set_files("same_rocpd")[0],))
    return con


class RowidsAndOrPlans(unittest.TestCase):
    """Defect 1: SQLite's multi-index OR plan de-duplicates by rowid."""

    @classmethod
    def setUpClass(cls):
        cls.con = mixed_con()
        cls.con.execute("CREATE VIRTUAL TABLE temp.u USING rocpd_union(rocpd_op)")

    TABLES = {
        "rocpd_ops": ("db = 'rank1' OR gpu = 0", "db = 'rank1'"),
        "rocpd_apis": ("db = 'rank2' OR tid = (SELECT min(tid) FROM rocpd_apis)", "db = 'rank2'"),
        "temp.u": ("db = 'rank0' OR gpuId = 1", "db = 'rank0'"),
        "rocpd_busy_intervals": ("db = 'rank1' OR gpu = 0", "db = 'rank1'"),
        "rocpd_gaps": ("db = 'rank1' OR gpu = 0", "db = 'rank1'"),
        "rocpd_utilization(1000000)": ("db = 'rank1' OR gpu = 0", "db = 'rank1'"),
        "rocpd_union('top')": ("db = 'rank1' OR calls = 1", "db = 'rank1'"),
        "rocpd_members": ("db = 'rank1' OR format = 'rocpd'", "db = 'rank1'"),
    }

    def test_or_keeps_every_row(self):
        for i, (table, (where, _)) in enumerate(self.TABLES.items()):
            with self.subTest(table=table):
                self.con.execute(f"CREATE TEMP TABLE copy{i} AS SELECT * FROM {table}")
                got = rows(self.con, f"SELECT count(*) FROM {table} WHERE {where}")
                want = rows(self.con, f"SELECT count(*) FROM copy{i} WHERE {where}")
                self.assertEqual(got, want)
                self.assertGreater(want[0][0], 0)

    def test_or_over_a_table_valued_argument(self):
        # The hidden argument is re-checked on the rows of a multi-index OR: it must read back.
        for table in ("rocpd_union('markers')", "rocpd_busy_intervals(0)", "rocpd_utilization(1000000)"):
            with self.subTest(table=table):
                sql = f"SELECT count(*) FROM {table} WHERE db IN ('x', 'rank1') OR db = 'rank1'"
                self.assertEqual(rows(self.con, sql), rows(self.con, f"SELECT count(*) FROM {table} WHERE db = 'rank1'"))
                self.assertGreater(rows(self.con, sql)[0][0], 0)

    def test_rowids_unique_and_stable(self):
        for table, (_, subset) in self.TABLES.items():
            with self.subTest(table=table):
                n, distinct = rows(self.con, f"SELECT count(*), count(DISTINCT rowid) FROM {table}")[0]
                self.assertEqual(n, distinct)
                # The rows of a subset keep the rowids they have in the whole table.
                whole = set(rows(self.con, f"SELECT rowid, * FROM {table}"))
                part = set(rows(self.con, f"SELECT rowid, * FROM {table} WHERE {subset}"))
                self.assertTrue(part)
                self.assertTrue(part <= whole, sorted(part - whole)[:3])


class InLists(unittest.TestCase):
    """`col IN (...)` on a column the members hold no index for answers in a plain table's row
    order (SQLite handed the values one at a time, each filter's rows came in the list's order)."""

    def test_rows_come_in_a_plain_tables_order(self):
        con = mixed_con()
        cases = {"rocpd_ops": "gpu IN (2, '', 1, 0, NULL)", "rocpd_copies": "gpu IN (2, '', 1, 0, NULL)",
                 "rocpd_kernels": "gpu IN (1, 0)", "rocpd_apis": "tid IN (SELECT DISTINCT tid FROM rocpd_apis)",
                 "rocpd_ops ": "kind IN ('copy', 'kernel')"}
        for i, (table, where) in enumerate(cases.items()):
            with self.subTest(table=table, where=where):
                con.execute(f"CREATE TEMP TABLE in_copy{i} AS SELECT * FROM {table}")
                sql = "SELECT count(*), group_concat(db || ':' || rowid_of) FROM (SELECT db, {key} AS rowid_of FROM {t} WHERE {w})"
                key = "api_id" if table == "rocpd_apis" else "op_id"
                got = rows(con, sql.format(key=key, t=table, w=where))
                want = rows(con, sql.format(key=key, t=f"in_copy{i}", w=where))
                self.assertGreater(want[0][0], 1)
                self.assertEqual(got, want)


class Collations(unittest.TestCase):
    """Defect 2: constraints were omitted (or compared in the member) under the wrong collation."""

    @classmethod
    def setUpClass(cls):
        cls.con = mixed_con()
        cls.con.execute("CREATE TEMP TABLE ops AS SELECT * FROM rocpd_ops")

    def same(self, where, table="rocpd_ops", copy="ops"):
        got = rows(self.con, f"SELECT count(*) FROM {table} WHERE {where}")
        want = rows(self.con, f"SELECT count(*) FROM {copy} WHERE {where}")
        self.assertEqual(got, want, where)
        return want[0][0]

    def test_db_and_name_nocase(self):
        self.assertEqual(self.same("db = 'RANK1' COLLATE NOCASE"), self.same("db = 'rank1'"))
        name = rows(self.con, "SELECT name FROM ops WHERE kind = 'kernel' LIMIT 1")[0][0]
        self.assertGreater(self.same(f"name = '{name.upper()}' COLLATE NOCASE"), 0)
        self.assertGreater(self.same(f"name = '{name}   ' COLLATE RTRIM"), 0)
        self.assertGreater(self.same(f"name > '{name.upper()}' COLLATE NOCASE"), 0)

    def test_application_collation_and_like(self):
        self.con.create_collation("reverse", lambda a, b: (a < b) - (a > b))
        self.assertGreater(self.same("name >= 'Zzzz' COLLATE reverse"), 0)
        self.assertGreater(self.same("name LIKE 'cijk%'"), 0)
        # An application LIKE (ICU-style) must not be second-guessed by the members' built-in one.
        con = mixed_con()
        con.create_function("like", 2, lambda pattern, value: value is not None and value.endswith("LL"))
        got = rows(con, "SELECT count(*) FROM rocpd_ops WHERE name LIKE 'nothing like this'")[0][0]
        want = rows(con, "SELECT count(*) FROM (SELECT name FROM rocpd_ops) WHERE name LIKE 'nothing like this'")[0][0]
        self.assertEqual(got, want)
        self.assertGreater(want, 0)

    def test_refilters_with_values_of_other_types(self):
        # One cursor filtered with gpu = 0 (compared in the members) then gpu = '0' (left to
        # SQLite): the second filter must not reuse the first one's member query.
        con = self.con
        con.execute("CREATE TEMP TABLE IF NOT EXISTS k(v)")
        con.execute("DELETE FROM k")
        con.executemany("INSERT INTO k VALUES (?)", [(0,), ("0",), (1.0,), ("kernel",)])
        for sql in ("SELECT k.v, count(*) FROM {t} AS o, k WHERE o.gpu = k.v GROUP BY 1",
                    "SELECT k.v, count(*) FROM {t} AS o, k WHERE o.kind = k.v GROUP BY 1"):
            with self.subTest(sql=sql):
                self.assertEqual(rows(con, sql.format(t="rocpd_ops")), rows(con, sql.format(t="ops")))
        kinds = con.execute("SELECT DISTINCT kind FROM ops").fetchall()
        con.execute("DELETE FROM k")
        con.executemany("INSERT INTO k VALUES (?)", kinds)
        sql = "SELECT k.v, count(*) FROM {t} AS o, k WHERE o.kind = k.v GROUP BY 1"
        self.assertEqual(rows(con, sql.format(t="rocpd_ops")), rows(con, sql.format(t="ops")))

    def test_time_bounds_keep_every_api_source(self):
        # rocprofv3 members have two API sources (regions, instant marks): a time bound kept one.
        con = self.con
        con.execute("CREATE TEMP TABLE IF NOT EXISTS apis AS SELECT * FROM rocpd_apis")
        sql = "SELECT db, domain, count(*) FROM {t} WHERE start >= 2.5 GROUP BY 1, 2"
        self.assertEqual(rows(con, sql.format(t="rocpd_apis")), rows(con, sql.format(t="apis")))

    def test_values_of_other_types(self):
        for where in ("db = 1", "gpu = '1'", "gpu = 1.0", "start > '0'", "name = x'00'", "db = NULL", "gpu IN (1, '2')",
                      "kind = 'KERNEL' COLLATE NOCASE"):
            with self.subTest(where=where):
                self.same(where)


class HostileRows(unittest.TestCase):
    """Defects 3 and 8 on hand-made rows: dangling ids, reversed ops, overflowing sums, empty strings."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_contract_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_rows_never_vanish(self):
        # Op 2 names string 99 (missing), op 3 a NULL id, op 4 a dangling op type; API 2 a missing name.
        p = make_rpd(os.path.join(self.tmp, "d.rpd"),
                     ops=[(0, 0, 10, 5, 2), (0, 10, 20, 99, 2), (0, 20, 30, None, 2), (0, 30, 40, 1, 77)],
                     apis=[(1, 1, 0, 5, 4, 1, 1, 1), (1, 1, 5, 6, 98, 1, 1, 1)])
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops"), [(4,)])
        self.assertEqual(rows(con, "SELECT count(name), count(*) FROM rocpd_ops"), [(1, 4)])
        self.assertEqual(rows(con, "SELECT name, kind FROM rocpd_ops ORDER BY start"),
                         [("kernel_a", "kernel"), (None, "kernel"), (None, "kernel"), (None, "other")])
        self.assertEqual(rows(con, "SELECT count(*), count(name) FROM rocpd_apis"), [(2, 1)])
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops o JOIN rocpd_apis a USING (db)"), [(8,)])
        self.assertEqual(rows(con, "SELECT sum(calls) FROM rocpd_union('top')"), [(4,)])
        # An op without an op type reads kind 'other', and `kind = 'other'` finds it.
        make_rpd(os.path.join(self.tmp, "k.rpd"), ops=[(0, 0, 10, 5, 2), (0, 10, 20, 5, None), (0, 20, 30, 5, 77)])
        con.execute("SELECT rocpd_open(?)", (os.path.join(self.tmp, "k.rpd"),))
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops WHERE db = 'k' AND kind = 'other'"), [(2,)])
        self.assertEqual(rows(con, "SELECT kind FROM rocpd_ops WHERE db = 'k' ORDER BY start"),
                         [("kernel",), ("other",), ("other",)])

    def test_reversed_ops_count_zero_everywhere(self):
        # 10 ns, a reversed op (start 30, end 20), 5 ns: every figure counts the reversed one as 0 ns.
        p = make_rpd(os.path.join(self.tmp, "r.rpd"), ops=[(0, 0, 10, 5, 2), (0, 30, 20, 5, 2), (0, 40, 45, 5, 2)])
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        self.assertEqual(rows(con, "SELECT duration FROM rocpd_ops ORDER BY start"), [(10,), (0,), (5,)])
        self.assertEqual(rows(con, "SELECT calls, total_ns, min_ns, max_ns FROM rocpd_union('ktop')"), [(3, 15, 0, 10)])
        self.assertEqual(rows(con, "SELECT instances, total_ns, min_ns FROM rocpd_kernel_summary"), [(3, 15, 0)])
        self.assertEqual(rows(con, "SELECT busy_ns, sum_ns FROM rocpd_busy"), [(15, 15)])
        self.assertEqual(rows(con, "SELECT negative FROM rocpd_check"), [(1,)])
        self.assertEqual(rows(con, "SELECT bad_ops FROM rocpd_members"), [(1,)])

    def test_sums_raise_integer_overflow(self):
        big = 5_000_000_000_000_000_000  # two of these exceed INT64_MAX
        p = make_rpd(os.path.join(self.tmp, "o.rpd"), ops=[(0, 0, big, 5, 2), (1, 0, big, 5, 2)])
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        for sql in ("SELECT * FROM rocpd_union('top')", "SELECT sum(duration) FROM rocpd_ops",
                    "SELECT * FROM rocpd_kernel_summary"):
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    rows(con, sql)
                self.assertIn("integer overflow", str(cm.exception))

    def test_empty_category_stays_empty(self):
        strings = {1: "", 2: "KernelExecution", 4: "hipLaunchKernel", 6: "hip"}
        p = make_rpd(os.path.join(self.tmp, "c.rpd"), strings=strings, apis=[(1, 1, 0, 5, 4, 1, 1, 6)])
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        self.assertEqual(rows(con, "SELECT category, domain FROM rocpd_apis"), [("", "hip")])

    def test_values_of_the_wrong_type_read_as_a_plain_table_stores_them(self):
        # Text in an INTEGER column, a real that is a whole number, a blob as a name.
        p = make_rpd(os.path.join(self.tmp, "t.rpd"), ops=[("1", 0, 10.0, 5, 2), (0, "abc", 5, 5, 2)],
                     strings={1: "", 2: "KernelExecution", 5: b"\x01\x02"})
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        con.execute("CREATE TEMP TABLE c AS SELECT * FROM rocpd_ops")
        self.assertEqual(rows(con, "SELECT typeof(gpu), typeof(\"end\"), typeof(name) FROM rocpd_ops ORDER BY rowid"),
                         rows(con, "SELECT typeof(gpu), typeof(\"end\"), typeof(name) FROM c ORDER BY rowid"))
        for where in ("gpu = 1", "start > 5", "start < 5", "\"end\" = 10", "name = x'0102'"):
            with self.subTest(where=where):
                self.assertEqual(rows(con, f"SELECT count(*) FROM rocpd_ops WHERE {where}"),
                                 rows(con, f"SELECT count(*) FROM c WHERE {where}"))


class MemberLifecycle(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_contract_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_truncated_then_restored(self):
        # Defect 5: SQLite's cached schema of the emptied file used to stick to the connection.
        p = os.path.join(self.tmp, "m.rpd")
        shutil.copy(set_files("same_rpd3")[0], p)
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        want = rows(con, "SELECT count(*) FROM rocpd_ops")
        with open(p, "rb") as f:
            data = f.read()
        open(p, "wb").close()
        with self.assertRaises(sqlite3.Error):
            rows(con, "SELECT count(*) FROM rocpd_ops")
        with open(p, "wb") as f:
            f.write(data)
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops"), want)

    def test_attached_tables_named_like_ours_do_not_replace_them(self):
        # Defect 6: a table called rocpd_ops / rocpd_members in an attached file.
        con = mixed_con()
        want = rows(con, "SELECT * FROM rocpd_busy ORDER BY db, gpu")
        want_k = rows(con, "SELECT total_ns, instances FROM rocpd_kernel_summary")
        want_u = rows(con, "SELECT count(*), sum(busy_ns) FROM rocpd_utilization(1000000)")
        decoy = os.path.join(self.tmp, "decoy.db")
        d = sqlite3.connect(decoy)
        d.execute('CREATE TABLE rocpd_ops(db TEXT, gpu INTEGER, start INTEGER, "end" INTEGER, kind TEXT, name TEXT, '
                  'duration INTEGER)')
        d.execute("INSERT INTO rocpd_ops VALUES ('evil', 0, 0, 1000000000, 'kernel', 'x', 1000000000)")
        d.execute("CREATE TABLE rocpd_members(db TEXT, first_ns INTEGER, last_ns INTEGER)")
        d.execute("INSERT INTO rocpd_members VALUES ('evil', 0, 1)")
        d.commit()
        d.close()
        con.execute("ATTACH ? AS decoy", (decoy,))
        self.assertEqual(rows(con, "SELECT * FROM rocpd_busy ORDER BY db, gpu"), want)
        self.assertEqual(rows(con, "SELECT total_ns, instances FROM rocpd_kernel_summary"), want_k)
        self.assertEqual(rows(con, "SELECT count(*), sum(busy_ns) FROM rocpd_utilization(1000000)"), want_u)

    def test_named_union_declared_types_cannot_inject_columns(self):
        # Defect 10: a declared type is text a hostile file controls.
        p = os.path.join(self.tmp, "h.db")
        h = sqlite3.connect(p)
        h.execute('CREATE TABLE kernels(a "INT, b TEXT, c", z TEXT)')
        h.execute("INSERT INTO kernels VALUES (1, 'one'), (2, 'two')")
        h.commit()
        h.close()
        con = connect()
        shutil.copy(set_files("same_rpd3")[0], os.path.join(self.tmp, "r.rpd"))
        rp = os.path.join(self.tmp, "r.rpd")
        w = sqlite3.connect(rp)
        w.execute('CREATE TABLE kernels(a "INT, b TEXT, c", z TEXT)')
        w.execute("INSERT INTO kernels VALUES (3, 'three')")
        w.commit()
        w.close()
        con.execute("SELECT rocpd_open(?)", (rp,))
        con.execute("CREATE VIRTUAL TABLE temp.k USING rocpd_union(kernels)")
        self.assertEqual([r[1] for r in rows(con, "PRAGMA table_info(k)")], ["db", "a", "z"])
        self.assertEqual(rows(con, "SELECT a, z FROM k WHERE z = 'three'"), [(3, "three")])

    def test_refilter_mid_scan(self):
        # Defect 11: a correlated subquery with LIMIT re-filters the cursor before its scan ends,
        # while prefetch threads still read; the answers must equal a plain copy's.
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.dirname(set_files("mixed8")[0]),))
        con.execute("CREATE TEMP TABLE c AS SELECT * FROM rocpd_ops")
        sql = ("WITH g(value) AS (VALUES (0), (1), (2), (3)) SELECT g.value, (SELECT sum(x) FROM "
               "(SELECT o.duration AS x FROM {t} AS o WHERE o.gpu >= g.value LIMIT 5000)) FROM g")
        self.assertEqual(rows(con, sql.format(t="rocpd_ops")), rows(con, sql.format(t="c")))

    def test_thread_start_failure_reads_inline(self):
        # Defect 12: with no thread to be had, the scan reads inline, no std::terminate.
        script = ("import sqlite3,sys;c=sqlite3.connect(':memory:');c.enable_load_extension(True);"
                  "c.load_extension(sys.argv[1]);c.execute('SELECT rocpd_open(?)',(sys.argv[2],));"
                  "print(c.execute('SELECT count(*), sum(duration) FROM rocpd_ops').fetchone(), "
                  "c.execute('SELECT rocpd_last_scan()').fetchone()[0])")
        d = os.path.dirname(set_files("mixed8")[0])
        env = dict(os.environ, ROCPD_FAULT="thread_start")
        out = subprocess.run([sys.executable, "-c", script, EXT, d], env=env, capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        con = connect()
        con.execute("SELECT rocpd_open(?)", (d,))
        want = rows(con, "SELECT count(*), sum(duration) FROM rocpd_ops")[0]
        self.assertIn(str(want), out.stdout)
        self.assertIn('"parallel":false', out.stdout)

    def test_fifo_is_refused_without_hanging(self):
        # Defect 13: opening a FIFO for reading waits for a writer forever.
        fifo = os.path.join(self.tmp, "x.rpd")
        os.mkfifo(fifo)
        script = ("import sqlite3,sys;c=sqlite3.connect(':memory:');c.enable_load_extension(True);"
                  "c.load_extension(sys.argv[1])\n"
                  "try: c.execute('SELECT rocpd_open(?)',(sys.argv[2],))\n"
                  "except sqlite3.Error as e: print(e)")
        out = subprocess.run([sys.executable, "-c", script, EXT, fifo], capture_output=True, text=True, timeout=20)
        self.assertIn("a FIFO, not a regular file", out.stdout)
        # In a directory or glob, a FIFO is not a trace file: it is passed over.
        shutil.copy(set_files("same_rpd3")[0], os.path.join(self.tmp, "ok.rpd"))
        out = subprocess.run([sys.executable, "-c", script.replace("print(e)", "print(e)\nelse: print('opened')"),
                              EXT, self.tmp + "/*.rpd"], capture_output=True, text=True, timeout=20)
        self.assertIn("opened", out.stdout)

    def test_wal_members_create_no_file_beside_them(self):
        # Defect 17: a read-only open of a WAL database creates -wal and -shm files next to it.
        d = os.path.join(self.tmp, "wal")
        os.mkdir(d)
        p = os.path.join(d, "w.rpd")
        shutil.copy(set_files("same_rpd3")[0], p)
        w = sqlite3.connect(p)
        w.execute("PRAGMA journal_mode=WAL")
        w.close()
        before = sorted(os.listdir(d))
        os.chmod(d, 0o555)
        try:
            con = connect()
            con.execute("SELECT rocpd_open(?)", (p,))
            self.assertGreater(rows(con, "SELECT count(*) FROM rocpd_ops")[0][0], 0)
            rows(con, "SELECT * FROM rocpd_members")
            con.close()
            self.assertEqual(sorted(os.listdir(d)), before)
        finally:
            os.chmod(d, 0o755)
        # Committed changes still in a -wal without its -shm: reading would create the -shm.
        w = sqlite3.connect(p)
        w.execute("PRAGMA wal_autocheckpoint=0")
        w.execute("INSERT INTO rocpd_string(string) VALUES ('late')")
        w.commit()
        shutil.copy(p + "-wal", os.path.join(self.tmp, "saved-wal"))
        w.close()
        shutil.copy(os.path.join(self.tmp, "saved-wal"), p + "-wal")
        self.assertFalse(os.path.exists(p + "-shm"))
        con = connect()
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT rocpd_open(?)", (p,))
        self.assertIn("-shm", str(cm.exception))
        self.assertIn("wal_checkpoint", str(cm.exception))
        self.assertFalse(os.path.exists(p + "-shm"))

    def test_file_tables_are_direct_only(self):
        # Defect 18: a view stored in a database may not read member files through these tables.
        con = mixed_con()
        for table in ("rocpd_busy_intervals", "rocpd_gaps", "rocpd_utilization(1000)", "rocpd_ops", "rocpd_members"):
            with self.subTest(table=table):
                name = "v_" + table.split("(")[0]
                con.execute(f"CREATE VIEW main.{name} AS SELECT * FROM {table}")
                with self.assertRaises(sqlite3.Error) as cm:
                    rows(con, f"SELECT count(*) FROM {name}")
                self.assertIn("unsafe use of virtual table", str(cm.exception))

    def test_few_descriptors(self):
        # Defect 18: under ulimit -n 64 opening 100 members works (idle connections give their
        # descriptors back); the errors that remain say why.
        d = os.path.join(self.tmp, "many")
        os.mkdir(d)
        src = set_files("same_rpd3")[0]
        for i in range(100):
            shutil.copy(src, os.path.join(d, f"r{i:03d}.rpd"))
        script = ("import resource,sqlite3,sys;resource.setrlimit(resource.RLIMIT_NOFILE,(64,64));"
                  "c=sqlite3.connect(':memory:');c.enable_load_extension(True);c.load_extension(sys.argv[1]);"
                  "print(c.execute('SELECT rocpd_open(?)',(sys.argv[2],)).fetchone()[0]);"
                  "print(c.execute('SELECT count(*) FROM rocpd_ops').fetchone()[0])")
        # UBSan's vptr check probes memory through a pipe: at the descriptor limit the probe fails and
        # it reports every object as invalid, fatally (checks do not recover in the sanitizer build,
        # so no suppression applies). The README build and the SQLite 3.52 run test this instead.
        if "asan" in os.environ.get("ROCPD_SHELL_PRELOAD", "") + os.environ.get("LD_PRELOAD", ""):
            self.skipTest("UBSan cannot check objects at the descriptor limit (its memory probe needs a pipe)")
        env = dict(os.environ)
        out = subprocess.run([sys.executable, "-c", script, EXT, d], capture_output=True, text=True, timeout=300,
                             env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        con = connect()
        con.execute("SELECT rocpd_open(?)", (src,))
        self.assertEqual(out.stdout.split(), ["100", str(100 * rows(con, "SELECT count(*) FROM rocpd_ops")[0][0])])


class Interrupts(unittest.TestCase):
    """Defect 14: sqlite3_interrupt reaches work done on private member connections within 0.5 s."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_interrupt_")
        # A member whose op times are slow to compute (a generated column hashing 200 kB a row).
        cls.slow = os.path.join(cls.tmp, "slow.rpd")
        ops = [(0, i * 10, i * 10 + 5, 5, 2) for i in range(20000)]
        make_rpd(cls.slow, ops=ops, apis=[(1, 1, i, i + 1, 4, 1, 1, 1) for i in range(2000)])
        c = sqlite3.connect(cls.slow)
        c.execute('ALTER TABLE rocpd_op RENAME COLUMN "end" TO e')
        c.execute('ALTER TABLE rocpd_op ADD COLUMN "end" INTEGER GENERATED ALWAYS AS '
                  '(e + 0 * length(hex(zeroblob(200000 + (e % 2))))) VIRTUAL')
        c.commit()
        c.close()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def interrupted_within(self, con_factory, sql, delay=0.3, limit=0.5, tries=3):
        # The best of a few tries must stop within the limit: a machine busy with other builds can
        # delay one try's thread by more than the limit, while a statement that does not honour the
        # interrupt (2-15 s before the fix) fails every try.
        times = []
        for _ in range(tries):
            con = con_factory()
            timer = threading.Timer(delay, con.interrupt)
            started = time.monotonic()
            timer.start()
            try:
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    con.execute(sql).fetchall()
            finally:
                timer.cancel()
            times.append(time.monotonic() - started - delay)
            self.assertEqual(str(cm.exception), "interrupted")
            con.close()
            if times[-1] < limit * TIMING_SCALE:
                return
        self.fail(f"{sql}: stopped {', '.join(f'{t:.2f}' for t in times)} s after the interrupt")

    def test_queries_stop(self):
        for sql in ("SELECT sum(duration) FROM rocpd_ops",                     # prefetch threads
                    "SELECT sum(duration) FROM rocpd_ops WHERE start > 1000",  # profile for pruning
                    "SELECT * FROM rocpd_members",                             # profile
                    "SELECT * FROM rocpd_union('top')",
                    "SELECT * FROM rocpd_busy_intervals",
                    "SELECT * FROM rocpd_kernel_summary",
                    "SELECT * FROM rocpd_queue_depth",                         # diagnosis tables: pool
                    "SELECT * FROM rocpd_comm_overlap",
                    "SELECT * FROM rocpd_launch_stats",
                    "SELECT * FROM rocpd_kernel_stacks",
                    "SELECT * FROM rocpd_idle_breakdown",
                    "SELECT sum(o.duration) FROM rocpd_apis a JOIN rocpd_ops o "
                    "ON o.db = a.db AND o.correlation_id = a.api_id"):
            with self.subTest(sql=sql):
                def opened():
                    con = connect()
                    con.execute("SELECT rocpd_open(?)", (self.slow,))
                    return con
                self.interrupted_within(opened, sql)

    def test_attached_member_stops(self):
        def attached():
            con = connect()
            con.execute("ATTACH ? AS slow", (self.slow,))
            return con
        self.interrupted_within(attached, "SELECT sum(duration) FROM rocpd_ops")


class GroupedScans(unittest.TestCase):
    """Issue 34: a GROUP BY or DISTINCT on plain columns is handed to the scan, which delivers its
    rows grouped (and the groups in SQLite's sorted order), so SQLite sorts nothing. The answers,
    in their order, must be those of plain copies of the same rows (SQLite's sorter); the same with
    the rows spilled to a temporary database (ROCPD_GROUPED_BUDGET=1)."""

    PUSHED = [
        "SELECT name, count(*), sum(duration), median(duration), min(start), group_concat(op_id) FROM {ops} "
        "WHERE kind = 'kernel' GROUP BY name",
        "SELECT db, gpu, kind, count(*), sum(duration), total(duration), avg(duration) FROM {ops} GROUP BY db, gpu, kind",
        "SELECT kind, db, count(*), count(DISTINCT name), max(name) FROM {ops} GROUP BY kind, db",
        "SELECT DISTINCT kind, gpu FROM {ops}",
        "SELECT name, count(*) FROM {ops} GROUP BY name ORDER BY count(*) DESC, name",
        "SELECT DISTINCT db, queue FROM {ops} ORDER BY db, queue",
        "SELECT domain, name, count(*), sum(duration), group_concat(tid) FROM {apis} WHERE start > 0 GROUP BY domain, name",
        "SELECT db, pid, tid, count(*) FROM {apis} GROUP BY db, pid, tid",
        "SELECT category, args IS NULL, count(*) FROM {apis} GROUP BY category",
        "SELECT o.name, count(*), sum(a.duration) FROM {ops} AS o JOIN {apis} AS a "
        "ON a.db = o.db AND a.correlation_id = o.correlation_id GROUP BY o.name",
    ]
    # An ORDER BY that repeats the GROUP BY: SQLite 3.40 (Debian 12) hands the grouping over as a
    # GROUP BY (sqlite3_vtab_distinct() 1) and the scan delivers it; 3.52 asks for every row in
    # sorted order instead (sqlite3_vtab_distinct() 0, "the GROUP BY's sort serves the ORDER BY"),
    # which the scan leaves to SQLite's sorter, as it does any plain ORDER BY. The suite runs on
    # those two versions; in between, the release that changed it is not pinned, so either plan
    # passes there (the answers must match in every version).
    ORDER_REPEATS_GROUP = [
        "SELECT gpu, count(*) FROM {ops} GROUP BY gpu HAVING count(*) > 100 ORDER BY gpu DESC LIMIT 3",
        "SELECT db, name, stddev(duration), count(*) FROM {ops} GROUP BY db, name ORDER BY db DESC, name DESC",
    ]
    NOT_PUSHED = [
        "SELECT name, count(*) FROM {ops} GROUP BY name COLLATE NOCASE",
        "SELECT lower(name), count(*) FROM {ops} GROUP BY lower(name)",
        "SELECT demangled, count(*) FROM {ops} GROUP BY demangled",
    ]

    @classmethod
    def setUpClass(cls):
        cls.con = mixed_con()
        cls.con.execute("CREATE TEMP TABLE c_ops AS SELECT * FROM rocpd_ops")
        cls.con.execute("CREATE TEMP TABLE c_apis AS SELECT * FROM rocpd_apis")

    def tearDown(self):
        os.environ.pop("ROCPD_GROUPED_BUDGET", None)
        os.environ.pop("ROCPD_GROUPED_BY_COLUMNS", None)

    def plan(self, sql):
        return " ".join(r[-1] for r in rows(self.con, "EXPLAIN QUERY PLAN " + sql))

    def check(self, sql, pushed, spilled=False):
        got = rows(self.con, sql.format(ops="rocpd_ops", apis="rocpd_apis"))
        scan = rows(self.con, "SELECT rocpd_last_scan()")[0][0]
        want = rows(self.con, sql.format(ops="c_ops", apis="c_apis"))
        self.assertGreater(len(want), 0, sql)
        if "DISTINCT" in sql and "ORDER BY" not in sql:  # SQLite's own order: first seen (a hash of the rows)
            got, want = sorted(got, key=repr), sorted(want, key=repr)
        self.assertEqual(got, want, sql)  # in order: the groups come out as SQLite's sorter orders them
        plan = self.plan(sql.format(ops="rocpd_ops", apis="rocpd_apis"))
        self.assertEqual("group=" in plan, pushed, plan)
        if pushed and "JOIN" not in sql:
            self.assertIn('"grouped":true', scan)
            self.assertIn('"spilled":%s' % ("true" if spilled else "false"), scan)

    def test_grouped_answers_like_a_plain_table(self):
        for sql in self.PUSHED:
            with self.subTest(sql=sql):
                self.check(sql, True)

    def test_order_by_repeating_the_group_by(self):
        version = sqlite3.sqlite_version_info
        for spilled in (False, True):
            if spilled:
                os.environ["ROCPD_GROUPED_BUDGET"] = "1"
            for sql in self.ORDER_REPEATS_GROUP:
                with self.subTest(sql=sql, spilled=spilled):
                    if version <= (3, 40, 1):
                        self.check(sql, True, spilled=spilled)
                    elif version >= (3, 52, 0):
                        self.check(sql, False)
                    else:
                        self.check(sql, "group=" in self.plan(sql.format(ops="rocpd_ops", apis="rocpd_apis")),
                                   spilled=spilled)

    def test_other_groupings_stay_with_sqlite(self):
        for sql in self.NOT_PUSHED:
            with self.subTest(sql=sql):
                self.check(sql, False)

    def test_spilled_rows_answer_alike(self):
        os.environ["ROCPD_GROUPED_BUDGET"] = "1"
        for sql in self.PUSHED:
            with self.subTest(sql=sql):
                self.check(sql, True, spilled=True)

    def test_read_through_member_queries_answer_alike(self):
        # Grouped scans read members through MemberColumns (names by key, texts numbered);
        # ROCPD_GROUPED_BY_COLUMNS=0 reads them through the canonical member queries instead.
        os.environ["ROCPD_GROUPED_BY_COLUMNS"] = "0"
        for sql in self.PUSHED:
            with self.subTest(sql=sql):
                self.check(sql, True)

    def test_bounds_on_values_the_member_stores_otherwise(self):
        # A second rpd session's correlation ids are offset by 2^32 in the canonical table, not in
        # the member: a grouped scan read by columns once applied `correlation_id BETWEEN` to the
        # member's own values and returned no group (the differential tester, sessions/opened).
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.dirname(set_files("sessions")[0]),))
        con.execute("CREATE TEMP TABLE c_ops AS SELECT * FROM rocpd_ops")
        lo, hi = rows(con, "SELECT min(correlation_id), min(correlation_id) + 90 FROM c_ops "
                           "WHERE correlation_id >= 4294967296")[0]
        sql = ("SELECT pid, queue, count(*), min(node) FROM {} WHERE correlation_id BETWEEN ? AND ? "
               "GROUP BY pid, queue")
        self.assertIn("group=", " ".join(r[-1] for r in rows(con, "EXPLAIN QUERY PLAN " + sql.format("rocpd_ops"),
                                                             (lo, hi))))
        want = rows(con, sql.format("c_ops"), (lo, hi))
        self.assertGreater(len(want), 0)
        self.assertEqual(rows(con, sql.format("rocpd_ops"), (lo, hi)), want)

    def test_members_of_several_batches(self):
        # Members of 10,000 ops: each is read in several batches of 4096 rows, whose rows carry a
        # name's bytes only on its first row in the member (numbered texts), in memory and spilled.
        with tempfile.TemporaryDirectory(prefix="grouped_batches_") as d:
            generate(d, 2, "rpd3", 10000, 7)
            con = connect()
            con.execute("SELECT rocpd_open(?)", (d,))
            con.execute("CREATE TEMP TABLE c_ops AS SELECT * FROM rocpd_ops")
            for budget in (None, "1"):
                if budget:
                    os.environ["ROCPD_GROUPED_BUDGET"] = budget
                for sql in ("SELECT name, kind, count(*), sum(duration), median(duration), group_concat(op_id) "
                            "FROM {t} WHERE kind = 'kernel' GROUP BY name",
                            "SELECT db, name, count(*), min(start) FROM {t} GROUP BY db, name",
                            "SELECT kind, count(*), max(name) FROM {t} WHERE gpu >= 0 GROUP BY kind"):
                    with self.subTest(sql=sql, budget=budget):
                        got = rows(con, sql.format(t="rocpd_ops"))
                        self.assertIn('"grouped":true', rows(con, "SELECT rocpd_last_scan()")[0][0])
                        self.assertEqual(got, rows(con, sql.format(t="c_ops")))
                        self.assertGreater(len(got), 1)

    def test_integer_overflow_and_empty_groups(self):
        con = connect()
        with tempfile.TemporaryDirectory(prefix="grouped_") as d:
            # Two members whose durations sum past INT64_MAX in one group: SQLite's sum() says so.
            for i, dur in enumerate((2**62, 2**62 + 5)):
                make_rpd(os.path.join(d, f"r{i}.rpd"), ops=[(0, 10, 10 + dur, 5, 2), (1, 10, 10 + dur, 5, 2)])
            con.execute("SELECT rocpd_open(?)", (d,))
            self.assertIn("group=", " ".join(r[-1] for r in rows(con, "EXPLAIN QUERY PLAN SELECT name, sum(duration) "
                                                              "FROM rocpd_ops GROUP BY name")))
            with self.assertRaisesRegex(sqlite3.OperationalError, "integer overflow"):
                rows(con, "SELECT name, sum(duration) FROM rocpd_ops GROUP BY name")
            self.assertEqual(rows(con, "SELECT name, total(duration) FROM rocpd_ops GROUP BY name"),
                             [("kernel_a", float(2 * 2**62 + 2 * (2**62 + 5)))])
            self.assertEqual(rows(con, "SELECT name, count(*) FROM rocpd_ops WHERE gpu = 7 GROUP BY name"), [])


class PickedMembers(unittest.TestCase):
    """Issue 34: members picked by `db IN (...)` are read by one scan, in parallel (SQLite used to
    filter the table once per name, each filter reading one member on one thread), and a query
    picking members looks only at the files of those it reads."""

    def test_db_in_is_one_scan(self):
        con = mixed_con()
        con.execute("CREATE TEMP TABLE c_ops AS SELECT * FROM rocpd_ops")
        for sql in ("SELECT count(*), sum(duration) FROM {t} WHERE db IN ('rank1', 'rank5', 'att', 'nope', NULL)",
                    "SELECT count(*) FROM {t} WHERE db IN (SELECT db FROM rocpd_members WHERE format = 'rpd')",
                    "SELECT count(*) FROM {t} WHERE db IN ('rank1', 'rank5') AND db = 'rank5'",
                    "SELECT count(*) FROM {t} WHERE db IN ('rank1', 'rank5') AND db IN ('rank2', 'rank3')"):
            with self.subTest(sql=sql):
                got = rows(con, sql.format(t="rocpd_ops"))
                scan = rows(con, "SELECT rocpd_last_scan()")[0][0]
                self.assertEqual(got, rows(con, sql.format(t="c_ops")))
                self.assertIn('"filters":1,', scan)  # one filter for every name
                plan = " ".join(r[-1] for r in rows(con, "EXPLAIN QUERY PLAN " + sql.format(t="rocpd_ops")))
                self.assertIn("db=/i", plan)
        rows(con, "SELECT count(*) FROM rocpd_ops WHERE db IN ('rank1', 'rank5', 'att')")
        self.assertIn('"members":9,"skipped":6,', rows(con, "SELECT rocpd_last_scan()")[0][0])

    def test_only_the_picked_members_files_are_checked(self):
        with tempfile.TemporaryDirectory(prefix="picked_") as d:
            for i, f in enumerate(set_files("same_rpd3")[:2]):
                shutil.copy(f, os.path.join(d, f"r{i}.rpd"))
            con = connect()
            con.execute("SELECT rocpd_open(?)", (d,))
            want = rows(con, "SELECT count(*) FROM rocpd_ops WHERE db = 'r1'")
            with open(os.path.join(d, "r0.rpd"), "wb") as f:
                f.write(b"not a trace any more, " * 100)
            # r0 changed on disk: a query reading r1 alone does not stop at it; one reading r0 names it.
            self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops WHERE db = 'r1'"), want)
            self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops WHERE db IN ('r1')"), want)
            # rocpd_members picks by db too, alone, joined to rocpd_ops, or in an IN subquery.
            self.assertEqual(rows(con, "SELECT db, ops FROM rocpd_members WHERE db = 'r1'"), [("r1", want[0][0])])
            self.assertEqual(rows(con, "SELECT db FROM rocpd_members WHERE db IN ('r1', 'r9')"), [("r1",)])
            self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_members AS m JOIN rocpd_ops AS o ON o.db = m.db "
                                       "WHERE m.db = 'r1'"), want)
            self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops WHERE db IN "
                                       "(SELECT db FROM rocpd_members WHERE db IN ('r1'))"), want)
            for sql in ("SELECT count(*) FROM rocpd_ops WHERE db = 'r0'", "SELECT count(*) FROM rocpd_ops",
                        "SELECT count(*) FROM rocpd_ops WHERE db IN ('r0', 'r1')",
                        "SELECT db FROM rocpd_members", "SELECT db FROM rocpd_members WHERE db IN ('r0', 'r1')",
                        "SELECT db FROM rocpd_members WHERE db = 'r0' COLLATE NOCASE"):
                with self.subTest(sql=sql), self.assertRaisesRegex(sqlite3.Error, "member r0 .*changed on disk"):
                    rows(con, sql)

    def test_rocpd_members_picks_by_db(self):
        """rocpd_members answers `db =` / `db IN` from its name index (plan letters e / i) exactly as a
        plain copy of it does, under any value type and collation."""
        con = mixed_con()
        con.execute("CREATE TEMP TABLE c_members AS SELECT rowid AS r, * FROM rocpd_members")
        names = [r[0] for r in rows(con, "SELECT db FROM c_members ORDER BY r")]
        self.assertEqual(len(names), 9)
        for sql, letters in (("SELECT {r}, db, ops FROM {t} WHERE db = 'rank1'", "e"),
                             ("SELECT {r}, db, path FROM {t} WHERE db IN ('rank1', 'att', 'nope', NULL, 3, x'00')", "i"),
                             ("SELECT {r}, db FROM {t} WHERE db IN ('rank1', 'rank5') AND db = 'rank5'", "ie"),
                             ("SELECT {r}, db FROM {t} WHERE db = 'RANK1'", "e"),
                             ("SELECT {r}, db FROM {t} WHERE db = 'RANK1' COLLATE NOCASE", ""),
                             ("SELECT {r}, db FROM {t} WHERE db IN ('rank2' COLLATE NOCASE, 'Rank3')", "i"),
                             ("SELECT {r}, db FROM {t} WHERE db = 1.0 OR db = 'att'", "e"),
                             ("SELECT m.{r}, m.db, o.n FROM {t} AS m JOIN (SELECT db, count(*) AS n FROM rocpd_ops "
                              "GROUP BY db) AS o ON o.db = m.db", None)):
            with self.subTest(sql=sql):
                got = rows(con, sql.format(t="rocpd_members", r="rowid") + " ORDER BY 1")
                self.assertEqual(got, rows(con, sql.format(t="c_members", r="r") + " ORDER BY 1"))
                self.assertTrue(got or "'RANK1'" in sql, got)
                if letters is not None:
                    eqp = [r[-1] for r in rows(con, "EXPLAIN QUERY PLAN " + sql.format(t="rocpd_members", r="rowid"))]
                    self.assertTrue(any(re.search(r"rocpd_members VIRTUAL TABLE INDEX \d:%s$" % letters, p) for p in eqp),
                                    eqp)
        # The member list follows ATTACH and DETACH between statements.
        con.execute("DETACH att")
        self.assertEqual(rows(con, "SELECT db FROM rocpd_members WHERE db IN ('att', 'rank1')"), [("rank1",)])
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops WHERE db = 'att'"), [(0,)])
        con.execute("ATTACH ? AS att2", (set_files("same_rocpd")[1],))
        self.assertEqual(rows(con, "SELECT db FROM rocpd_members WHERE db = 'att2'"), [("att2",)])
        self.assertEqual(rows(con, "SELECT count(*) > 0 FROM rocpd_ops WHERE db IN ('att2')"), [(1,)])


class JoinPlans(unittest.TestCase):
    """Defect 20: a plain join of ops to their API calls is a lookup per op, not a scan per op."""

    def test_join_uses_lookups_and_agrees_with_the_cte(self):
        con = mixed_con()
        plain = ("SELECT o.db, count(*), sum(o.start - a.start) FROM rocpd_ops o JOIN rocpd_apis a "
                 "ON a.db = o.db AND a.correlation_id = o.correlation_id GROUP BY o.db ORDER BY o.db")
        cte = ("WITH a AS MATERIALIZED (SELECT db, correlation_id, start FROM rocpd_apis) "
               "SELECT o.db, count(*), sum(o.start - a.start) FROM rocpd_ops o JOIN a "
               "ON a.db = o.db AND a.correlation_id = o.correlation_id GROUP BY o.db ORDER BY o.db")
        plan = " ".join(r[3] for r in rows(con, "EXPLAIN QUERY PLAN " + plain))
        self.assertRegex(plan, r"correlation_id=")
        got = rows(con, plain)
        # The inner side was filtered once per outer row, on a handful of prepared member
        # statements (not one per lookup), or answered from its in-memory index.
        import json
        scan = json.loads(rows(con, "SELECT rocpd_last_scan()")[0][0])
        self.assertGreater(scan["filters"], 1000, scan)
        self.assertLess(scan["prepared"], 40, scan)
        self.assertEqual(got, rows(con, cte))
        self.assertEqual(len(got), 9)


if __name__ == "__main__":
    main()
