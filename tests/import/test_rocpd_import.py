"""rocpd_import(src, dst): the converted member in a file of the user's, read later by rocpd_open and
ATTACH without parsing; dst never overwritten nor written through a symlink; a failed or
interrupted import leaves nothing; DIRECTONLY."""
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import GEN, connect, main  # noqa: E402


def hold_locked(path):
    """A process that creates `path` and holds an flock on it while alive, as rocpd's temporary files
    are held (common/temp_file.h); kill() it to leave what a SIGKILLed writer leaves."""
    code = ("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code, path], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "held\n"
    return p


def killed(p):
    p.kill()
    p.wait()
    p.stdout.close()


class RocpdImport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_import_")
        subprocess.run([GEN, "--out", os.path.join(cls.tmp, "job"), "--procs", "2", "--format", "kineto", "--ops", "800",
                        "--seed", "9"], check=True, stdout=subprocess.DEVNULL)
        cls.src = os.path.join(cls.tmp, "job", "rank0.json")
        cls.tempdir = os.path.join(cls.tmp, "sqlite_tmp")
        os.mkdir(cls.tempdir)
        os.environ["SQLITE_TMPDIR"] = cls.tempdir

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def out_dir(self):
        d = tempfile.mkdtemp(dir=self.tmp)
        return d

    def test_import_then_open_and_attach(self):
        d = self.out_dir()
        dst = os.path.join(d, "rank0.db")
        con = connect()
        with open(self.src) as f:
            events = len(json.load(f)["traceEvents"])
        self.assertEqual(con.execute("SELECT rocpd_import(?, ?)", (self.src, dst)).fetchone(), (events,))
        self.assertEqual(sorted(os.listdir(d)), ["rank0.db"])
        self.assertEqual(stat.S_IMODE(os.stat(dst).st_mode), 0o644)
        # The same rows as the JSON converted on the fly, read without any conversion.
        direct = connect()
        direct.execute("SELECT rocpd_open(?)", (self.src,))
        con.execute("SELECT rocpd_open(?)", (dst,))
        # direct's conversion only: its database and the process's lock file beside it
        self.assertEqual(sorted(f.rsplit(".", 1)[1] for f in os.listdir(self.tempdir)), ["db", "lock"])
        q = 'SELECT kind, name, start, "end", gpu, correlation_id FROM rocpd_ops ORDER BY op_id'
        self.assertEqual(con.execute(q).fetchall(), direct.execute(q).fetchall())
        q = "SELECT domain, name, start, duration, correlation_id FROM rocpd_apis ORDER BY api_id"
        self.assertEqual(con.execute(q).fetchall(), direct.execute(q).fetchall())
        self.assertEqual(con.execute("SELECT format, path, rank FROM rocpd_members").fetchall(), [("kineto", dst, 0)])
        att = connect()
        att.execute("ATTACH ? AS r0", (f"file:{dst}?mode=ro",))
        self.assertEqual(att.execute("SELECT db, format, source, ops FROM rocpd_members").fetchall(),
                         [("r0", "kineto", "attached", 800)])
        self.assertEqual(att.execute("SELECT count(*) FROM rocpd_kernel_stacks").fetchone(),
                         con.execute("SELECT count(*) FROM rocpd_kernel_stacks").fetchone())
        direct.close()

    def test_partials_of_killed_processes_are_removed(self):
        # Issue 31 item 13: an import killed (SIGKILL) left its .rocpd-XXXXXXXX.partial beside dst for
        # ever. The next import into that directory removes those no living process holds, and only those.
        d = self.out_dir()
        dead, live = (os.path.join(d, f".rocpd-{c * 8}.partial") for c in "Ab")
        other = os.path.join(d, ".rocpd-notours.partial")  # not a name rocpd_import makes
        open(other, "w").close()
        holders = [hold_locked(dead), hold_locked(live)]
        killed(holders[0])
        try:
            con = connect()
            con.execute("SELECT rocpd_import(?, ?)", (self.src, os.path.join(d, "a.db"))).fetchone()
            self.assertEqual(sorted(os.listdir(d)), sorted([os.path.basename(live), os.path.basename(other), "a.db"]))
        finally:
            killed(holders[1])
        con.execute("SELECT rocpd_import(?, ?)", (self.src, os.path.join(d, "b.db"))).fetchone()
        self.assertEqual(sorted(os.listdir(d)), sorted([os.path.basename(other), "a.db", "b.db"]))

    def test_other_layout_version_refused(self):
        d = self.out_dir()
        dst = os.path.join(d, "v2.db")
        connect().execute("SELECT rocpd_import(?, ?)", (self.src, dst)).fetchall()
        w = sqlite3.connect(dst)
        w.execute("UPDATE kineto_metadata SET value = 2 WHERE tag = 'import.layout_version'")
        w.commit()
        w.close()
        with self.assertRaises(sqlite3.Error) as cm:
            connect().execute("SELECT rocpd_open(?)", (dst,)).fetchall()
        self.assertIn(f"rocpd_open: '{dst}': unsupported kineto layout_version '2' (supported: 1; written by another "
                      "version of rocpd_import?)", str(cm.exception))

    def test_never_overwrites(self):
        d = self.out_dir()
        dst = os.path.join(d, "x.db")
        with open(dst, "w") as f:
            f.write("mine")
        link = os.path.join(d, "link.db")
        os.symlink(os.path.join(d, "nowhere.db"), link)
        con = connect()
        for target in (dst, link):
            with self.assertRaises(sqlite3.Error) as cm:
                con.execute("SELECT rocpd_import(?, ?)", (self.src, target)).fetchall()
            self.assertIn(f"rocpd_import: '{target}' already exists (rocpd_import never overwrites)", str(cm.exception))
        with open(dst) as f:
            self.assertEqual(f.read(), "mine")
        self.assertFalse(os.path.exists(os.path.join(d, "nowhere.db")), "wrote through a symlink")
        self.assertEqual(sorted(os.listdir(d)), ["link.db", "x.db"])

    def test_failure_leaves_nothing(self):
        d = self.out_dir()
        bad = os.path.join(d, "bad.json")
        with open(bad, "w") as f:
            f.write('{"traceEvents":[{"ph":"X","ts":"1"}]}')
        con = connect()
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT rocpd_import(?, ?)", (bad, os.path.join(d, "out.db"))).fetchall()
        self.assertIn(f"rocpd_import: '{bad}': traceEvents[0]", str(cm.exception))
        self.assertEqual(os.listdir(d), ["bad.json"])
        for args, msg in (((1, "x.db"), "src and dst must be file names (text)"),
                          (("", "x.db"), "src and dst must be non-empty file names"),
                          ((self.src, os.path.join(d, "no", "dir.db")), "cannot create a file beside")):
            with self.assertRaises(sqlite3.Error) as cm:
                con.execute("SELECT rocpd_import(?, ?)", args).fetchall()
            self.assertIn(msg, str(cm.exception))

    def test_umask_and_long_names(self):
        # Issue 31 item 14: the output was chmod 0644 whatever the umask (077 gave a world-readable
        # file), and a dst name of 242+ bytes failed "File name too long" (the temporary name was
        # dst + ".partial-XXXXXX"). The temporary name is short now; names up to NAME_MAX work.
        con = connect()
        d = self.out_dir()
        old = os.umask(0o022)
        try:
            for mask in (0o077, 0o027, 0o002):
                os.umask(mask)
                dst = os.path.join(d, f"mask{mask:03o}.db")
                con.execute("SELECT rocpd_import(?, ?)", (self.src, dst)).fetchone()
                self.assertEqual(stat.S_IMODE(os.stat(dst).st_mode), 0o666 & ~mask, f"umask {mask:03o}")
        finally:
            os.umask(old)
        d = self.out_dir()
        name_max = os.pathconf(d, "PC_NAME_MAX")
        for length in (242, name_max):
            dst = os.path.join(d, "r" * (length - 3) + ".db")
            con.execute("SELECT rocpd_import(?, ?)", (self.src, dst)).fetchone()
            self.assertTrue(os.path.isfile(dst))
        too_long = os.path.join(d, "r" * (name_max - 2) + ".db")
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT rocpd_import(?, ?)", (self.src, too_long)).fetchall()
        self.assertIn("File name too long", str(cm.exception))
        self.assertEqual(sorted(len(n) for n in os.listdir(d)), [242, name_max])

    def test_directonly(self):
        con = connect()
        con.execute("CREATE TABLE t(x)")
        con.execute("CREATE VIEW v AS SELECT rocpd_import('a.json', 'b.db') AS n")
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT * FROM v").fetchall()
        self.assertIn("unsafe use of rocpd_import", str(cm.exception))

    def test_interrupt_leaves_nothing(self):
        out = os.path.join(self.tmp, "big")
        subprocess.run([GEN, "--out", out, "--procs", "1", "--format", "kineto", "--ops", "30000", "--seed", "4"],
                       check=True, stdout=subprocess.DEVNULL)
        src = os.path.join(out, "rank0.json")
        d = self.out_dir()
        times = []
        for _ in range(3):
            con = connect()
            timer = threading.Timer(0.3, con.interrupt)
            started = time.monotonic()
            timer.start()
            try:
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    con.execute("SELECT rocpd_import(?, ?)", (src, os.path.join(d, "big.db"))).fetchall()
            finally:
                timer.cancel()
            times.append(time.monotonic() - started - 0.3)
            self.assertEqual(str(cm.exception), "interrupted")
            self.assertEqual(os.listdir(d), [])
            con.close()
            if times[-1] < 0.5:
                return
        self.fail(f"stopped {times} s after the interrupt")


if __name__ == "__main__":
    main()
