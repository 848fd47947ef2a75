"""rocpd_ext under a Python whose sqlite3 cannot load extensions (pyenv's default build, some
conda builds): simulated here by tests/python/no_load_extension, a sqlite3 module without
enable_load_extension put first on the path of a child /usr/bin/python3. connect() then returns an
APSW connection with the extension loaded, whose answers (and read_sql's DataFrames, and the Dask
recipe's CSV) equal those of Python's sqlite3 in this process; without APSW either the error says
what to install. A real pyenv/conda python3.11 on PATH is tried too when one is found."""
import csv
import importlib.util
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
NO_LOAD = os.path.join(HERE, "no_load_extension")
NO_APSW = os.path.join(HERE, "no_apsw")
sys.path.insert(0, PACKAGE_DIR)

import rocpd_ext  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SETS, main  # noqa: E402

MIXED8 = os.path.join(SETS, "mixed8")
KERNELS = "SELECT * FROM rocpd_kernel_summary"
BUSY = "SELECT db, gpu, busy_ns, span_ns, busy, ops FROM rocpd_busy"


def child_path(*path_first, inherit=True):
    """PYTHONPATH for a child: `path_first`, the package, then this process's (the SQLite 3.52 run
    puts its sitecustomize there)."""
    inherited = os.environ.get("PYTHONPATH") if inherit else None
    return os.pathsep.join(filter(None, [*path_first, PACKAGE_DIR, inherited]))


def child(code, *path_first, python=sys.executable, inherit=True):
    """Runs `code` in a child Python with `path_first` before the package on its path; its stdout
    parsed as JSON."""
    env = dict(os.environ, PYTHONPATH=child_path(*path_first, inherit=inherit))
    p = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"child failed ({p.returncode}):\n{p.stderr}")
    return json.loads(p.stdout)


def direct(sql):
    con = rocpd_ext.connect(backend="sqlite3")
    con.execute("SELECT rocpd_open(?)", (MIXED8,))
    return [list(r) for r in con.execute(sql)]


