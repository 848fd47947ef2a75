"""rocpd_open of directories (issue 23): rocprofv3's default layout `%hostname%/%pid%_results.db`
opens in one call, subdirectories included; SQLite files holding no trace are skipped and listed
in rocpd_skipped; member names stay unique across subdirectories; an error only when nothing
opens, saying what was found and skipped. Counts come from the raw files."""
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
import unittest

from rocpd_testlib import FIXTURES, ChecksumGuard, connect, generate, main, set_files

TIMING_SCALE = float(os.environ.get("ROCPD_TIMING_SCALE", "1"))


def raw_ops(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("SELECT (SELECT count(*) FROM rocpd_kernel_dispatch) + "
                           "(SELECT count(*) FROM rocpd_memory_copy)").fetchone()[0]
    finally:
        con.close()


def plain_sqlite(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes(line TEXT)")
    con.execute("INSERT INTO notes VALUES ('not a trace')")
    con.commit()
    con.close()


class RocprofTree(ChecksumGuard):
    watched = set_files("same_rocpd")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_tree_")
        self.out = os.path.join(self.tmp, "out")
        src = set_files("same_rocpd")
        # Two hosts, pids that repeat across hosts, a trace at the top, stray non-trace SQLite files.
        self.layout = {"host1/123_results": src[0], "host1/124_results": src[1], "host2/123_results": src[2],
                       "rank3": src[3]}
        for name, f in self.layout.items():
            os.makedirs(os.path.dirname(os.path.join(self.out, name)), exist_ok=True)
            shutil.copyfile(f, os.path.join(self.out, name + ".db"))
        plain_sqlite(os.path.join(self.out, "notes.db"))
        plain_sqlite(os.path.join(self.out, "host2", "cache.sqlite"))
        with open(os.path.join(self.out, "README.txt"), "w") as f:
            f.write("not a database, not a trace name\n")

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.tmp)

    def check_members(self, con):
        got = dict(con.execute("SELECT db, ops FROM rocpd_members"))
        want = {name: raw_ops(os.path.join(self.out, name + ".db")) for name in self.layout}
        self.assertEqual(got, want)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops").fetchone(), (sum(want.values()),))
        self.assertEqual(dict(con.execute("SELECT db, count(*) FROM rocpd_ops GROUP BY db")), want)

    def test_tree_opens_in_one_call(self):
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.out,)).fetchone(), (4,))
        self.check_members(con)
        skipped = con.execute("SELECT pattern, path, reason FROM rocpd_skipped ORDER BY path").fetchall()
        self.assertEqual(skipped, [
            (self.out, os.path.join(self.out, "host2", "cache.sqlite"),
             "an SQLite database that holds no rpd or rocpd trace"),
            (self.out, os.path.join(self.out, "notes.db"), "an SQLite database that holds no rpd or rocpd trace")])
        # Opening it again adds nothing and skips the same files.
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.out,)).fetchone(), (0,))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_skipped").fetchone(), (2,))

    def test_glob_over_hosts_names_alike(self):
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (os.path.join(self.out, "*", "*.db"),)).fetchone(), (3,))
        self.assertEqual(sorted(r[0] for r in con.execute("SELECT db FROM rocpd_members")),
                         ["host1/123_results", "host1/124_results", "host2/123_results"])
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_skipped").fetchone(), (0,))

    def test_file_by_file_names_by_stem(self):
        # One file at a time there is no directory to name it under: the stem, made unique.
        con = connect()
        for name in ("host1/123_results", "host2/123_results"):
            con.execute("SELECT rocpd_open(?)", (os.path.join(self.out, name + ".db"),))
        self.assertEqual(sorted(r[0] for r in con.execute("SELECT db FROM rocpd_members")),
                         ["123_results", "123_results_2"])

    def test_only_non_traces_is_an_error_naming_them(self):
        d = os.path.join(self.tmp, "empty")
        os.makedirs(os.path.join(d, "sub"))
        plain_sqlite(os.path.join(d, "notes.db"))
        plain_sqlite(os.path.join(d, "sub", "other.db"))
        with self.assertRaises(sqlite3.Error) as cm:
            connect().execute("SELECT rocpd_open(?)", (d,)).fetchall()
        self.assertEqual(str(cm.exception),
                         f"rocpd_open: '{d}' holds no trace file: skipped '{d}/notes.db' (an SQLite database that "
                         f"holds no rpd or rocpd trace), '{d}/sub/other.db' (an SQLite database that holds no rpd "
                         "or rocpd trace)")

    def test_a_named_non_trace_file_is_still_refused(self):
        p = os.path.join(self.out, "notes.db")
        with self.assertRaises(sqlite3.Error) as cm:
            connect().execute("SELECT rocpd_open(?)", (p,)).fetchall()
        self.assertIn(f"rocpd_open: '{p}': holds no rpd or rocpd trace", str(cm.exception))

    def test_damaged_trace_in_a_directory_is_still_an_error(self):
        # Only files that are no trace at all are skipped; a trace that cannot be read correctly
        # is refused by name, whatever found it (guarantees.md).
        bad = os.path.join(self.out, "host2", "125_results.db")
        with open(bad, "wb") as f:
            f.write(b"SQLite format 3\0" + b"\0" * 50)
        with self.assertRaises(sqlite3.Error) as cm:
            connect().execute("SELECT rocpd_open(?)", (self.out,)).fetchall()
        self.assertIn(f"rocpd_open: '{bad}': truncated", str(cm.exception))

    def test_unreadable_subdirectory_is_passed_over(self):
        if os.geteuid() == 0:
            self.skipTest("root reads every directory")
        locked = os.path.join(self.out, "locked")
        os.makedirs(locked)
        os.chmod(locked, 0)
        try:
            con = connect()
            self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.out,)).fetchone(), (4,))
        finally:
            os.chmod(locked, 0o755)



