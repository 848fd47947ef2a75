"""Hostile members (issue 8): schema objects that call the extension's functions, values of every
wrong type, huge and malformed names. Nothing may crash or hang; every answer is either the plain
table's or a clear error (run by /usr/bin/python3)."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import EXT, connect, main  # noqa: E402
from tiny_traces import make_rpd  # noqa: E402

EVERY_TABLE = ["SELECT * FROM rocpd_ops", "SELECT * FROM rocpd_apis", "SELECT * FROM rocpd_members",
               "SELECT * FROM rocpd_union('top')", "SELECT * FROM rocpd_union('apis')", "SELECT * FROM rocpd_busy",
               "SELECT * FROM rocpd_busy_intervals", "SELECT * FROM rocpd_gaps",
               "SELECT * FROM rocpd_utilization WHERE buckets = 3", "SELECT * FROM rocpd_kernel_summary",
               "SELECT * FROM rocpd_op_summary", "SELECT * FROM rocpd_launch_latency",
               "SELECT * FROM rocpd_rank_imbalance", "SELECT * FROM rocpd_kernel_histogram", "SELECT * FROM rocpd_check"]


def run_isolated(test, setup_sql, queries, timeout=120):
    """Runs queries in a child process: a crash there fails the test instead of killing the suite.
    Returns one line per query: 'ok <rows>' or 'error <message>'."""
    script = (
        "import sqlite3, sys, json\n"
        "c = sqlite3.connect(':memory:'); c.enable_load_extension(True); c.load_extension(sys.argv[1])\n"
        "c.text_factory = bytes  # invalid UTF-8 is data here, not an error of the binding\n"
        "for s in json.loads(sys.argv[2]): c.execute(s)\n"
        "for q in json.loads(sys.argv[3]):\n"
        "    try: print('ok', len(c.execute(q).fetchall()), flush=True)\n"
        "    except sqlite3.Error as e: print('error', str(e).replace(chr(10), ' '), flush=True)\n")
    import json
    out = subprocess.run([sys.executable, "-c", script, EXT, json.dumps(setup_sql), json.dumps(queries)],
                         capture_output=True, text=True, timeout=timeout)
    test.assertEqual(out.returncode, 0, f"the host process died: {out.stderr[-2000:]}")
    lines = out.stdout.splitlines()
    test.assertEqual(len(lines), len(queries), out.stdout)
    return lines


def run_script(test, script, queries, timeout=180):
    """Like run_isolated, but the child first runs the Python lines of `script` (with `c` a
    connection that has not loaded the extension yet, `load()` loading it into `c`, and `q(sql)`
    printing a query's outcome line), so that files can change between calls."""
    body = (
        "import os, shutil, sqlite3, sys, json\n"
        "EXT = sys.argv[1]\n"
        "c = sqlite3.connect(':memory:', isolation_level=None); c.enable_load_extension(True)\n"
        "c.text_factory = bytes\n"
        "def load(): c.load_extension(EXT)\n"
        "def q(s):\n"
        "    try: print('ok', len(c.execute(s).fetchall()), flush=True)\n"
        "    except sqlite3.Error as e: print('error', str(e).replace(chr(10), ' '), flush=True)\n"
        + script + "\n"
        "for s in json.loads(sys.argv[2]): q(s)\n")
    import json
    out = subprocess.run([sys.executable, "-c", body, EXT, json.dumps(queries)], capture_output=True, text=True,
                         timeout=timeout)
    test.assertEqual(out.returncode, 0, f"the host process died: {out.stderr[-2000:]}")
    return out.stdout.splitlines()


def clear_error(line):
    """An error that says what was wrong: a known message naming the value or a member."""
    known = ("integer overflow", "must be an integer", "must be text or NULL", "is not a number", "member ")
    return line.startswith("error ") and any(k in line for k in known) and "internal" not in line


class SchemaObjectsCallingUs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_hostile_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def member_with_generated_name(self, expr):
        """An rpd member whose op descriptions come from a generated column computing `expr`."""
        p = make_rpd(os.path.join(self.tmp, "g.rpd"), ops=[(0, i * 10, i * 10 + 5, 2, 2) for i in range(5)])
        c = sqlite3.connect(p)
        c.execute("ALTER TABLE rocpd_string RENAME COLUMN string TO raw")
        c.execute(f"ALTER TABLE rocpd_string ADD COLUMN string TEXT GENERATED ALWAYS AS ({expr}) VIRTUAL")
        c.commit()
        c.close()
        return p

    def test_generated_column_calling_demangle(self):
        # demangle is INNOCUOUS: a schema may call it, with trusted_schema on or off; '_ZUlvE_' once
        # crashed it. Attached, the member's column runs on the host (our function exists there);
        # opened, it runs on a private connection where it does not.
        p = self.member_with_generated_name("demangle('_ZUlvE_')")
        for trusted in ("ON", "OFF"):
            with self.subTest(trusted_schema=trusted):
                lines = run_isolated(self, [f"PRAGMA trusted_schema={trusted}", f"ATTACH '{p}' AS g"], EVERY_TABLE)
                self.assertTrue(all(line.startswith("ok") for line in lines), lines)
        lines = run_isolated(self, [f"SELECT rocpd_open('{p}')"], ["SELECT name FROM rocpd_ops"])
        self.assertIn("unknown function: demangle()", lines[0])

    def test_schema_objects_calling_file_functions_are_refused(self):
        # rocpd_open is DIRECTONLY: no view or trigger of a database may call it (nor a generated
        # column: SQLite refuses non-deterministic functions there outright).
        p = make_rpd(os.path.join(self.tmp, "s.rpd"), ops=[(0, 0, 5, 5, 2)])
        c = sqlite3.connect(p)
        c.execute("CREATE VIEW sneaky AS SELECT rocpd_open('/etc') AS n")
        c.execute("CREATE TABLE t(x)")
        c.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT rocpd_close(); END")
        c.commit()
        c.close()
        for trusted in ("ON", "OFF"):
            with self.subTest(trusted_schema=trusted):
                lines = run_isolated(self, [f"PRAGMA trusted_schema={trusted}", f"ATTACH '{p}' AS g"],
                                     ["SELECT * FROM g.sneaky", "INSERT INTO g.t VALUES (1)", "SELECT name FROM rocpd_ops"])
                self.assertIn("unsafe use of rocpd_open()", lines[0])
                self.assertIn("unsafe use of rocpd_close()", lines[1])
                self.assertEqual(lines[2], "ok 1")

    def test_views_over_our_tables_in_a_member_are_refused(self):
        p = make_rpd(os.path.join(self.tmp, "v.rpd"), ops=[(0, 0, 5, 5, 2)])
        c = sqlite3.connect(p)
        c.execute("CREATE VIEW evil AS SELECT * FROM rocpd_busy_intervals")
        c.commit()
        c.close()
        lines = run_isolated(self, [f"ATTACH '{p}' AS v"], ["SELECT * FROM v.evil", "SELECT * FROM rocpd_ops"])
        self.assertIn("unsafe use of virtual table", lines[0])
        self.assertEqual(lines[1], "ok 1")


class WrongTypesEverywhere(unittest.TestCase):
    """Every column the canonical tables read holds, in turn, text, a blob, a real and NULL."""

    VALUES = ["'abc'", "'12'", "x'00ff'", "2.5", "1e300", "NULL", "-9223372036854775808"]
    COLUMNS = {"rocpd_op": ["gpuId", "queueId", "start", '"end"', "description_id", "opType_id"],
               "rocpd_api": ["pid", "tid", "start", '"end"', "apiName_id", "args_id", "category_id", "domain_id"],
               "rocpd_string": ["string"], "rocpd_api_ops": ["api_id", "op_id"]}

    def test_every_table_survives(self):
        tmp = tempfile.mkdtemp(prefix="rocpd_types_")
        try:
            setup, n = [], 0
            for table, cols in self.COLUMNS.items():
                for col in cols:
                    for value in self.VALUES:
                        p = make_rpd(os.path.join(tmp, f"m{n}.rpd"),
                                     ops=[(0, 0, 10, 5, 2), (1, 5, 20, 5, 3)], apis=[(1, 1, 0, 4, 4, 1, 1, 1)],
                                     links=[(1, 1)])
                        c = sqlite3.connect(p)
                        c.execute(f"UPDATE {table} SET {col} = {value}")
                        c.commit()
                        c.close()
                        setup.append(f"SELECT rocpd_open('{p}')")
                        n += 1
            lines = run_isolated(self, setup, EVERY_TABLE, timeout=300)
            for query, line in zip(EVERY_TABLE, lines):
                with self.subTest(query=query):
                    # A clear error is acceptable (a sum that overflows, a time that is text where an
                    # integer must be); a crash, a hang or an anonymous error is not.
                    self.assertTrue(line.startswith("ok") or clear_error(line), line)
            # The canonical tables themselves read every such row.
            for line in lines[:3]:
                self.assertTrue(line.startswith("ok"), line)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Names(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_names_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_huge_and_malformed_names(self):
        huge = "_Z" + "3foo" * (10_000_000 // 4)  # a 10 MB mangled-looking name
        strings = {1: "", 2: "KernelExecution", 5: huge, 6: b"\xff\xfe\x00bad\xc3".decode("latin-1"),
                   7: "_ZUlvE_", 8: "x" * 1_000_000}
        p = make_rpd(os.path.join(self.tmp, "n.rpd"), strings=strings,
                     ops=[(0, 0, 10, 5, 2), (0, 10, 20, 6, 2), (0, 20, 30, 7, 2), (0, 30, 40, 8, 2)])
        c = sqlite3.connect(p)
        c.execute("UPDATE rocpd_string SET string = CAST(x'fffe0062616400c3' AS TEXT) WHERE id = 6")  # invalid UTF-8
        c.commit()
        c.close()
        lines = run_isolated(self, [f"SELECT rocpd_open('{p}')"],
                             EVERY_TABLE + ["SELECT length(name), length(demangled) FROM rocpd_ops",
                                            "SELECT kernel_short_name(name) FROM rocpd_ops"], timeout=300)
        self.assertTrue(all(line.startswith("ok") for line in lines), lines)
        # The bytes of an invalid UTF-8 name come back as they are stored.
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        self.assertEqual(con.execute("SELECT hex(name) FROM rocpd_ops WHERE start = 10").fetchone()[0], "FFFE0062616400C3")


class Sequences(unittest.TestCase):
    """Issue 21: sequences of ordinary calls (files replaced mid-session, double loads, TEMP name
    clashes, recursive named unions) over hostile members: no crash, every answer a plain one or a
    clear error."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_seq_hostile_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def members(self, n):
        out = []
        for i in range(n):
            out.append(make_rpd(os.path.join(self.tmp, f"m{i}.rpd"),
                                ops=[(0, 0, 10, 5, 2), (1, 5, 20, 5, 3), (0, 30, 40, 5, 2)],
                                apis=[(1, 1, 0, 4, 4, 1, 1, 1)], links=[(1, 1)]))
        return out

    def test_files_replaced_mid_session(self):
        m = self.members(4)
        hostile = make_rpd(os.path.join(self.tmp, "text.rpd"), ops=[(0, 0, 10, 5, 2)])
        c = sqlite3.connect(hostile)
        c.execute("UPDATE rocpd_op SET gpuId = 'abc', start = '12'")
        c.commit()
        c.close()
        with open(os.path.join(self.tmp, "junk.bin"), "wb") as f:
            f.write(b"not a database" * 100)
        script = (f"load(); c.execute(\"SELECT rocpd_open('{self.tmp}/m*.rpd')\")\n"
                  "for s in json.loads(sys.argv[2]): c.execute(s).fetchall()\n"  # probes, profiles, connections
                  f"os.replace('{hostile}', '{m[0]}')\n"                      # text where integers were
                  f"os.replace('{self.tmp}/junk.bin', '{m[1]}')\n"            # not SQLite any more
                  f"open('{m[2]}', 'r+b').truncate(2048)\n"                    # truncated in place
                  f"os.remove('{m[3]}')\n")                                    # gone
        # Every table after the replacements, then again once the broken members are closed.
        script += ("for s in json.loads(sys.argv[2]): q(s)\n"
                   "for db in ('m1', 'm2', 'm3'): c.execute('SELECT rocpd_close(?)', (db,))\n")
        lines = run_script(self, script, EVERY_TABLE)
        self.assertEqual(len(lines), 2 * len(EVERY_TABLE))
        for query, line in zip(EVERY_TABLE, lines):
            with self.subTest(query=query):
                self.assertTrue(line.startswith("ok") or clear_error(line), line)
        lines = lines[len(EVERY_TABLE):]
        for query, line in zip(EVERY_TABLE, lines):
            with self.subTest(query=query, closed=True):
                # (m0 alone spans 2 ns: 3 utilization buckets cannot divide it, said as such.)
                self.assertTrue(line.startswith("ok") or clear_error(line) or "buckets cannot divide" in line, line)
        self.assertEqual(lines[:3], ["ok 1", "ok 0", "ok 1"])  # m0 alone: 1 op, no API call, 1 member

    def test_double_loads(self):
        m = self.members(3)
        script = (f"load(); c.execute(\"SELECT rocpd_open('{m[0]}')\"); load()\n"
                  f"c.execute(\"SELECT rocpd_open('{m[1]}')\"); c.execute('SELECT count(*) FROM rocpd_busy').fetchall()\n"
                  f"load(); load(); c.execute(\"SELECT rocpd_open('{m[2]}')\")\n")
        lines = run_script(self, script, EVERY_TABLE + ["SELECT rocpd_close()", "SELECT * FROM rocpd_members"])
        for query, line in zip(EVERY_TABLE, lines):
            with self.subTest(query=query):
                self.assertTrue(line.startswith("ok"), line)
        self.assertEqual(lines[:3], ["ok 9", "ok 3", "ok 3"])
        self.assertEqual(lines[-2:], ["ok 1", "ok 0"])

    def test_temp_name_clashes(self):
        self.members(1)
        names = ["rocpd_members", "rocpd_ops", "rocpd_apis", "rocpd_op_groups", "rocpd_counters", "rocpd_busy",
                 "rocpd_check", "rocpd_kernel_summary", "rocpd_run_labels", "rocpd_op_launches",
                 "rocpd_kernel_stacks", "rocpd_queue_steps"]
        for kind in ("TABLE", "VIEW"):
            for name in names:
                with self.subTest(kind=kind, name=name):
                    made = f"CREATE TEMP {kind} {name} " + ("(x)" if kind == "TABLE" else "AS SELECT 1 AS x")
                    script = (f"c.execute('{made}')\n"
                              "try:\n    load(); print('loaded', flush=True)\n"
                              "except sqlite3.Error as e:\n    print('error', e, flush=True)\n"
                              f"c.execute('DROP {kind} temp.{name}'); load()\n"
                              f"c.execute(\"SELECT rocpd_open('{self.tmp}')\")\n")
                    lines = run_script(self, script, EVERY_TABLE)
                    self.assertTrue(lines[0].startswith("error") and
                                    f"rocpd_ext: cannot load: temp.{name} already exists" in lines[0], lines[0])
                    for query, line in zip(EVERY_TABLE, lines[1:]):
                        self.assertTrue(line.startswith("ok"), (query, line))

    def test_recursive_named_unions(self):
        main_db = make_rpd(os.path.join(self.tmp, "main.rpd"), ops=[(0, 0, 10, 5, 2), (0, 20, 25, 5, 2)])
        script = ("c.close(); c = sqlite3.connect(sys.argv[3], isolation_level=None); c.enable_load_extension(True)\n"
                  "c.text_factory = bytes; load()\n"
                  "c.execute('CREATE TABLE b(x)'); c.execute('CREATE VIRTUAL TABLE a USING rocpd_union(b)')\n"
                  "c.execute('DROP TABLE b'); c.execute('CREATE VIRTUAL TABLE b USING rocpd_union(a)')\n"
                  "c.execute('CREATE TABLE v(x)'); c.execute('CREATE VIRTUAL TABLE w2 USING rocpd_union(v)')\n"
                  "c.execute('CREATE VIRTUAL TABLE w USING rocpd_union(w2)')\n"
                  "c.execute('DROP TABLE v'); c.execute('CREATE VIRTUAL TABLE v USING rocpd_union(w)')\n")
        cycles = ["SELECT * FROM a", "SELECT * FROM b", "SELECT * FROM w", "SELECT count(*) FROM a, b",
                  "SELECT * FROM rocpd_ops WHERE start IN (SELECT x FROM w)"]
        body = script.replace("sys.argv[3]", repr(main_db))
        lines = run_script(self, body, cycles + EVERY_TABLE)
        for query, line in zip(cycles, lines):
            with self.subTest(query=query):
                self.assertTrue(line.startswith("error") and "reads this table again" in line, line)
        for query, line in zip(EVERY_TABLE, lines[len(cycles):]):
            with self.subTest(query=query):
                self.assertTrue(line.startswith("ok"), line)


if __name__ == "__main__":
    main()
