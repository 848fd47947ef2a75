"""No input file crashes, hangs or corrupts (issue 8), through the real SQLite library:
- plain .zst files whose decompressed or compressed size sits on the decoder's 128 KiB buffer
  boundary (made by the zstd CLI, checked against `zstd -d` and the original database);
- FIFOs, directories, devices and sockets named *.zst are refused at once, naming the path
  (each case runs in a child process with a timeout, so a regression fails instead of hanging);
- nothing is ever created beside a member, even when its directory is read-only;
- every VFS error names the file and the reason;
- hostile .zst files end in a clear error without large allocations."""
import json
import os
import random
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

EXT = os.environ["ROCPD_EXT"]
ZSTD = shutil.which("zstd")
PYTHON = sys.executable
SANITIZED = "asan" in os.environ.get("LD_PRELOAD", "")


def connect(path=":memory:", uri=False):
    con = sqlite3.connect(path, uri=uri, check_same_thread=False, isolation_level=None)
    con.enable_load_extension(True)
    con.load_extension(EXT)
    return con


BOOT = connect()  # registers the VFS for the whole process


def vfs_uri(path, extra="&mode=ro"):
    return f"file:{path}?vfs=rocpd_zstd{extra}"


def run_child(code, timeout=20):
    """Runs `code` in a fresh interpreter (with EXT defined); returns its JSON output. A hang fails
    the test after `timeout` seconds instead of blocking CTest."""
    script = f"import json, os, sqlite3\nEXT = {EXT!r}\n" + textwrap.dedent(code)
    try:
        out = subprocess.run([PYTHON, "-c", script], check=True, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"hung for {timeout} s") from None
    except subprocess.CalledProcessError as e:
        raise AssertionError(f"child failed ({e.returncode}): {e.stderr[-2000:]}") from None
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_db(path, size, seed=0):
    """A valid SQLite database of exactly `size` bytes (a multiple of 4096) full of random blobs,
    so that it compresses little."""
    rng = random.Random(seed)
    for blob in (3000, 2900, 3100, 2800, 3200, 2700):
        if os.path.exists(path):
            os.remove(path)
        con = sqlite3.connect(path)
        con.execute("PRAGMA page_size = 4096")
        con.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)")
        con.commit()
        while os.path.getsize(path) < size:
            con.execute("INSERT INTO t(b) VALUES (?)", (rng.randbytes(blob),))
            con.commit()
        con.close()
        if os.path.getsize(path) == size:
            return
    raise RuntimeError(f"could not make a database of exactly {size} bytes")


def skippable(n):
    return (0x184D2A50).to_bytes(4, "little") + n.to_bytes(4, "little") + bytes(n)


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compression_robust_", dir=os.getcwd())
        cls.dir = cls.tmp.name

    @classmethod
    def tearDownClass(cls):
        for root, dirs, _ in os.walk(cls.dir):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        cls.tmp.cleanup()

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def error(self, sql, params=(), con=None):
        con = con or BOOT
        with self.assertRaises(sqlite3.Error) as caught:
            con.execute(sql, params).fetchall()
        return str(caught.exception)

    def last_error(self, con=None):
        return (con or BOOT).execute("SELECT rocpd_zstd_last_error()").fetchone()[0]


