"""rocpd_open of directories (issue 23): rocprofv3's default layout `%hostname%/%pid%_results.db`
opens in one call, subdirectories included; SQLite files holding no trace are skipped and listed
in rocpd_skipped; member names stay unique across subdirectories; an error only when nothing
opens, saying what was found and skipped. Counts come from the raw files."""
import json
import os
import shutil
import sqlite3
import tempfile
import unittest

from rocpd_testlib import FIXTURES, ChecksumGuard, connect, main, set_files


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

if __name__ == "__main__":
    main()
