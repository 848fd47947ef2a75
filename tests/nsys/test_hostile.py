"""Hostile Nsight Systems exports: copies of a generated export with tables dropped, versions changed,
keys removed, names NULL or dangling, text in numeric columns. Each gives a clear error naming the
file (and the table, column or version), or reads as documented; nothing crashes (queries run in a
child process)."""
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
os.environ.setdefault("ROCPD_SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))
from rocpd_testlib import EXT, generate, main  # noqa: E402

QUERIES = ["SELECT count(*), sum(duration) FROM rocpd_ops", "SELECT count(*) FROM rocpd_apis",
           "SELECT * FROM rocpd_kernels", "SELECT * FROM rocpd_copies", "SELECT * FROM rocpd_members",
           "SELECT * FROM rocpd_kernel_summary", "SELECT * FROM rocpd_busy", "SELECT * FROM rocpd_kernel_stacks",
           "SELECT * FROM rocpd_idle_breakdown", "SELECT * FROM rocpd_launch_stats", "SELECT * FROM rocpd_queue_depth",
           "SELECT * FROM rocpd_comm_overlap"]


def run(path, queries, attach=False, env=None):
    """Opens `path` (rocpd_open, or ATTACH) in a child process and runs `queries`: one line per query,
    'ok <json rows>' or 'error <message>'; the opening itself is the first line."""
    script = (
        "import sqlite3, sys, json\n"
        "c = sqlite3.connect(':memory:'); c.enable_load_extension(True); c.load_extension(sys.argv[1])\n"
        "c.text_factory = lambda b: b.decode('utf-8', 'replace')\n"
        "def go(q, *a):\n"
        "    try: print('ok', json.dumps(c.execute(q, a).fetchall(), default=repr), flush=True)\n"
        "    except sqlite3.Error as e: print('error', str(e).replace(chr(10), ' '), flush=True)\n"
        "if sys.argv[4] == '1': go('ATTACH ? AS h', 'file:' + sys.argv[2] + '?mode=ro')\n"
        "else: go('SELECT rocpd_open(?)', sys.argv[2])\n"
        "for q in json.loads(sys.argv[3]): go(q)\n")
    out = subprocess.run([sys.executable, "-c", script, EXT, path, json.dumps(queries), "1" if attach else "0"],
                         capture_output=True, text=True, timeout=120, env=env)
    if out.returncode != 0:
        raise AssertionError(f"the host process died ({out.returncode}): {out.stderr[-2000:]}")
    return out.stdout.splitlines()


class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_hostile_")
        truth = generate(os.path.join(cls.tmp, "gen"), 1, "nsys", 400, 3, "--memsets", 5, "--sessions", 2)
        cls.source = os.path.join(cls.tmp, "gen", truth["files"][0]["file"])
        cls.kernels = truth["files"][0]["kernels"]
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def variant(self, *sql):
        """A copy of the generated export changed by `sql`."""
        Hostile.n += 1
        path = os.path.join(self.tmp, f"hostile{self.n}.sqlite")
        shutil.copy(self.source, path)
        con = sqlite3.connect(path)
        for s in sql:
            con.execute(s)
        con.commit()
        con.close()
        return path

    def refused(self, path, *words, attach=False):
        lines = run(path, ["SELECT count(*) FROM rocpd_ops"], attach)
        if attach:  # ATTACH succeeds; the first query over the schema refuses it
            self.assertEqual(lines[0], "ok []")
            lines = lines[1:]
        self.assertTrue(lines[0].startswith("error "), lines)
        self.assertIn(os.path.basename(path), lines[0])
        for w in words:
            self.assertIn(w, lines[0])
        return lines[0]

    def answers(self, path, queries=QUERIES):
        lines = run(path, queries)
        self.assertTrue(lines[0].startswith("ok "), lines[0])
        return lines[1:]

    def test_the_source_reads(self):
        lines = self.answers(self.source)
        self.assertTrue(all(line.startswith("ok ") for line in lines), lines)
        self.assertEqual(json.loads(lines[0][3:])[0][0], 400 * 2 + 10)

    def test_missing_optional_tables_are_empty(self):
        for table in ("CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME",
                      "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "TARGET_INFO_GPU",
                      "TARGET_INFO_SESSION_START_TIME", "ENUM_NSYS_EVENT_CLASS", "ENUM_CUDA_MEMCPY_OPER", "PROCESSES",
                      "TARGET_INFO_SYSTEM_ENV"):
            with self.subTest(table=table):
                lines = self.answers(self.variant(f"DROP TABLE {table}"))
                self.assertTrue(all(line.startswith("ok ") for line in lines), lines)
        # Only kernels: the ops are the kernels, no API calls, every analysis answers.
        lines = self.answers(self.variant("DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET", "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY",
                                          "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME", "DROP TABLE NVTX_EVENTS",
                                          "DROP TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
        self.assertTrue(all(line.startswith("ok ") for line in lines), lines)
        self.assertEqual(json.loads(lines[0][3:])[0][0], self.kernels)
        self.assertEqual(json.loads(lines[1][3:]), [[0]])
        # No events at all (a report of CPU samples only): an empty member.
        lines = self.answers(self.variant(*[f"DROP TABLE {t}" for t in (
            "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",
            "CUPTI_ACTIVITY_KIND_KERNEL")]))
        self.assertEqual(json.loads(lines[0][3:]), [[0, None]])

    def test_without_names_or_metadata(self):
        # No StringIds: every row is read, kernel and call names are NULL, and rocpd_members says why.
        lines = self.answers(self.variant("DROP TABLE StringIds"), [
            "SELECT count(*), count(name) FROM rocpd_ops WHERE kind = 'kernel'",
            "SELECT count(name) FROM rocpd_apis WHERE domain IN ('cuda', 'cuda_driver')", "SELECT notes FROM rocpd_members"])
        self.assertEqual(lines[0], f"ok [[{self.kernels}, 0]]")
        self.assertEqual(lines[1], "ok [[0]]")
        self.assertIn("no StringIds table", lines[2])
        # Without META_DATA_EXPORT the tables still say nsys: read, without a version.
        lines = self.answers(self.variant("DROP TABLE META_DATA_EXPORT"),
                             ["SELECT format, version, schema_version, notes FROM rocpd_members",
                              "SELECT count(*) FROM rocpd_ops"])
        row = json.loads(lines[0][3:])[0]
        self.assertEqual(row[:3], ["nsys", None, 0])
        self.assertIn("no EXPORT_SCHEMA_VERSION", row[3])
        self.assertEqual(lines[1], f"ok [[{400 * 2 + 10}]]")
        # Neither the export's metadata nor StringIds: nothing says nsys (no trace at all).
        line = self.refused(self.variant("DROP TABLE META_DATA_EXPORT", "DROP TABLE StringIds"))
        self.assertNotIn("internal", line)

    def test_versions(self):
        # No version list: every version is read by its tables and columns, and shown as written.
        for version in ("3.24.0", "3.26.0", "4.0.0", "2.25.0", "3.25", "abc", "", "3.25.0.1", " 3.25.0", "3.25.7"):
            with self.subTest(version=version):
                lines = self.answers(self.variant(
                    f"UPDATE META_DATA_EXPORT SET value = '{version}' WHERE name = 'EXPORT_SCHEMA_VERSION'"),
                    ["SELECT version, schema_version FROM rocpd_members", "SELECT count(*) FROM rocpd_ops"])
                # The major number as every adapter reads it (strtol: leading blanks skipped).
                m = re.match(r"\s*(\d+)(\.|$)", version)
                major = int(m.group(1)) if m else 0
                self.assertEqual(json.loads(lines[0][3:]), [[version or None, major]])
                self.assertEqual(lines[1], f"ok [[{400 * 2 + 10}]]")
        for change in ("UPDATE META_DATA_EXPORT SET value = NULL WHERE name = 'EXPORT_SCHEMA_VERSION'",
                       "DELETE FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"):
            lines = self.answers(self.variant(change), ["SELECT version, notes FROM rocpd_members"])
            version, notes = json.loads(lines[0][3:])[0]
            self.assertIsNone(version)
            self.assertIn("no EXPORT_SCHEMA_VERSION", notes)

    def test_missing_columns(self):
        """A column the file lacks reads NULL where it is needed, and rocpd_members.notes names it."""
        raw = sqlite3.connect(self.source)
        strings = dict(raw.execute("SELECT id, value FROM StringIds"))
        demangled = sorted(strings[d] for (d,) in raw.execute("SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"))
        device_ends = sorted((r, s if sk in (2, 3, 5) else None, d if dk in (2, 3, 5) else None) for r, s, d, sk, dk in
                             raw.execute("SELECT rowid, coalesce(srcDeviceId, deviceId), coalesce(dstDeviceId, deviceId),"
                                         " srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"))
        inline = raw.execute("SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60) AND text IS NOT NULL"
                             ).fetchone()[0]
        raw.close()
        cases = [
            ("CUPTI_ACTIVITY_KIND_KERNEL", "mangledName",
             "SELECT name FROM rocpd_ops WHERE kind = 'kernel' ORDER BY name", [[n] for n in demangled]),
            ("CUPTI_ACTIVITY_KIND_KERNEL", "graphId", "SELECT count(graph_id) FROM rocpd_kernels", [[0]]),
            ("CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind",
             "SELECT op_id, src_gpu, dst_gpu FROM rocpd_copies WHERE name IS NULL ORDER BY op_id",
             [list(x) for x in device_ends]),
            ("CUPTI_ACTIVITY_KIND_RUNTIME", "nameId",
             "SELECT count(*), count(name), count(DISTINCT domain) FROM rocpd_apis WHERE domain LIKE 'cuda%' "
             "AND domain <> 'cuda_sync'", None),
            ("NVTX_EVENTS", "textId", "SELECT count(name) FROM rocpd_apis WHERE domain = 'marker'", [[inline]]),
            ("CUPTI_ACTIVITY_KIND_KERNEL", "globalPid",
             "SELECT count(pid), count(correlation_id) FROM rocpd_ops WHERE kind = 'kernel'", [[0, 0]]),
        ]
        for table, column, query, want in cases:
            with self.subTest(table=table, column=column):
                lines = self.answers(self.variant(f"ALTER TABLE {table} DROP COLUMN {column}"),
                                     [query, "SELECT notes FROM rocpd_members"])
                got = json.loads(lines[0][3:])
                if want is None:  # names NULL, runtime and driver still told apart by eventClass
                    self.assertEqual(got[0][1:], [0, 2])
                    self.assertGreater(got[0][0], 0)
                else:
                    self.assertEqual(got, want)
                self.assertIn(f"{table} lacks", lines[1])
                self.assertIn(column, lines[1])
        # Without eventClass, runtime and driver calls are told apart by their names.
        lines = self.answers(self.variant("ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME DROP COLUMN eventClass"),
                             ["SELECT domain, count(*) FROM rocpd_apis WHERE domain LIKE 'cuda%' AND domain <> "
                              "'cuda_sync' GROUP BY 1 ORDER BY 1"])
        got = dict(json.loads(lines[0][3:]))
        raw = sqlite3.connect(self.source)
        want = dict(raw.execute("SELECT CASE eventClass WHEN 0 THEN 'cuda' ELSE 'cuda_driver' END, count(*) "
                                "FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1").fetchall())
        raw.close()
        self.assertEqual(got, want)
        # The host's name and the version are metadata: NULL without their value columns.
        lines = self.answers(self.variant("ALTER TABLE TARGET_INFO_SYSTEM_ENV DROP COLUMN value",
                                          "ALTER TABLE META_DATA_EXPORT DROP COLUMN value"),
                             ["SELECT hostname, version FROM rocpd_members"])
        self.assertEqual(lines[0], "ok [[null, null]]")

    def test_keys(self):
        # StringIds without its primary key, holding a repeated id: a name join would duplicate rows.
        self.refused(self.variant(
            "CREATE TABLE s2 (id INTEGER, value TEXT)", "INSERT INTO s2 SELECT id, value FROM StringIds",
            "INSERT INTO s2 SELECT id, 'again' FROM StringIds LIMIT 1", "DROP TABLE StringIds",
            "ALTER TABLE s2 RENAME TO StringIds"), "StringIds", "PRIMARY KEY")
        self.refused(self.variant(
            "CREATE TABLE e2 (id INTEGER, name TEXT, label TEXT)", "INSERT INTO e2 SELECT * FROM ENUM_NSYS_EVENT_CLASS",
            "DROP TABLE ENUM_NSYS_EVENT_CLASS", "ALTER TABLE e2 RENAME TO ENUM_NSYS_EVENT_CLASS"),
            "ENUM_NSYS_EVENT_CLASS", "PRIMARY KEY")
        # An event table as a view, or with a column hiding the rowid.
        self.refused(self.variant("ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET RENAME TO m2",
                                  "CREATE VIEW CUPTI_ACTIVITY_KIND_MEMSET AS SELECT * FROM m2"),
                     "CUPTI_ACTIVITY_KIND_MEMSET", "view")
        self.refused(self.variant("ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET ADD COLUMN rowid INTEGER"),
                     "CUPTI_ACTIVITY_KIND_MEMSET", "rowid")
        # Two processes sharing a pid (other hardware ids): their correlation ids cannot be told apart.
        self.refused(self.variant("INSERT INTO PROCESSES SELECT globalPid + (1 << 56), pid, name FROM PROCESSES "
                                  "WHERE pid > 1 LIMIT 1"), "two processes with pid")

    def test_null_and_dangling_names(self):
        path = self.variant(
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET mangledName = NULL, demangledName = 999999 WHERE rowid % 3 = 0",
            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET mangledName = (SELECT max(id) + 1 FROM StringIds) WHERE rowid % 3 = 1",
            "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 999999 WHERE rowid % 2 = 0",
            "UPDATE NVTX_EVENTS SET text = NULL, textId = NULL WHERE rowid % 2 = 0")
        lines = self.answers(path, QUERIES + [
            "SELECT count(*) FROM rocpd_ops WHERE kind = 'kernel' AND name IS NULL",
            "SELECT count(*) FROM rocpd_apis WHERE domain IN ('cuda', 'cuda_driver') AND name IS NULL",
            "SELECT count(*) FROM rocpd_apis WHERE domain = 'marker' AND name IS NULL"])
        self.assertTrue(all(line.startswith("ok ") for line in lines), lines)
        # Rows are never lost: same counts as the source, the names NULL where nothing names them.
        self.assertEqual(json.loads(lines[0][3:])[0][0], 400 * 2 + 10)
        con = sqlite3.connect(path)
        want = [con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 3 = 0").fetchone()[0],
                con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid % 2 = 0").fetchone()[0],
                con.execute("SELECT count(*) FROM NVTX_EVENTS WHERE rowid % 2 = 0 AND eventType IN (34, 59, 60)"
                            ).fetchone()[0]]
        con.close()
        self.assertEqual([json.loads(x[3:])[0][0] for x in lines[-3:]], want)
        self.assertTrue(all(w > 0 for w in want))

    def test_text_in_numeric_columns(self):
        path = self.variant("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc' WHERE rowid = 3",
                            "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = 'p', correlationId = 'c' WHERE rowid = 4",
                            "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 'x' WHERE rowid = 5",
                            "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 'k', bytes = 'b' WHERE rowid = 1")
        lines = run(path, ["SELECT count(*) FROM rocpd_ops", "SELECT pid, correlation_id FROM rocpd_ops "
                           "WHERE kind = 'kernel' AND op_id = 4", "SELECT pid, tid FROM rocpd_apis WHERE api_id = 5 "
                           "AND domain IN ('cuda', 'cuda_driver')", "SELECT name, bytes, src_gpu FROM rocpd_copies WHERE op_id = 1",
                           "SELECT * FROM rocpd_busy", "SELECT * FROM rocpd_kernel_stacks",
                           "SELECT * FROM rocpd_launch_stats", "SELECT * FROM rocpd_kernel_summary"])
        self.assertEqual(lines[0], "ok [[1]]")
        self.assertEqual(lines[1], f"ok [[{400 * 2 + 10}]]")
        self.assertEqual(lines[2], "ok [[null, null]]")  # not a GlobalId: no pid, no correlation
        self.assertEqual(lines[3], "ok [[null, null]]")
        self.assertEqual(lines[4], 'ok [["[CUDA memcpy k]", "b", null]]')
        # Interval tables refuse a time that is not a number (docs/intervals.md).
        self.assertTrue(lines[5].startswith("error ") and "must be an integer (ns), got text 'abc'" in lines[5],
                        lines[5])
        for line in lines[6:]:
            self.assertTrue(line.startswith("ok ") or "must be an integer (ns), got text 'abc'" in line, line)


class Reports(unittest.TestCase):
    """.nsys-rep files (nsys's own container, recognised by its first bytes): refused with the export
    command to run, or, with ROCPD_NSYS_EXPORT=1, exported by the `nsys` on PATH into a private
    temporary database (here a stand-in script for nsys: it copies a generated export to --output)."""

    # What every report starts with (the real 2025.3 report of docs/formats.md, its first 50 bytes).
    HEAD = b"NVIDIA Tegra Profiler Report 2025@3@2@474-253236389321v0.\n\x0bLocal (CLI)\x12\x04\x08\x0c"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_rep_")
        truth = generate(os.path.join(cls.tmp, "gen"), 1, "nsys", 50, 3)
        cls.export = os.path.join(cls.tmp, "gen", truth["files"][0]["file"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def report(self, name):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(self.HEAD + os.urandom(4096))
        return path

    def write_stand_in_nsys(self, fake, before=""):
        """An `nsys` at `fake` that runs the shell lines `before`, then copies the generated export to
        the --output its caller names, as `nsys export` writes it."""
        with open(fake, "w") as f:
            f.write("#!/bin/sh\n" + before +
                    "out=''; while [ $# -gt 1 ]; do [ \"$1\" = --output ] && out=\"$2\"; shift; done\n"
                    f"cp '{self.export}' \"$out\"\n")
        os.chmod(fake, 0o755)

    def test_message(self):
        for name in ("r/report1.nsys-rep", "r/old.qdrep", "r/renamed.sqlite"):  # by content, whatever the name
            with self.subTest(name=name):
                path = self.report(name)
                line = run(path, [])[0]
                self.assertTrue(line.startswith("error "), line)
                self.assertIn(os.path.basename(path), line)
                self.assertIn("an Nsight Systems report (.nsys-rep), not an SQLite database", line)
                self.assertIn("nsys export --type sqlite --output", line)
                self.assertIn("ROCPD_NSYS_EXPORT=1", line)
        # A directory of reports only: nothing to open, each report named with the command to run.
        only = os.path.join(self.tmp, "only")
        self.report("only/rank0.nsys-rep")
        line = run(only, [])[0]
        self.assertTrue(line.startswith("error ") and "rank0.nsys-rep" in line and "nsys export" in line, line)
        # Beside its export (nsys profile --export sqlite), the export is the member.
        both = os.path.join(self.tmp, "both")
        self.report("both/rank0.nsys-rep")
        shutil.copy(self.export, os.path.join(both, "rank0.sqlite"))
        lines = run(both, ["SELECT db FROM rocpd_members", "SELECT path, reason FROM rocpd_skipped"])
        self.assertEqual(lines[:2], ["ok [[1]]", 'ok [["rank0"]]'])
        self.assertIn("rank0.nsys-rep", lines[2])
        self.assertIn("whose export", lines[2])

    def test_export_hook(self):
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir, exist_ok=True)
        log = os.path.join(self.tmp, "nsys.log")
        fake = os.path.join(bindir, "nsys")
        self.write_stand_in_nsys(fake, f"echo \"$@\" >> '{log}'\n")
        jobdir = os.path.join(self.tmp, "hook")
        path = self.report("hook/rank3.nsys-rep")
        tmpdir = os.path.join(self.tmp, "tmpdir")
        os.makedirs(tmpdir, exist_ok=True)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), ROCPD_NSYS_EXPORT="1",
                   TMPDIR=tmpdir, SQLITE_TMPDIR=tmpdir)
        for target in (path, jobdir):
            with self.subTest(target=target):
                lines = run(target, ["SELECT db, path, format, rank FROM rocpd_members", "SELECT count(*) FROM rocpd_ops",
                                     "SELECT count(*) FROM rocpd_members"], env=env)
                self.assertEqual(lines[0], "ok [[1]]")
                self.assertEqual(json.loads(lines[1][3:]), [["rank3", path, "nsys", 3]])
                con = sqlite3.connect(self.export)
                ops = con.execute("SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
                                  "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY)").fetchone()[0]
                con.close()
                self.assertEqual(lines[2], f"ok [[{ops}]]")
        # nsys ran as `nsys export --type sqlite --force-overwrite true --output <private tmp> <report>`;
        # nothing was written beside the report, and the private database is gone with its member.
        with open(log) as f:
            calls = f.read().splitlines()
        self.assertEqual(len(calls), 2)
        args = calls[0].split()
        self.assertEqual(args[:6], ["export", "--type", "sqlite", "--force-overwrite", "true", "--output"])
        self.assertTrue(args[6].startswith(os.path.join(tmpdir, "rocpd-nsys-")), args)
        self.assertEqual(args[7], path)
        self.assertEqual(sorted(os.listdir(jobdir)), ["rank3.nsys-rep"])
        self.assertEqual(os.listdir(tmpdir), [])
        # nsys failing, or absent from PATH: errors naming the report.
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nexit 3\n")
        line = run(path, [], env=env)[0]
        self.assertTrue(line.startswith("error ") and "rank3.nsys-rep" in line and "exit status 3" in line, line)
        line = run(path, [], env=dict(env, PATH=os.path.join(self.tmp, "nowhere")))[0]
        self.assertTrue(line.startswith("error ") and "nsys could not be run" in line, line)
        self.assertEqual(os.listdir(tmpdir), [])


    def test_export_cached(self):
        """Exports are kept in the conversion cache like Kineto conversions (docs/formats.md, "The
        conversion cache"): the stand-in nsys writes a line per run, so a served open is one that ran
        nothing. The rank is read from the report's name, not the cache file's."""
        bindir = os.path.join(self.tmp, "cbin")
        os.makedirs(bindir, exist_ok=True)
        log = os.path.join(self.tmp, "cnsys.log")
        fake = os.path.join(bindir, "nsys")

        def write_fake(extra=""):
            self.write_stand_in_nsys(fake, f"echo \"$@\" >> '{log}'\n{extra}")

        def runs():
            with open(log) as f:
                return f.read().splitlines()

        write_fake()
        open(log, "w").close()
        # A per-rank name (nsys profile -o job_%q{RANK}) that no cache file's name holds.
        path = self.report("cjob/job_rank6.nsys-rep")
        xdg = os.path.join(self.tmp, "cxdg")
        cache = os.path.join(xdg, "rocpd_ext")
        tmpdir = os.path.join(self.tmp, "ctmp")
        os.makedirs(tmpdir, exist_ok=True)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), ROCPD_NSYS_EXPORT="1",
                   XDG_CACHE_HOME=xdg, TMPDIR=tmpdir, SQLITE_TMPDIR=tmpdir)
        env.pop("ROCPD_CACHE", None)  # the suite's environment turns the cache off (tests/CMakeLists.txt)
        con = sqlite3.connect(self.export)
        ops = con.execute("SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
                          "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY)").fetchone()[0]
        con.close()
        queries = ["SELECT db, rank, conversion FROM rocpd_members", "SELECT count(*) FROM rocpd_ops"]

        def entries():
            return sorted(n for n in os.listdir(cache) if n.startswith("nsys-")) if os.path.isdir(cache) else []

        def opened(conversion, env=env):
            lines = run(path, queries, env=env)
            self.assertEqual(lines[0], "ok [[1]]", lines)
            self.assertEqual(json.loads(lines[1][3:]), [["job_rank6", 6, conversion]])
            self.assertEqual(lines[2], f"ok [[{ops}]]")

        opened("converted, cached")
        self.assertEqual(len(runs()), 1)
        args = runs()[0].split()
        # nsys wrote into the cache directory (a name ending .sqlite), nothing beside the report or in TMPDIR.
        self.assertTrue(args[6].startswith(os.path.join(cache, "rocpd-pin-")) and args[6].endswith(".sqlite"), args)
        self.assertEqual(args[7], path)
        first = entries()
        self.assertEqual(len(first), 1)
        self.assertEqual(sorted(os.listdir(os.path.dirname(path))), ["job_rank6.nsys-rep"])
        self.assertEqual(os.listdir(tmpdir), [])
        self.assertEqual(stat.S_IMODE(os.stat(cache).st_mode), 0o700)
        # Served from the cache: nsys did not run, and the rank is still the report's.
        opened("cached")
        self.assertEqual(len(runs()), 1)
        self.assertEqual(entries(), first)
        # The report changed (its mtime only): exported again, the old entry replaced.
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        opened("converted, cached")
        self.assertEqual(len(runs()), 2)
        second = entries()
        self.assertEqual(len(second), 1)
        self.assertNotEqual(second, first)
        opened("cached")
        self.assertEqual(len(runs()), 2)
        # Another nsys (here the same path rewritten: its size and mtime changed) exports again.
        write_fake("true\n")
        opened("converted, cached")
        self.assertEqual(len(runs()), 3)
        third = entries()
        self.assertEqual(len(third), 1)
        self.assertNotEqual(third, second)
        # ROCPD_CACHE=0: nsys runs at every open and the cache directory is left as it was.
        before = sorted(os.listdir(cache))
        for _ in range(2):
            opened("converted, not cached: ROCPD_CACHE=0", env=dict(env, ROCPD_CACHE="0"))
        self.assertEqual(len(runs()), 5)
        self.assertEqual(sorted(os.listdir(cache)), before)
        self.assertEqual(os.listdir(tmpdir), [])
        # rocpd_cache_clear() removes the entry (the member open on it keeps reading its own link).
        lines = run(path, ["SELECT json_extract(rocpd_cache_clear(), '$.entries')", "SELECT count(*) FROM rocpd_ops"],
                    env=env)
        self.assertEqual(lines, ["ok [[1]]", "ok [[1]]", f"ok [[{ops}]]"])
        self.assertEqual(entries(), [])
        self.assertEqual(len(runs()), 5)
        # An export whose process was killed (its pin's process lock gone) is swept by the next process.
        stale = os.path.join(cache, "rocpd-pin-abcd1234-efgh5678.sqlite")
        with open(stale, "wb") as f:
            f.write(b"partial export")
        opened("converted, cached")
        self.assertEqual(len(runs()), 6)
        self.assertFalse(os.path.exists(stale))
        # A report's name with the characters a URI gives meaning to still reaches the probe whole.
        odd = self.report("cjob/a&b=1%2F#?;rank7.nsys-rep")
        lines = run(odd, ["SELECT path, rank, conversion FROM rocpd_members"], env=env)
        self.assertEqual(lines[0], "ok [[1]]", lines)
        self.assertEqual(json.loads(lines[1][3:]), [[odd, 7, "converted, cached"]])


    def test_export_progress(self):
        """rocpd_progress(1) while nsys exports (its own output is discarded): a line naming the report,
        its size and the seconds; ROCPD_PROGRESS_INTERVAL=0 writes one at every poll of the wait."""
        bindir = os.path.join(self.tmp, "pbin")
        os.makedirs(bindir, exist_ok=True)
        self.write_stand_in_nsys(os.path.join(bindir, "nsys"), "sleep 0.3\n")
        path = self.report("prog/rank1.nsys-rep")
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), ROCPD_NSYS_EXPORT="1",
                   ROCPD_PROGRESS_INTERVAL="0")
        script = ("import sqlite3, sys\n"
                  "c = sqlite3.connect(':memory:'); c.enable_load_extension(True); c.load_extension(sys.argv[1])\n"
                  "c.execute('SELECT rocpd_progress(1)')\n"
                  "print(c.execute('SELECT rocpd_open(?)', (sys.argv[2],)).fetchone()[0])\n")
        out = subprocess.run([sys.executable, "-c", script, EXT, path], capture_output=True, text=True, env=env,
                             timeout=120)
        self.assertEqual(out.stdout.strip(), "1", out.stderr[-2000:])
        lines = [line for line in out.stderr.splitlines() if line.startswith("rocpd: ")]
        self.assertGreater(len(lines), 1, out.stderr[-2000:])
        size = f"{os.path.getsize(path) / 1e6:.1f}"
        seconds = 0.0
        for line in lines:
            m = re.fullmatch(r"rocpd: rocpd_open: 0/1 members done, now (.+), nsys export of a (\d+\.\d) MB report, "
                             r"(\d+\.\d) s", line)
            self.assertIsNotNone(m, line)
            self.assertEqual((m.group(1), m.group(2)), (path, size))
            self.assertGreaterEqual(float(m.group(3)), seconds)
            seconds = float(m.group(3))