class WithoutExtensionLoading(unittest.TestCase):
    def test_the_simulation_removes_extension_loading(self):
        got = child("import json, sqlite3\n"
                    "c = sqlite3.connect(':memory:')\n"
                    "print(json.dumps([hasattr(sqlite3.Connection, 'enable_load_extension'), "
                    "hasattr(c, 'enable_load_extension'), hasattr(c, 'load_extension'), "
                    "c.execute('SELECT 6 * 7').fetchone()[0]]))", NO_LOAD)
        self.assertEqual(got, [False, False, False, 42])

    def test_connect_falls_back_to_apsw(self):
        got = child("import json, rocpd_ext\n"
                    "con = rocpd_ext.connect()\n"
                    f"n = con.execute('SELECT rocpd_open(?)', ({MIXED8!r},)).fetchone()[0]\n"
                    "print(json.dumps({'backend': rocpd_ext.default_backend(), 'type': type(con).__module__,\n"
                    "  'can_load': rocpd_ext.sqlite3_can_load_extensions(), 'opened': n,\n"
                    f"  'kernels': [list(r) for r in con.execute({KERNELS!r})],\n"
                    f"  'busy': [list(r) for r in con.execute({BUSY!r}).fetchall()]}}))", NO_LOAD)
        self.assertEqual((got["backend"], got["type"], got["can_load"], got["opened"]), ("apsw", "apsw", False, 8))
        self.assertEqual(got["kernels"], direct(KERNELS))
        self.assertEqual(got["busy"], direct(BUSY))

    def test_read_sql_through_apsw(self):
        got = child("import json, rocpd_ext\n"
                    f"df = rocpd_ext.read_sql({BUSY!r} + ' WHERE gpu = ?', {MIXED8!r}, params=(1,))\n"
                    "empty = rocpd_ext.read_sql('SELECT db, gpu FROM rocpd_busy WHERE 0', [" + repr(MIXED8) + "])\n"
                    "print(json.dumps({'columns': list(df.columns), 'rows': df.values.tolist(),\n"
                    "  'empty': [list(empty.columns), len(empty)]}))", NO_LOAD)
        self.assertEqual(got["columns"], ["db", "gpu", "busy_ns", "span_ns", "busy", "ops"])
        self.assertEqual(got["rows"], direct(BUSY + " WHERE gpu = 1"))
        # APSW describes no completed statement: the columns of an empty answer are kept anyway.
        self.assertEqual(got["empty"], [["db", "gpu"], 0])

    def test_errors_are_catchable_alike(self):
        got = child("import json, rocpd_ext\n"
                    "con = rocpd_ext.connect()\n"
                    "try:\n"
                    "    con.execute(\"SELECT rocpd_open('/nonexistent/x.rpd')\").fetchall()\n"
                    "except rocpd_ext.errors() as e:\n"
                    "    print(json.dumps([type(e).__module__, str(e)]))\n", NO_LOAD)
        self.assertEqual(got[0], "apsw")
        self.assertIn("rocpd_open: '/nonexistent/x.rpd': no such file or directory", got[1])

    def test_load_on_a_plain_connection_says_what_to_do(self):
        got = child("import json, sqlite3, rocpd_ext\n"
                    "try:\n"
                    "    rocpd_ext.load(sqlite3.connect(':memory:'))\n"
                    "except RuntimeError as e:\n"
                    "    print(json.dumps(str(e)))\n", NO_LOAD)
        self.assertEqual(got, "this connection's sqlite3 module was built without extension loading; use "
                              "rocpd_ext.connect(), which falls back to APSW, or an APSW connection")

    def test_without_apsw_the_error_names_what_to_install(self):
        got = child("import json, rocpd_ext\n"
                    "try:\n"
                    "    rocpd_ext.connect()\n"
                    "except RuntimeError as e:\n"
                    "    print(json.dumps(str(e)))\n", NO_LOAD, NO_APSW)
        self.assertTrue(got.startswith("this Python's sqlite3 module cannot load extensions"), got)
        self.assertIn("pip install apsw", got)
        self.assertIn("apt-get install python3-apsw", got)

    @unittest.skipUnless(importlib.util.find_spec("distributed"), "python3-distributed is not installed")
    def test_dask_recipe_through_apsw(self):
        # The documented `python3 -m rocpd_ext.dask` under such a Python (workers inherit the path).
        env = dict(os.environ, PYTHONPATH=child_path(NO_LOAD))
        p = subprocess.run([sys.executable, "-m", "rocpd_ext.dask", "--local", "1", "--query", "busy", MIXED8],
                           capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        rows = list(csv.reader(io.StringIO(p.stdout)))
        self.assertEqual(rows[0], ["db", "gpu", "busy_ns", "span_ns", "busy", "busy_pct", "sum_ns", "overlap_ns", "ops"])
        want = direct("SELECT * FROM rocpd_busy ORDER BY db, gpu")
        self.assertEqual(rows[1:], [["" if v is None else str(v) for v in r] for r in want])


class Sqlite3Backend(unittest.TestCase):
    def test_read_sql(self):
        df = rocpd_ext.read_sql(KERNELS, MIXED8)
        con = rocpd_ext.connect()
        con.execute("SELECT rocpd_open(?)", (MIXED8,))
        cur = con.execute(KERNELS)
        self.assertEqual(list(df.columns), [d[0] for d in cur.description])
        self.assertEqual(df.values.tolist(), [list(r) for r in cur.fetchall()])
        # Several paths, and a connection of the caller's (left open, its members kept).
        mine = rocpd_ext.connect()
        two = rocpd_ext.read_sql("SELECT db FROM rocpd_members", [os.path.join(MIXED8, "rank0.rpd"),
                                                                   os.path.join(MIXED8, "rank2.db")], con=mine)
        self.assertEqual(two["db"].tolist(), ["rank0", "rank2"])
        self.assertEqual(mine.execute("SELECT count(*) FROM rocpd_members").fetchone(), (2,))

    def test_read_sql_pushed_down(self):
        # Without params, read_sql runs the query as rocpd_sql_rewrite gives it (docs/pushdown.md):
        # pushed down, rocpd_ops itself is not scanned (rocpd_last_scan() unchanged after a marker
        # scan); the same frame as SQLite's answer to the query as typed. With params, or with
        # ROCPD_PUSHDOWN=0, it runs as typed.
        sql = ("SELECT name, count(*), sum(duration), median(duration) FROM rocpd_ops WHERE kind = 'kernel' "
               "GROUP BY name ORDER BY 3 DESC, name")
        con = rocpd_ext.connect()
        con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()
        cur = con.execute(sql)
        want_columns, want = [d[0] for d in cur.description], [list(r) for r in cur.fetchall()]

        def read(*args, **kwargs):
            con.execute("SELECT count(*) FROM rocpd_ops WHERE db = 'rank3' AND gpu IS NOT NULL").fetchall()
            before = con.execute("SELECT rocpd_last_scan()").fetchone()[0]
            df = rocpd_ext.read_sql(*args, con=con, **kwargs)
            self.assertEqual(list(df.columns), want_columns)
            self.assertEqual(df.values.tolist(), want)
            return con.execute("SELECT rocpd_last_scan()").fetchone()[0] != before

        self.assertFalse(read(sql), "read_sql scanned rocpd_ops: not pushed down")
        self.assertTrue(read(sql.replace("'kernel'", "?"), params=("kernel",)))
        os.environ["ROCPD_PUSHDOWN"] = "0"
        try:
            self.assertTrue(read(sql))
        finally:
            del os.environ["ROCPD_PUSHDOWN"]

    def test_a_members_own_table_by_its_schema_name_says_the_way(self):
        # `<member>.<table>` is the obvious syntax, and no member is an attached schema: the error
        # names rocpd_union's named form, which then reads the table (its rows counted in the file).
        with self.assertRaises(sqlite3.OperationalError) as caught:
            rocpd_ext.read_sql("SELECT count(*) FROM rank0.rocpd_api", MIXED8)
        self.assertEqual(str(caught.exception),
                         "no such table: rank0.rocpd_api (rank0 is a member, not an attached schema: read a member's "
                         "own table through rocpd_union's named form, e.g. CREATE VIRTUAL TABLE "
                         "temp.rocpd_api_all USING rocpd_union(rocpd_api); SELECT * FROM temp.rocpd_api_all WHERE "
                         "db = 'rank0')")
        con = rocpd_ext.connect()
        con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()
        con.execute("CREATE VIRTUAL TABLE temp.rocpd_api_all USING rocpd_union(rocpd_api)")
        got = rocpd_ext.read_sql("SELECT count(*) AS n FROM temp.rocpd_api_all WHERE db = 'rank0'", con=con)
        raw = sqlite3.connect(os.path.join(MIXED8, "rank0.rpd")).execute("SELECT count(*) FROM rocpd_api").fetchone()[0]
        self.assertEqual(got["n"].tolist(), [raw])
        # Not a member, or not a qualified name: SQLite's error as it is.
        for sql, message in (("SELECT * FROM nomember.rocpd_api", "no such table: nomember.rocpd_api"),
                             ("SELECT * FROM rocpd_apii", "no such table: rocpd_apii")):
            with self.assertRaises(sqlite3.OperationalError) as caught:
                rocpd_ext.read_sql(sql, MIXED8)
            self.assertEqual(str(caught.exception), message)

    def test_backend_argument(self):
        self.assertEqual(rocpd_ext.default_backend(), "sqlite3")
        self.assertIsInstance(rocpd_ext.connect(backend="sqlite3"), sqlite3.Connection)
        import apsw
        self.assertIsInstance(rocpd_ext.connect(backend="apsw"), apsw.Connection)
        with self.assertRaises(ValueError) as cm:
            rocpd_ext.connect(backend="duckdb")
        self.assertEqual(str(cm.exception), "unknown backend 'duckdb'; one of sqlite3, apsw")


def other_python():
    """A python3 on PATH (or $ROCPD_TEST_NOEXT_PYTHON) whose sqlite3 cannot load extensions and
    whose version is Debian 12's 3.11 (Debian's APSW module is built for it), or None."""
    for exe in filter(None, [os.environ.get("ROCPD_TEST_NOEXT_PYTHON"), shutil.which("python3")]):
        if os.path.realpath(exe) == os.path.realpath(sys.executable):
            continue
        p = subprocess.run([exe, "-c", "import sqlite3, sys; print(hasattr(sqlite3.Connection, "
                                       "'enable_load_extension'), sys.version_info[:2] == (3, 11))"],
                           capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
        if p.returncode == 0 and p.stdout.split() == ["False", "True"]:
            return exe
    return None


class RealPythonWithoutExtensionLoading(unittest.TestCase):
    @unittest.skipUnless(other_python() and os.path.isdir("/usr/lib/python3/dist-packages/apsw"),
                         "no python3.11 without extension loading on PATH, or Debian's python3-apsw absent")
    def test_debian_apsw_linked_into_its_path(self):
        # docs/python.md: Debian's APSW made importable alone (a directory holding only a link to it).
        with tempfile.TemporaryDirectory() as d:
            os.symlink("/usr/lib/python3/dist-packages/apsw", os.path.join(d, "apsw"))
            got = child("import json, rocpd_ext\n"
                        "con = rocpd_ext.connect()\n"
                        f"con.execute('SELECT rocpd_open(?)', ({MIXED8!r},))\n"
                        f"print(json.dumps([rocpd_ext.default_backend(), [list(r) for r in con.execute({BUSY!r})]]))",
                        d, python=other_python(), inherit=False)
        self.assertEqual(got, ["apsw", direct(BUSY)])


if __name__ == "__main__":
    main()