@unittest.skipIf(ZSTD is None, "zstd CLI not installed")
class PlainBoundaries(Base):
    """A valid plain .zst (zstd -t passes) decompressing to a multiple of 128 KiB was refused as
    truncated: the decoder was called once more after the frame had ended with a full output
    buffer. Sizes on and around the boundary, and compressed files of exactly 128 / 256 KiB."""

    def check(self, db, zst):
        subprocess.run([ZSTD, "-t", "-q", zst], check=True)
        with open(db, "rb") as f:
            original = f.read()
        # Independent of our code: the zstd tool gives back the database.
        self.assertEqual(subprocess.run([ZSTD, "-d", "-c", "-q", zst], check=True, capture_output=True).stdout,
                         original)
        info = json.loads(BOOT.execute("SELECT rocpd_zstd_verify(?)", (zst,)).fetchone()[0])
        self.assertEqual(info, {"layout": "single-frame", "compressed_size": os.path.getsize(zst),
                                "size": len(original)})
        con = sqlite3.connect(vfs_uri(zst), uri=True)
        self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        self.assertEqual(list(con.iterdump()), list(sqlite3.connect(db).iterdump()))
        con.close()

    def test_decompressed_sizes_on_the_boundary(self):
        for kib in (128, 256, 384, 1024, 124, 132):
            with self.subTest(kib=kib):
                db = self.path(f"b{kib}.db")
                make_db(db, kib * 1024, seed=kib)
                zst = db + ".zst"
                subprocess.run([ZSTD, "-q", "-f", db, "-o", zst], check=True)
                self.check(db, zst)

    def test_compressed_sizes_on_the_boundary(self):
        # Random content barely compresses; a trailing skippable frame pads the file to exactly
        # 128 or 256 KiB (zstd -d skips it).
        for kib, db_kib in ((128, 112), (256, 240), (384, 360)):
            with self.subTest(kib=kib):
                db = self.path(f"c{kib}.db")
                make_db(db, db_kib * 1024, seed=kib + 1)
                zst = db + ".zst"
                subprocess.run([ZSTD, "-q", "-f", db, "-o", zst], check=True)
                pad = kib * 1024 - os.path.getsize(zst) - 8
                self.assertGreaterEqual(pad, 0)
                with open(zst, "ab") as f:
                    f.write(skippable(pad))
                self.assertEqual(os.path.getsize(zst), kib * 1024)
                self.check(db, zst)


class NonRegularFiles(Base):
    """A FIFO, directory, device or socket named like a member is refused at once, naming it."""

    def probe(self, target):
        return run_child(f"""
            con = sqlite3.connect(":memory:", isolation_level=None)
            con.enable_load_extension(True)
            con.load_extension(EXT)
            out = {{}}
            def attempt(key, sql, arg):
                try:
                    con.execute(sql, (arg,)).fetchall()
                    out[key] = "ok"
                except sqlite3.Error as e:
                    out[key] = str(e)
                out[key + "_last"] = con.execute("SELECT rocpd_zstd_last_error()").fetchone()[0]
            p = {target!r}
            attempt("verify", "SELECT rocpd_zstd_verify(?)", p)
            attempt("attach", "ATTACH ? AS z", "file:" + p + "?vfs=rocpd_zstd&mode=ro")
            try:
                con.execute("SELECT rocpd_compress(?, ?)", (p, p + ".out.zst")).fetchall()
                out["compress"] = "ok"
            except sqlite3.Error as e:
                out["compress"] = str(e)
            try:
                con.execute("SELECT rocpd_compress(?, ?)", ("file:" + p + "?mode=ro", p + ".out2.zst")).fetchall()
                out["compress_uri"] = "ok"
            except sqlite3.Error as e:
                out["compress_uri"] = str(e)
            if con.execute("SELECT count(*) FROM pragma_function_list WHERE name = 'rocpd_open'").fetchone()[0]:
                attempt("open", "SELECT rocpd_open(?)", p)
            print(json.dumps(out))
        """)

    def check(self, target, kind):
        out = self.probe(target)
        reason = f"not a regular file ({kind})"
        self.assertEqual(out["verify"], f"rocpd_zstd_verify: {target}: {reason}")
        self.assertEqual(out["attach"], f"unable to open database: file:{target}?vfs=rocpd_zstd&mode=ro")
        # SQLite hands the VFS the full path, symbolic links resolved.
        self.assertEqual(out["attach_last"], f"rocpd_zstd: {os.path.realpath(target)}: {reason}")
        self.assertEqual(out["compress"], f"rocpd_compress: source '{target}': {reason}")
        self.assertEqual(out["compress_uri"], f"rocpd_compress: source 'file:{target}?mode=ro': {reason}")
        if "open" in out:  # federation's own wording; it must fail at once and name the path
            self.assertIn(target, out["open"])
        for name in os.listdir(os.path.dirname(target)):
            self.assertNotIn(".out", name)

    def test_fifo(self):
        for name in ("x.rpd.zst", "x.zst"):
            with self.subTest(name=name):
                fifo = self.path(name)
                os.mkfifo(fifo)
                self.check(fifo, "a FIFO")

    def test_directory(self):
        d = self.path("dir.db.zst")
        os.mkdir(d)
        self.check(d, "a directory")

    def test_device(self):
        dev = self.path("null.db.zst")
        os.symlink("/dev/null", dev)
        self.check(dev, "a character device")

    def test_socket(self):
        sock_path = self.path("s.zst")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(sock_path)
            self.check(sock_path, "a socket")
        finally:
            s.close()