class RawValues(unittest.TestCase):
    """The differential tester's hostile export (values stored as written, whatever the declared
    type): a constraint the member compares must select what SQLite selects on the returned values."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(HERE, "..", "differential"))
        from hostile_nsys import build_nsys
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_raw_")
        cls.path = os.path.join(cls.tmp, "h.sqlite")
        build_nsys(cls.path, 1_000_000)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_pushed_equals_unpushed(self):
        pairs = [("rocpd_ops", "graph_id", 5), ("rocpd_kernels", "graph_id", 5), ("rocpd_copies", "src_gpu", 1),
                 ("rocpd_copies", "dst_gpu", 2), ("rocpd_ops", "name", "12"), ("rocpd_kernels", "name", "12"),
                 ("rocpd_apis", "name", "12"), ("rocpd_ops", "gpu", 2), ("rocpd_apis", "pid", 4242),
                 ("rocpd_ops", "correlation_id", (4242 << 32) | 1), ("rocpd_apis", "end", 1_000_000)]
        queries = []
        for table, column, value in pairs:
            v = repr(value) if isinstance(value, str) else str(value)
            queries.append(f"SELECT count(*) FROM {table} WHERE {column} = {v}")
            queries.append(f"SELECT count(*) FROM {table} WHERE +{column} = {v}")
            queries.append(f"SELECT count(*) FROM {table} WHERE {column} >= {v}")
            queries.append(f"SELECT count(*) FROM {table} WHERE +{column} >= {v}")
        lines = run(self.path, queries)
        self.assertTrue(lines[0].startswith("ok "), lines[0])
        for i, (table, column, value) in enumerate(pairs):
            with self.subTest(table=table, column=column):
                eq, eq_plain, ge, ge_plain = lines[1 + 4 * i:5 + 4 * i]
                self.assertTrue(eq.startswith("ok "), eq)
                self.assertEqual(eq, eq_plain)
                self.assertEqual(ge, ge_plain)
        # The fixture holds the values that need it.
        self.assertNotEqual(lines[1], "ok [[0]]")
        self.assertNotEqual(lines[9], "ok [[0]]")
        self.assertNotEqual(lines[17], "ok [[0]]")


if __name__ == "__main__":
    main()