class JsonTracesInATree(unittest.TestCase):
    """A directory's PyTorch profiler traces are members wherever they sit; its other JSON is skipped."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_json_tree_")
        self.out = os.path.join(self.tmp, "out")
        os.makedirs(os.path.join(self.out, "node1"))
        with open(os.path.join(FIXTURES, "layouts", "kineto", "truth.json")) as f:
            self.truth = {t["file"]: t["ops"] for t in json.load(f)["files"]}
        shutil.copyfile(os.path.join(FIXTURES, "layouts", "kineto", "rank0.json"),
                        os.path.join(self.out, "node1", "rank0.json"))
        shutil.copyfile(set_files("same_rocpd")[0], os.path.join(self.out, "rank1.db"))
        with open(os.path.join(self.out, "config.json"), "w") as f:
            json.dump({"lr": 0.1, "layers": [1, 2]}, f)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_trace_found_config_skipped(self):
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.out,)).fetchone(), (2,))
        self.assertEqual(dict(con.execute("SELECT db, format FROM rocpd_members")),
                         {"node1/rank0": "kineto", "rank1": "rocpd"})
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops WHERE db = 'node1/rank0'").fetchone(),
                         (self.truth["rank0.json"],))
        self.assertEqual(con.execute("SELECT path, reason FROM rocpd_skipped").fetchall(),
                         [(os.path.join(self.out, "config.json"),
                           "JSON that is not a PyTorch profiler (Chrome) trace: an object without traceEvents")])

class ParallelProbing(unittest.TestCase):
    """rocpd_open probes a directory's files on several threads (members/parallel_probe.h); everything
    that depends on the order is decided in pattern order as ROCPD_OPEN_THREADS=1 (the host thread
    alone) decides it: names, ordinals, duplicates, skipped files, which error is raised."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_parallel_open_")
        cls.out = os.path.join(cls.tmp, "out")
        os.makedirs(cls.out)
        # Files the probing threads read (rpd, rocpd) and files the host converts itself (Kineto JSON,
        # nsys is an SQLite export: read by threads), in two subdirectories whose names collide.
        cls.truth_a = generate(os.path.join(cls.out, "a"), 24, "vendors", 20, 7)
        cls.truth_b = generate(os.path.join(cls.out, "b"), 48, "mixed", 20, 8)  # past the pool's 64 connections
        for d in ("a", "b"):
            os.remove(os.path.join(cls.out, d, "truth.json"))
        cls.traces = sorted(os.path.join(r, f) for r, _, fs in os.walk(cls.out) for f in fs)
        # A second name of a member's file (skipped: the same file) and an SQLite file without a trace.
        os.link(os.path.join(cls.out, "b", "rank4.rpd"), os.path.join(cls.out, "b", "rank4_copy.rpd"))
        plain_sqlite(os.path.join(cls.out, "a", "notes.db"))
        os.environ["XDG_CACHE_HOME"] = os.path.join(cls.tmp, "cache")  # conversions of the JSON files

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.environ.pop("ROCPD_OPEN_THREADS", None)

    def tearDown(self):
        os.environ.pop("ROCPD_OPEN_THREADS", None)

    def opened(self, threads, pattern=None):
        os.environ["ROCPD_OPEN_THREADS"] = str(threads)
        con = connect()
        n = con.execute("SELECT rocpd_open(?)", (pattern or self.out,)).fetchone()[0]
        return n, con

    def listing(self, con):
        return (con.execute("SELECT rowid, db, path, format FROM rocpd_members").fetchall(),
                con.execute("SELECT path, reason FROM rocpd_skipped").fetchall())

    def test_same_members_and_skipped_as_one_thread(self):
        n1, serial = self.opened(1)
        members, skipped = self.listing(serial)
        self.assertEqual(n1, len(self.traces))
        self.assertEqual(sorted(m[2] for m in members), self.traces)
        self.assertEqual(sorted(p for p, _ in skipped),
                         sorted(os.path.join(self.out, *p) for p in (("a", "notes.db"), ("b", "rank4_copy.rpd"))))
        ops = self.truth_a["job"]["ops"] + self.truth_b["job"]["ops"]
        for threads in (2, 3, 8):
            with self.subTest(threads=threads):
                n, con = self.opened(threads)
                self.assertEqual(n, n1)
                self.assertEqual(self.listing(con), (members, skipped))
                self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops").fetchone(), (ops,))
                con.close()

    def test_first_bad_file_in_pattern_order_is_the_error(self):
        bad = os.path.join(self.tmp, "bad")
        shutil.copytree(os.path.join(self.out, "b"), bad)
        # Two damaged files: the error names the first in pattern order, whichever thread met it first.
        for name in ("rank30.rpd", "rank7.rpd"):
            path = os.path.join(bad, name)
            with open(path, "r+b") as f:
                f.truncate(os.path.getsize(path) // 2)
        errors = []
        for threads in (1, 2, 8):
            os.environ["ROCPD_OPEN_THREADS"] = str(threads)
            with self.assertRaises(sqlite3.Error) as cm:
                connect().execute("SELECT rocpd_open(?)", (bad,)).fetchall()
            errors.append(str(cm.exception))
        self.assertIn(f"rocpd_open: '{os.path.join(bad, 'rank30.rpd')}': truncated", errors[0])
        self.assertEqual(errors, [errors[0]] * 3)
        shutil.rmtree(bad)

    def endless_dir(self, name, endless="z_endless.rpd", first=None):
        """A directory of members and one whose metadata is a view that never ends (last by default)."""
        d = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(self.out, "b"), d)
        hostile = os.path.join(d, endless)
        shutil.copyfile(os.path.join(d, "rank1.rpd"), hostile)
        c = sqlite3.connect(hostile)
        c.execute("DROP TABLE rocpd_metadata")
        c.execute("CREATE VIEW rocpd_metadata AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                  "SELECT x AS id, 'k' || x AS tag, 'v' AS value FROM c")
        c.commit()
        c.close()
        if first:
            with open(os.path.join(d, first), "r+b") as f:
                f.truncate(100)
        return d

    def test_interrupt_stops_the_probing_threads(self):
        d = self.endless_dir("endless")
        for threads in (1, 4):
            with self.subTest(threads=threads):
                os.environ["ROCPD_OPEN_THREADS"] = str(threads)
                times = []
                for _ in range(3):  # the best of three: a busy machine may delay one try
                    con = connect()
                    timer = threading.Timer(0.5, con.interrupt)
                    started = time.monotonic()
                    timer.start()
                    with self.assertRaises(sqlite3.OperationalError) as cm:
                        con.execute("SELECT rocpd_open(?)", (d,)).fetchall()
                    times.append(time.monotonic() - started - 0.5)
                    self.assertEqual(str(cm.exception), "interrupted")
                    con.close()
                    if times[-1] < 0.5 * TIMING_SCALE:
                        break
                self.assertLess(min(times), 0.5 * TIMING_SCALE, times)

    def test_an_error_stops_a_thread_in_an_endless_probe(self):
        # The first file is damaged while a thread is in the endless second one: the error comes
        # without waiting for it (the thread's probe is stopped, then joined).
        d = self.endless_dir("endless_after_error", endless="rank0_endless.rpd", first="rank0.rpd")
        os.environ["ROCPD_OPEN_THREADS"] = "4"
        started = time.monotonic()
        with self.assertRaises(sqlite3.Error) as cm:
            connect().execute("SELECT rocpd_open(?)", (d,)).fetchall()
        self.assertLess(time.monotonic() - started, 5 * TIMING_SCALE)
        self.assertIn(f"'{os.path.join(d, 'rank0.rpd')}'", str(cm.exception))

    def test_bad_thread_count_is_an_error_naming_the_variable(self):
        for value in ("0", "abc", "65", "-2"):
            with self.subTest(value=value):
                os.environ["ROCPD_OPEN_THREADS"] = value
                with self.assertRaises(sqlite3.Error) as cm:
                    connect().execute("SELECT rocpd_open(?)", (self.out,)).fetchall()
                self.assertEqual(str(cm.exception), "rocpd_open: ROCPD_OPEN_THREADS must be a count of probing "
                                 f"threads from 1 to 64, not '{value}'")

    def test_no_thread_to_spare_probes_on_the_host(self):
        os.environ["ROCPD_FAULT"] = "thread_start"
        try:
            n, con = self.opened(4)
        finally:
            os.environ.pop("ROCPD_FAULT")
        self.assertEqual(n, len(self.traces))


if __name__ == "__main__":
    main()
