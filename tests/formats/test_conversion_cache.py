"""The conversion cache of Kineto members (issue 34, docs/formats.md "The conversion cache"): a second
open of an unchanged trace reads the stored conversion (rocpd_members.conversion = 'cached', no new
file), a changed one (content or mtime) is converted again, rocpd_cache_clear() empties the cache,
ROCPD_CACHE=0 and `rocpd-ext --no-cache` write nothing there, the directory is made 0700 and refused
when it is a symbolic link or writable by others, the size bound evicts the least recently used
entry, concurrent processes converting one file both succeed, and a killed reader's pin is swept.
Every test points XDG_CACHE_HOME at a temporary directory of its own (never the real ~/.cache)."""
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
from rocpd_testlib import EXT, GEN, connect, main  # noqa: E402

CLI = os.path.join(os.path.dirname(os.environ.get("ROCPD_EXT_LIBRARY", "")), "rocpd-ext")
# The counts of each member, by sqlite's JSON functions over the trace itself: an independent count.
KERNELS_SQL = ("SELECT count(*) FROM json_each(?, '$.traceEvents') "
               "WHERE json_extract(value, '$.cat') = 'kernel' AND json_extract(value, '$.ph') = 'X'")


class ConversionCache(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_conversion_cache_")
        cls.gen = os.path.join(cls.tmp, "gen")
        subprocess.run([GEN, "--out", cls.gen, "--procs", "3", "--format", "kineto", "--ops", "300", "--seed", "7"],
                       check=True, stdout=subprocess.DEVNULL)
        cls.saved = {k: os.environ.get(k) for k in ("XDG_CACHE_HOME", "ROCPD_CACHE", "ROCPD_CACHE_SIZE")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=self.tmp)
        self.xdg = os.path.join(self.dir, "xdg")
        self.cache = os.path.join(self.xdg, "rocpd_ext")
        os.environ["XDG_CACHE_HOME"] = self.xdg
        os.environ.pop("ROCPD_CACHE", None)  # the suite's environment turns it off (tests/CMakeLists.txt)
        os.environ.pop("ROCPD_CACHE_SIZE", None)

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def trace(self, i=0, name=None):
        path = os.path.join(self.dir, name or f"rank{i}.json")
        shutil.copy(os.path.join(self.gen, f"rank{i}.json"), path)
        return path

    def entries(self):
        if not os.path.isdir(self.cache):
            return {}
        return {n: os.stat(os.path.join(self.cache, n)) for n in os.listdir(self.cache) if n.startswith("kineto-")}

    def open_one(self, path, con=None):
        con = con or connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        return con, con.execute("SELECT conversion, (SELECT count(*) FROM rocpd_kernels) FROM rocpd_members").fetchone()

    def kernels(self, path):
        with open(path) as f:
            return sqlite3.connect(":memory:").execute(KERNELS_SQL, (f.read(),)).fetchone()[0]

    def test_second_open_reads_the_cache(self):
        path = self.trace()
        expected = self.kernels(path)
        self.assertGreater(expected, 0)
        con, (how, kernels) = self.open_one(path)
        self.assertEqual((how, kernels), ("converted, cached", expected))
        first = self.entries()
        self.assertEqual(len(first), 1)
        con.close()
        con, (how, kernels) = self.open_one(path)
        self.assertEqual((how, kernels), ("cached", expected))
        second = self.entries()
        self.assertEqual(second.keys(), first.keys())
        (name, st), = second.items()
        self.assertEqual(st.st_ino, first[name].st_ino, "the same file: nothing converted again")
        # Read through the process's own hard link of the entry (its pin), never the entry's name.
        pins = [n for n in os.listdir(self.cache) if n.startswith("rocpd-pin-") and n.endswith(".db")]
        self.assertEqual(len(pins), 1)
        self.assertEqual(os.stat(os.path.join(self.cache, pins[0])).st_ino, st.st_ino)
        con.close()
        self.assertEqual(sorted(os.listdir(self.cache)), [name], "pins and the lock file go with the member")
        self.assertEqual(sorted(os.listdir(self.dir)), ["rank0.json", "xdg"], "nothing beside the trace")

    def test_changed_file_is_converted_again(self):
        path = self.trace()
        con, (how, _) = self.open_one(path)
        con.close()
        old = set(self.entries())
        # The same size and content, a new mtime.
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
        con, (how, _) = self.open_one(path)
        self.assertEqual(how, "converted, cached")
        con.close()
        self.assertEqual(len(self.entries()), 1, "the conversion of the older file is removed")
        self.assertNotEqual(set(self.entries()), old)
        # Another content of the same size under the same mtime: a device renamed in the file's head.
        st = os.stat(path)
        with open(path, "rb") as f:
            data = f.read()
        self.assertIn(b'"AMD Instinct MI300X"', data)
        with open(path, "wb") as f:
            f.write(data.replace(b'"AMD Instinct MI300X"', b'"AMD Instinct MI300Z"', 1))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        self.assertEqual(os.stat(path).st_size, st.st_size)
        con, (how, _) = self.open_one(path)
        self.assertEqual(how, "converted, cached")
        self.assertIn("MI300Z", con.execute("SELECT gpu_names FROM rocpd_members").fetchone()[0])
        con.close()

    def test_clear(self):
        cons = [self.open_one(self.trace(i))[0] for i in range(3)]
        entries = self.entries()
        self.assertEqual(len(entries), 3)
        got = cons[0].execute("SELECT rocpd_cache_clear()").fetchone()[0]
        self.assertEqual(got, '{"directory":"%s","entries":3,"bytes":%d,"not_removed":[]}'
                         % (self.cache, sum(st.st_size for st in entries.values())))
        self.assertEqual(self.entries(), {})
        # Open members keep reading their pins.
        self.assertGreater(cons[1].execute("SELECT count(*) FROM rocpd_ops").fetchone()[0], 0)
        for c in cons:
            c.close()
        self.assertEqual(os.listdir(self.cache), [])
        self.assertEqual(connect().execute("SELECT rocpd_cache_clear()").fetchone()[0],
                         '{"directory":"%s","entries":0,"bytes":0,"not_removed":[]}' % self.cache)
        # DIRECTONLY: not from a view.
        con = connect()
        con.execute("CREATE VIEW v AS SELECT rocpd_cache_clear()")
        with self.assertRaisesRegex(sqlite3.OperationalError, "unsafe use of rocpd_cache_clear"):
            con.execute("SELECT * FROM v")

    def test_no_cache_writes_nothing(self):
        path = self.trace()
        os.environ["ROCPD_CACHE"] = "0"
        tmp = os.path.join(self.dir, "tmp")
        os.mkdir(tmp)
        os.environ["SQLITE_TMPDIR"] = tmp
        try:
            con, (how, _) = self.open_one(path)
            self.assertEqual(how, "converted, not cached: ROCPD_CACHE=0")
            self.assertEqual(len(os.listdir(tmp)), 2, "a temporary database and its lock file, as before")
            con.close()
        finally:
            os.environ.pop("SQLITE_TMPDIR")
        self.assertFalse(os.path.exists(self.xdg))
        if not os.path.exists(CLI):
            return
        os.environ.pop("ROCPD_CACHE")
        out = subprocess.run([CLI, "query", path, "SELECT conversion FROM rocpd_members", "--format", "csv",
                              "--no-cache"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "conversion\n\"converted, not cached: ROCPD_CACHE=0\"\n")
        self.assertFalse(os.path.exists(self.xdg))
        out = subprocess.run([CLI, "query", path, "SELECT conversion FROM rocpd_members", "--format", "csv"],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "conversion\n\"converted, cached\"\n")

    def test_directory_modes(self):
        path = self.trace()
        con, _ = self.open_one(path)
        self.assertEqual(stat.S_IMODE(os.stat(self.xdg).st_mode), 0o700)
        self.assertEqual(stat.S_IMODE(os.stat(self.cache).st_mode), 0o700)
        for st in self.entries().values():
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
        con.close()
        # Writable by the group: refused, converted into a temporary database instead.
        os.chmod(self.cache, 0o770)
        con, (how, _) = self.open_one(path)
        self.assertEqual(how, f"converted, not cached: '{self.cache}' is writable by other users (mode 0770)")
        con.close()

    def test_symlinked_directory_refused(self):
        target = os.path.join(self.dir, "elsewhere")
        os.mkdir(target, 0o700)
        os.mkdir(self.xdg, 0o700)
        os.symlink(target, self.cache)
        con, (how, kernels) = self.open_one(self.trace())
        self.assertEqual(how, f"converted, not cached: '{self.cache}' is a symbolic link (refused: the cache is "
                              "never written through one)")
        self.assertGreater(kernels, 0)
        con.close()
        self.assertEqual(os.listdir(target), [])

    def test_size_bound_evicts_least_recently_used(self):
        paths = [self.trace(i) for i in range(3)]

        def add(path):
            before = set(self.entries())
            self.open_one(path)[0].close()
            return (set(self.entries()) - before).pop()

        e0 = add(paths[0])
        os.environ["ROCPD_CACHE_SIZE"] = str(int(max(st.st_size for st in self.entries().values()) * 2.5))
        e1 = add(paths[1])
        os.utime(os.path.join(self.cache, e0), ns=(1, 1_000_000_000))
        os.utime(os.path.join(self.cache, e1), ns=(1, 2_000_000_000))
        # paths[0] used again: now more recently used than paths[1], which goes when paths[2] comes.
        con, (how, _) = self.open_one(paths[0])
        self.assertEqual(how, "cached")
        con.close()
        e2 = add(paths[2])
        self.assertEqual(set(self.entries()), {e0, e2})
        os.environ["ROCPD_CACHE_SIZE"] = "4 GiB"
        with self.assertRaisesRegex(sqlite3.OperationalError, r"ROCPD_CACHE_SIZE='4 GiB': not a size"):
            connect().execute("SELECT rocpd_open(?)", (paths[1],))
        os.environ["ROCPD_CACHE_SIZE"] = "1G"
        self.assertEqual(self.open_one(paths[1])[1][0], "converted, cached")

    def test_concurrent_conversions(self):
        path = self.trace()
        script = (f"import sqlite3\ncon = sqlite3.connect(':memory:')\ncon.enable_load_extension(True)\n"
                  f"con.load_extension({EXT!r})\ncon.execute('SELECT rocpd_open(?)', ({path!r},))\n"
                  "print(con.execute('SELECT count(*) FROM rocpd_kernels').fetchone()[0])\n")
        procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
                 for _ in range(3)]
        outs = [p.communicate(timeout=120)[0] for p in procs]
        self.assertEqual([p.returncode for p in procs], [0, 0, 0])
        self.assertEqual(outs, [f"{self.kernels(path)}\n"] * 3)
        self.assertEqual(len(self.entries()), 1)
        self.assertEqual(sorted(os.listdir(self.cache)), sorted(self.entries()), "no partial file left")
        con, (how, kernels) = self.open_one(path)
        self.assertEqual((how, kernels), ("cached", self.kernels(path)))
        con.close()

    def test_killed_reader_pin_swept(self):
        path = self.trace()
        holder = (f"import sqlite3, time\ncon = sqlite3.connect(':memory:')\ncon.enable_load_extension(True)\n"
                  f"con.load_extension({EXT!r})\ncon.execute('SELECT rocpd_open(?)', ({path!r},))\n"
                  "print('open', flush=True)\ntime.sleep(60)\n")
        owner = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(owner.stdout.readline(), "open\n")
            self.assertEqual(len(os.listdir(self.cache)), 3)  # the entry, the owner's pin and lock file
        finally:
            owner.kill()
            owner.wait()
            owner.stdout.close()
        self.assertEqual(len(os.listdir(self.cache)), 3, "SIGKILL leaves the pin")
        subprocess.run([sys.executable, "-c", holder.replace("time.sleep(60)", "")], check=True, timeout=60,
                       stdout=subprocess.DEVNULL)
        self.assertEqual(sorted(os.listdir(self.cache)), sorted(self.entries()), "the dead reader's pin is removed")


    # -- a cache that checks itself (issue 42): what is stored is what is read, or it is converted again

    def stored(self, path):
        """Opens `path` once (converting and storing it); the name of its entry."""
        con, (how, _) = self.open_one(path)
        self.assertEqual(how, "converted, cached")
        con.close()
        (name,) = self.entries()
        return os.path.join(self.cache, name)

    def test_damaged_entry_converted_again(self):
        path = self.trace()
        expected = self.kernels(path)

        def scribble(f, size):
            f.seek(size // 2)
            f.write(bytes(range(256)) * 16)

        damages = {
            "random bytes inside": scribble,
            "truncated": lambda f, size: f.truncate(size // 3),
            "emptied": lambda f, size: f.truncate(0),
            "a page's bytes swapped": lambda f, size: (f.seek(size - 4096), f.write(b"\x00" * 4096)),
        }
        for what, damage in damages.items():
            with self.subTest(damage=what):
                entry = self.stored(path)
                with open(entry, "r+b") as f:
                    damage(f, os.path.getsize(entry))
                # Converted again (not an error naming the trace), and the entry replaced.
                con, (how, kernels) = self.open_one(path)
                self.assertEqual((how, kernels), ("converted, cached", expected))
                con.close()
                con, (how, kernels) = self.open_one(path)
                self.assertEqual((how, kernels), ("cached", expected))
                con.close()
                self.assertEqual(len(self.entries()), 1)
                connect().execute("SELECT rocpd_cache_clear()").fetchone()

    def store(self, path):
        """Opens `path` once (converting and storing it); the name of its new entry."""
        before = set(self.entries())
        con, (how, _) = self.open_one(path)
        self.assertEqual(how, "converted, cached")
        con.close()
        (name,) = set(self.entries()) - before
        return os.path.join(self.cache, name)

    def test_foreign_entry_not_read(self):
        a, b = self.trace(0), self.trace(1)
        self.assertNotEqual(self.kernels(a), self.kernels(b))
        ea, eb = self.store(a), self.store(b)
        # Another file's entry copied over this one's name: its bytes hash to the other name.
        shutil.copy(eb, ea)
        con, (how, kernels) = self.open_one(a)
        self.assertEqual((how, kernels), ("converted, cached", self.kernels(a)))
        con.close()
        # Renamed under this file's key with its own hash: its record names the other file.
        key = os.path.basename(ea)[:-len("0123456789abcdef.db")]
        os.unlink(ea)
        os.rename(eb, os.path.join(self.cache, key + os.path.basename(eb)[len(key):]))
        con, (how, kernels) = self.open_one(a)
        self.assertEqual((how, kernels), ("converted, cached", self.kernels(a)))
        con.close()

    def test_symbolic_link_at_entry_name(self):
        path = self.trace()
        entry = self.stored(path)
        target = os.path.join(self.dir, "elsewhere.db")
        os.rename(entry, target)
        before = os.stat(target)
        os.symlink(target, entry)
        for _ in range(2):
            con, (how, kernels) = self.open_one(path)
            self.assertEqual((how, kernels), (f"converted, not cached: '{entry}' is a symbolic link (never read or "
                                              "written through): the conversion is not stored there",
                                              self.kernels(path)))
            con.close()
        self.assertTrue(os.path.islink(entry))
        after = os.stat(target)
        self.assertEqual((after.st_size, after.st_mtime_ns, after.st_ino), (before.st_size, before.st_mtime_ns,
                                                                            before.st_ino))
        # rocpd_cache_clear removes the link (never what it names); then the cache works again.
        got = json.loads(connect().execute("SELECT rocpd_cache_clear()").fetchone()[0])
        self.assertEqual((got["entries"], got["not_removed"]), (1, []))
        self.assertFalse(os.path.lexists(entry))
        self.assertTrue(os.path.exists(target))
        self.assertEqual(self.stored(path), entry)

    def test_foreign_files_at_entry_names(self):
        path = self.trace()
        entry = self.stored(path)
        if os.geteuid() == 0:
            os.chown(entry, 54321, 54321)
            con, (how, _) = self.open_one(path)
            self.assertEqual(how, f"converted, not cached: '{entry}' belongs to another user (uid 54321): the "
                                  "conversion is not stored there")
            con.close()
            got = json.loads(connect().execute("SELECT rocpd_cache_clear()").fetchone()[0])
            self.assertEqual(got["not_removed"], [{"name": os.path.basename(entry),
                                                   "why": "belongs to another user (uid 54321)"}])
            os.unlink(entry)
        # A directory at an entry's name: left, and said.
        odd = os.path.join(self.cache, "kineto-v0-odd.db")
        os.mkdir(odd)
        got = json.loads(connect().execute("SELECT rocpd_cache_clear()").fetchone()[0])
        self.assertEqual(got["not_removed"], [{"name": "kineto-v0-odd.db", "why": "is a directory"}])
        self.assertTrue(os.path.isdir(odd))

    def test_clear_says_the_cache_is_off(self):
        os.environ["ROCPD_CACHE"] = "0"
        self.assertEqual(json.loads(connect().execute("SELECT rocpd_cache_clear()").fetchone()[0]),
                         {"directory": None, "entries": 0, "bytes": 0, "not_removed": [],
                          "why": "the cache is off (ROCPD_CACHE=0): nothing was removed"})
        os.environ.pop("ROCPD_CACHE")
        os.makedirs(self.xdg)
        os.symlink(self.dir, self.cache)
        got = json.loads(connect().execute("SELECT rocpd_cache_clear()").fetchone()[0])
        self.assertEqual(got["why"], f"'{self.cache}' is a symbolic link (refused: the cache is never written "
                                     "through one)")

    def test_cache_write_failure_goes_on_without_the_cache(self):
        # Simulated (ROCPD_FAULT): the conversion into the cache fails as on a full disk.
        path = self.trace()
        os.environ["ROCPD_FAULT"] = "cache_full"
        try:
            con, (how, kernels) = self.open_one(path)
        finally:
            os.environ.pop("ROCPD_FAULT")
        self.assertRegex(how, r"^converted, not cached: cannot write '%s/rocpd-pin-\w{8}-\w{8}\.db': database or "
                              r"disk is full$" % re.escape(self.cache))
        self.assertEqual(kernels, self.kernels(path))
        con.close()
        self.assertEqual(self.entries(), {})

    def test_full_disk(self):
        # A cache directory on a file system too small for the entry (a tmpfs: needs mount rights).
        mnt = os.path.join(self.dir, "small")
        os.mkdir(mnt)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k,mode=0700", "tmpfs", mnt],
                                 capture_output=True, text=True)
        if mounted.returncode != 0:
            self.skipTest("cannot mount a small tmpfs here: " + (mounted.stderr.strip() or "mount failed"))
        try:
            os.environ["XDG_CACHE_HOME"] = mnt
            path = self.trace()
            script = ("import sqlite3, sys\n"
                      "c = sqlite3.connect(':memory:'); c.enable_load_extension(True); c.load_extension(sys.argv[1])\n"
                      "c.execute('SELECT rocpd_open(?)', (sys.argv[2],))\n"
                      "print(c.execute('SELECT conversion, (SELECT count(*) FROM rocpd_kernels) FROM rocpd_members')"
                      ".fetchone())\n")
            out = subprocess.run([sys.executable, "-c", script, EXT, path], capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            how, kernels = eval(out.stdout)
            self.assertEqual(kernels, self.kernels(path))
            self.assertRegex(how, r"^converted, not cached: cannot write '%s/rocpd_ext/rocpd-pin-\w{8}-\w{8}\.db': "
                                  r"(database or disk is full|disk I/O error)$" % re.escape(mnt))
            self.assertEqual([n for n in os.listdir(os.path.join(mnt, "rocpd_ext")) if not n.endswith(".lock")], [])
            # The CLI says so in one line.
            if os.path.exists(CLI):
                run = subprocess.run([CLI, "query", path, "SELECT count(*) FROM rocpd_kernels", "--format", "csv"],
                                     capture_output=True, text=True, timeout=120)
                self.assertEqual(run.returncode, 0, run.stderr)
                warnings = [line for line in run.stderr.splitlines() if "conversion cache" in line]
                self.assertEqual(len(warnings), 1, run.stderr)
                self.assertRegex(warnings[0], r"^rocpd-ext: warning: conversion cache: cannot write '.*': "
                                              r"(database or disk is full|disk I/O error)")
        finally:
            subprocess.run(["umount", mnt], check=False)

    def test_rewritten_in_place_with_another_size(self):
        # The same inode, mtime, first 64 KiB and last 4 KiB, but a kernel fewer in the middle: another
        # size, so another key (and record).
        path = self.trace()
        with open(path, "rb") as f:
            data = f.read()
        self.assertGreater(len(data), 3 * (64 << 10))
        at = data.index(b'"cat": "kernel"', len(data) // 2)
        start, end = data.rindex(b"\n", 0, at) + 1, data.index(b"\n", at) + 1
        self.assertTrue((64 << 10) < start and end < len(data) - (4 << 10))
        expected = self.kernels(path)
        self.stored(path)
        st = os.stat(path)
        with open(path, "r+b") as f:
            f.write(data[:start] + data[end:])
            f.truncate()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        now = os.stat(path)
        self.assertEqual((now.st_ino, now.st_mtime_ns), (st.st_ino, st.st_mtime_ns))
        self.assertNotEqual(now.st_size, st.st_size)
        con, (how, kernels) = self.open_one(path)
        self.assertEqual((how, kernels), ("converted, cached", expected - 1))
        con.close()

    def test_size_bound_below_one_entry(self):
        # The new entry stays even when it alone is larger than the bound; older ones go.
        path, other = self.trace(0), self.trace(1)
        self.stored(other)
        os.environ["ROCPD_CACHE_SIZE"] = "1"
        con, (how, _) = self.open_one(path)
        self.assertEqual(how, "converted, cached")
        con.close()
        self.assertEqual(len(self.entries()), 1)
        con, (how, kernels) = self.open_one(path)
        self.assertEqual((how, kernels), ("cached", self.kernels(path)))
        con.close()

    def test_progress_lines(self):
        """rocpd_progress(1) during a conversion (docs/federation.md, rocpd_progress): lines of the documented
        form, with the bytes read out of the file's size, the rows stored and the seconds, none going back.
        ROCPD_PROGRESS_INTERVAL=0 writes a line at every poll, so a 7 MB trace converted in a tenth of a
        second writes some; its value is checked when rocpd_progress(1) is called."""
        gen = os.path.join(self.dir, "big")
        subprocess.run([GEN, "--out", gen, "--procs", "1", "--format", "kineto", "--ops", "5000", "--seed", "3"],
                       check=True, stdout=subprocess.DEVNULL)
        path = os.path.join(gen, "rank0.json")
        script = ("import sqlite3, sys\n"
                  "c = sqlite3.connect(':memory:'); c.enable_load_extension(True); c.load_extension(sys.argv[1])\n"
                  "try:\n"
                  "    c.execute('SELECT rocpd_progress(1)')\n"
                  "    print(c.execute('SELECT rocpd_open(?)', (sys.argv[2],)).fetchone()[0])\n"
                  "except sqlite3.Error as e: print('error', e)\n")

        def run(interval):
            env = dict(os.environ, ROCPD_PROGRESS_INTERVAL=interval)
            return subprocess.run([sys.executable, "-c", script, EXT, path], capture_output=True, text=True,
                                  env=env, timeout=120)

        out = run("0")
        self.assertEqual(out.stdout.strip(), "1", out.stderr[-2000:])
        form = re.compile(r"rocpd: rocpd_open: 0/1 members done, now (.+), (\d+) rows, converting: "
                          r"(\d+\.\d)/(\d+\.\d) MB read(, linking launches and flows)?, (\d+\.\d) s")
        lines = [line for line in out.stderr.splitlines() if line.startswith("rocpd: ")]
        self.assertGreater(len(lines), 0, out.stderr[-2000:])
        total = f"{os.path.getsize(path) / 1e6:.1f}"
        with open(path) as f:
            events = len(json.load(f)["traceEvents"])
        last = (0, 0.0, 0.0)
        for line in lines:
            m = form.fullmatch(line)
            self.assertIsNotNone(m, line)
            self.assertEqual(m.group(1), path)
            self.assertEqual(m.group(4), total, line)
            rows, read, seconds = int(m.group(2)), float(m.group(3)), float(m.group(6))
            self.assertLessEqual(read, float(total), line)
            self.assertLessEqual(rows, events, line)  # a row per event at most
            self.assertTrue(all(a >= b for a, b in zip((rows, read, seconds), last)), line)
            last = (rows, read, seconds)
        self.assertGreater(last[1], 0.0, lines)
        out = run("one second")
        self.assertEqual(out.stdout.strip(), "error rocpd_progress(1): ROCPD_PROGRESS_INTERVAL='one second': not a "
                                             "number of seconds from 0 to 86400")


if __name__ == "__main__":
    main()