class NothingBesideMembers(Base):
    """The VFS never creates a journal, WAL, shm or super-journal next to a .zst member, and works
    in a read-only directory. Root ignores permissions, so the directory listing is compared too."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from trace_db import make_trace
        cls.members = os.path.join(cls.dir, "members")
        os.mkdir(cls.members)
        src = os.path.join(cls.dir, "src.rpd")
        make_trace(src, ops=3000).close()
        BOOT.execute("SELECT rocpd_compress(?, ?, 3, 16)", (src, os.path.join(cls.members, "rank0.rpd.zst"))).fetchone()
        if ZSTD:
            subprocess.run([ZSTD, "-q", src, "-o", os.path.join(cls.members, "rank1.rpd.zst")], check=True)
        cls.src = src
        os.chmod(cls.members, 0o555)

    def listing(self):
        return sorted((n, os.stat(os.path.join(self.members, n)).st_mtime_ns) for n in os.listdir(self.members))

    def test_read_only_directory(self):
        before = self.listing()
        self.assertEqual(stat.S_IMODE(os.stat(self.members).st_mode), 0o555)
        for name in [n for n, _ in before]:
            with self.subTest(member=name):
                member = os.path.join(self.members, name)
                con = sqlite3.connect(vfs_uri(member, extra=""), uri=True, isolation_level=None)
                expected = sqlite3.connect(self.src).execute("SELECT count(*), sum(end - start) FROM rocpd_op").fetchone()
                self.assertEqual(con.execute("SELECT count(*), sum(end - start) FROM rocpd_op").fetchone(), expected)
                # Sorting and temp tables use the temporary directory.
                con.execute("CREATE TEMP TABLE s AS SELECT * FROM rocpd_op ORDER BY end DESC")
                self.assertEqual(con.execute("SELECT count(*) FROM (SELECT * FROM rocpd_api ORDER BY random())"
                                             ).fetchone()[0], 3000)
                for sql in ("INSERT INTO rocpd_string VALUES (999999, 'x')", "DELETE FROM rocpd_op",
                            "CREATE TABLE more(x)"):
                    self.assertEqual(self.error(sql, con=con), "attempt to write a readonly database")
                con.execute("PRAGMA journal_mode = WAL")  # refused quietly: a read-only image has no WAL
                self.assertEqual(con.execute("PRAGMA journal_mode").fetchone()[0], "delete")
                self.assertEqual(con.execute("SELECT count(*) FROM rocpd_string").fetchone()[0] > 0, True)
                con.close()
                self.assertEqual(self.listing(), before)

    def test_transaction_over_two_attached_databases(self):
        # With a .zst as the main database, a commit writing two attached databases needs a
        # super-journal named after the main database, i.e. beside the member: refused, naming it.
        member = os.path.join(self.members, "rank0.rpd.zst")
        before = self.listing()
        con = connect(vfs_uri(member, extra=""), uri=True)
        con.execute(f"ATTACH 'file:{self.path('a.db')}?vfs=unix' AS a")
        con.execute(f"ATTACH 'file:{self.path('b.db')}?vfs=unix' AS b")
        con.execute("CREATE TABLE a.t(x)")
        con.execute("CREATE TABLE b.t(x)")
        con.execute("BEGIN")
        con.execute("INSERT INTO a.t VALUES (1)")
        con.execute("INSERT INTO b.t VALUES (1)")
        self.assertEqual(self.error("COMMIT", con=con), "unable to open database file")
        self.assertRegex(self.last_error(con),
                         rf"^rocpd_zstd: {re.escape(member)}-mj[0-9A-F]+: not created: the rocpd_zstd VFS is read-only and never "
                         r"creates a super-journal beside a compressed database$")
        if con.in_transaction:
            con.execute("ROLLBACK")
        # Nothing was committed in either database, and nothing appeared beside the member.
        self.assertEqual(con.execute("SELECT (SELECT count(*) FROM a.t) + (SELECT count(*) FROM b.t)").fetchone()[0], 0)
        con.close()
        self.assertEqual(self.listing(), before)

    def test_federation_in_a_read_only_directory(self):
        con = connect()
        if con.execute("SELECT count(*) FROM pragma_function_list WHERE name = 'rocpd_open'").fetchone()[0] == 0:
            self.skipTest("federation (rocpd_open) is not built into this library")
        before = self.listing()
        n = len(before)
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.members,)).fetchone()[0], n)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops").fetchone()[0], 3000 * n)
        con.execute("CREATE TEMP TABLE k AS SELECT * FROM rocpd_ops ORDER BY duration")
        con.close()
        self.assertEqual(self.listing(), before)


class ErrorsNameTheFile(Base):
    """Every failure of the VFS leaves rocpd_zstd_last_error() = 'rocpd_zstd: <path>: <reason>'."""

    def test_each_failure(self):
        good = self.path("good.db.zst")
        src = self.path("good.db")
        con = sqlite3.connect(src)
        con.execute("CREATE TABLE t(x)")
        con.executemany("INSERT INTO t VALUES (?)", [(os.urandom(200),) for _ in range(3000)])
        con.commit()
        con.close()
        BOOT.execute("SELECT rocpd_compress(?, ?, 3, 4)", (src, good)).fetchone()
        with open(good, "rb") as f:
            data = bytearray(f.read())
        corrupt = self.path("corrupt.db.zst")
        frames = int.from_bytes(data[-9:-5], "little")
        table = len(data) - (8 + 12 * frames + 9)
        data[table + 8 + 12 * 5 + 8] ^= 0xFF  # frame 5's checksum
        with open(corrupt, "wb") as f:
            f.write(data)
        cases = {
            self.path("missing.zst"): r"cannot open: No such file or directory",
            self.path("empty.zst"): r"empty file \(not zstd-compressed\)",
            src: r"not a zstd-compressed file \(no zstd frame magic, no seek table\)",
        }
        open(self.path("empty.zst"), "wb").close()
        for path, reason in cases.items():
            with self.subTest(path=path):
                uri = vfs_uri(path)
                self.assertEqual(self.error("ATTACH ? AS z", (uri,)), f"unable to open database: {uri}")
                self.assertRegex(self.last_error(), "^" + re.escape(f"rocpd_zstd: {path}: ") + reason + "$")
        con = connect()
        con.execute("ATTACH ? AS z", (vfs_uri(corrupt),))
        self.assertIsNone(self.last_error(con))
        self.assertEqual(self.error("SELECT sum(length(x)) FROM z.t", con=con), "database disk image is malformed")
        self.assertRegex(self.last_error(con), "^" + re.escape(f"rocpd_zstd: {corrupt}: ") +
                         r"frame 5 at offset \d+ fails its checksum")
        con.close()


class HostileInputs(Base):
    """Hostile files: a clear error (or, for valid oddities, a correct image), never a crash, a
    hang or a large allocation. Each runs in a child process whose peak RSS is checked."""

    @staticmethod
    def zstd_frame(content_size, payload=b""):
        # Frame header: single segment, 8-byte content size; then whatever payload.
        return (0xFD2FB528).to_bytes(4, "little") + bytes([0xE0]) + content_size.to_bytes(8, "little") + payload

    @staticmethod
    def seek_table(entries, checksums=False):
        body = b"".join(c.to_bytes(4, "little") + d.to_bytes(4, "little") + (b"\0\0\0\0" if checksums else b"")
                        for c, d in entries)
        footer = len(entries).to_bytes(4, "little") + bytes([0x80 if checksums else 0]) + (0x8F92EAB1).to_bytes(4, "little")
        return (0x184D2A5E).to_bytes(4, "little") + (len(body) + 9).to_bytes(4, "little") + body + footer

    def test_hostile_files(self):
        empty_frame = bytes.fromhex("28b52ffd2000010000")  # zstd of nothing (9 bytes)
        files = {
            "declares_1tb.zst": (self.zstd_frame(1 << 40), r"declares 1099511627776 decompressed bytes; the limit"),
            "declares_200mb_no_data.zst": (self.zstd_frame(200 << 20), r"the frame near compressed offset 0 needs a "
                                           r"decoding window over 128 MiB"),
            "declares_100mb_no_data.zst": (self.zstd_frame(100 << 20), r"truncated: the last zstd frame ends early"),
            "skippable_only.zst": (skippable(100) + skippable(0), r"holds only skippable frames \(no zstd data frame\)"),
            "skippable_cut.zst": (skippable(1000)[:500], r"truncated: the skippable frame at offset 0 runs past"),
            "table_64mib_frames.zst": (empty_frame * 2 + self.seek_table([(9, 64 << 20), (9, 64 << 20)]),
                                       r"frame 0 at offset 0 declares 0 decompressed bytes but the seek table says 67108864"),
            "table_1gib_frame.zst": (empty_frame + self.seek_table([(9, 1 << 30)]),
                                     r"frame 0 declares 1073741824 decompressed bytes, above the per-frame limit"),
            "table_huge_count.zst": (empty_frame + self.seek_table([(9, 0)])[:-9]
                                     + (1 << 26).to_bytes(4, "little") + b"\0" + (0x8F92EAB1).to_bytes(4, "little"),
                                     r"seek table claims 67108864 frames \(536870929 bytes\) but the file has only"),
            "table_zero_entries.zst": (self.seek_table([(0, 0)] * 1000), r"frame 0 declares 0 compressed bytes"),
            "garbage_after_magic.zst": ((0xFD2FB528).to_bytes(4, "little") + random.Random(8).randbytes(4000), r"."),
        }
        for name, (data, _) in files.items():
            with open(self.path(name), "wb") as f:
                f.write(data)
        out = run_child(f"""
            import resource
            con = sqlite3.connect(":memory:")
            con.enable_load_extension(True)
            con.load_extension(EXT)
            out = {{}}
            for name in {sorted(files)!r}:
                p = os.path.join({self.dir!r}, name)
                try:
                    out[name] = ["ok", con.execute("SELECT rocpd_zstd_verify(?)", (p,)).fetchone()[0]]
                except sqlite3.Error as e:
                    out[name] = ["error", str(e)]
                try:
                    con.execute("ATTACH ? AS z", ("file:" + p + "?vfs=rocpd_zstd&mode=ro",))
                    con.execute("SELECT count(*) FROM z.sqlite_schema").fetchall()
                    con.execute("DETACH z")
                    out[name].append("attached")
                except sqlite3.Error as e:
                    out[name].append(con.execute("SELECT rocpd_zstd_last_error()").fetchone()[0])
                    try:
                        con.execute("DETACH z")
                    except sqlite3.Error:
                        pass
            out["maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(json.dumps(out))
        """, timeout=60)
        for name, (_, pattern) in files.items():
            with self.subTest(name=name):
                path = self.path(name)
                kind, message, vfs = out[name]
                self.assertEqual(kind, "error", message)
                self.assertRegex(message, "^" + re.escape(f"rocpd_zstd_verify: {path}: ") + pattern)
                self.assertRegex(vfs, "^" + re.escape(f"rocpd_zstd: {path}: ") + pattern)
        if not SANITIZED:  # the sanitizers' shadow memory and quarantine inflate RSS
            self.assertLess(out["maxrss_kib"], 150 * 1024, "a hostile file made the reader allocate")


if __name__ == "__main__":
    unittest.main()
