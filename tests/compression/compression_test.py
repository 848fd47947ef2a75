"""End to end: rocpd_compress and the rocpd_zstd VFS through Python's sqlite3 (the real SQLite
library of the host): round trips at several frame sizes, `zstd -d` compatibility, plain .zst
files, snapshots of live databases, read-only behaviour, threads, and every error text."""
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_db import make_trace  # noqa: E402

EXT = os.environ["ROCPD_EXT"]
ZSTD = shutil.which("zstd")


def connect(path=":memory:", uri=False):
    con = sqlite3.connect(path, uri=uri, check_same_thread=False)
    con.enable_load_extension(True)
    con.load_extension(EXT)
    return con


# The VFS is process-wide: loading the extension once registers it for every later connection.
BOOT = connect()


def vfs_uri(path, extra="&mode=ro"):
    return f"file:{path}?vfs=rocpd_zstd{extra}"


def open_compressed(path):
    return sqlite3.connect(vfs_uri(path), uri=True, check_same_thread=False)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compression_", dir=os.getcwd())
        cls.dir = cls.tmp.name
        cls.src = os.path.join(cls.dir, "trace.db")
        make_trace(cls.src, ops=20000).close()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def compress(self, src, dst, *args):
        con = connect()
        try:
            placeholders = ", ".join("?" for _ in (src, dst) + args)
            return con.execute(f"SELECT rocpd_compress({placeholders})", (src, dst) + args).fetchone()[0]
        finally:
            con.close()

    def error(self, sql, params=()):
        con = connect()
        try:
            with self.assertRaises(sqlite3.Error) as caught:
                con.execute(sql, params).fetchall()
            return str(caught.exception)
        finally:
            con.close()


class RoundTrip(Base):
    def test_dump_equal_for_several_frame_sizes(self):
        original = list(sqlite3.connect(self.src).iterdump())
        size = os.path.getsize(self.src)
        for frame_kib in (1, 4, 64, 256, 1000):
            with self.subTest(frame_kib=frame_kib):
                dst = self.path(f"trace_{frame_kib}.db.zst")
                written = self.compress(self.src, dst, 3, frame_kib)
                self.assertEqual(written, os.path.getsize(dst))
                info = json.loads(BOOT.execute("SELECT rocpd_zstd_verify(?)", (dst,)).fetchone()[0])
                self.assertEqual(info["layout"], "seekable")
                self.assertEqual(info["size"], size)
                self.assertEqual(info["frames"], -(-size // (frame_kib * 1024)))
                con = open_compressed(dst)
                self.assertEqual(list(con.iterdump()), original)
                self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
                con.close()
        # The sizes above include ones the database is not a multiple of.
        self.assertNotEqual(size % (64 * 1024), 0)
        self.assertNotEqual(size % (1000 * 1024), 0)

    def test_shell_dump_is_identical(self):
        # The sqlite3 shell's own .dump, original vs compressed (the VFS exists once .load ran).
        shell = os.environ.get("ROCPD_SQLITE3", "sqlite3")
        dst = self.path("shell.db.zst")
        self.compress(self.src, dst, 3, 4)

        def dump(target):
            return subprocess.run([shell, "-bail", "-batch", ":memory:", "-cmd", f".load {EXT}", "-cmd",
                                   f".open {target}", ".dump"], check=True, stdout=subprocess.PIPE).stdout

        original = dump(self.src)
        self.assertGreater(len(original), 1_000_000)
        self.assertEqual(dump(vfs_uri(dst)), original)

    def test_attach_compares_every_table(self):
        dst = self.path("attach.db.zst")
        self.compress(self.src, dst)
        info = json.loads(BOOT.execute("SELECT rocpd_zstd_verify(?)", (dst,)).fetchone()[0])
        self.assertEqual(info["frame_size"], 64 * 1024)  # the default
        con = connect()
        con.execute("ATTACH ? AS o", (self.src,))
        con.execute("ATTACH ? AS z", (vfs_uri(dst),))
        tables = [r[0] for r in con.execute("SELECT name FROM o.sqlite_schema WHERE type = 'table'")]
        self.assertEqual(len(tables), 5)
        for t in tables:
            diff = con.execute(f"SELECT (SELECT count(*) FROM (SELECT * FROM o.{t} EXCEPT SELECT * FROM z.{t})) "
                               f"+ (SELECT count(*) FROM (SELECT * FROM z.{t} EXCEPT SELECT * FROM o.{t}))").fetchone()[0]
            self.assertEqual(diff, 0, t)
        # An indexed range query touches only some frames and agrees too.
        q = "SELECT count(*), sum(end - start) FROM {}.rocpd_op WHERE start BETWEEN 1010000000 AND 1011000000"
        self.assertEqual(con.execute(q.format("z")).fetchone(), con.execute(q.format("o")).fetchone())
        con.close()

    @unittest.skipIf(ZSTD is None, "zstd CLI not installed")
    def test_zstd_cli_gives_back_the_original_bytes(self):
        dst = self.path("cli.db.zst")
        self.compress(self.src, dst, 3, 64)
        out = subprocess.run([ZSTD, "-d", "-c", "-q", dst], check=True, stdout=subprocess.PIPE).stdout
        with open(self.src, "rb") as f:
            self.assertEqual(out, f.read())

    @unittest.skipIf(ZSTD is None, "zstd CLI not installed")
    def test_plain_zst_from_the_zstd_tool(self):
        plain = self.path("plain.db.zst")
        subprocess.run([ZSTD, "-q", "-f", self.src, "-o", plain], check=True)
        info = json.loads(BOOT.execute("SELECT rocpd_zstd_verify(?)", (plain,)).fetchone()[0])
        self.assertEqual(info, {"layout": "single-frame", "compressed_size": os.path.getsize(plain),
                                "size": os.path.getsize(self.src)})
        con = open_compressed(plain)
        self.assertEqual(list(con.iterdump()), list(sqlite3.connect(self.src).iterdump()))
        con.close()
        # Past the cap: a clear refusal, then the cap restored.
        self.assertEqual(BOOT.execute("SELECT rocpd_zstd_plain_limit()").fetchone()[0], 256 << 20)
        BOOT.execute("SELECT rocpd_zstd_plain_limit(100000)").fetchone()
        try:
            uri = vfs_uri(plain)
            self.assertEqual(self.error("ATTACH ? AS p", (uri,)), f"unable to open database: {uri}")
            self.assertEqual(
                self.error("SELECT rocpd_zstd_verify(?)", (plain,)),
                f"rocpd_zstd_verify: {plain}: declares {os.path.getsize(self.src)} decompressed bytes; the limit for "
                "single-frame .zst files is 100000 bytes (rocpd_zstd_plain_limit(); rocpd_compress() writes a "
                "seekable file instead)")
        finally:
            BOOT.execute("SELECT rocpd_zstd_plain_limit(?)", (256 << 20,)).fetchone()

    @unittest.skipIf(ZSTD is None, "zstd CLI not installed")
    def test_plain_zst_converts_to_seekable(self):
        plain = self.path("convert.db.zst")
        subprocess.run([ZSTD, "-q", "-f", self.src, "-o", plain], check=True)
        seekable = self.path("converted.db.zst")
        self.compress(vfs_uri(plain), seekable)
        info = json.loads(BOOT.execute("SELECT rocpd_zstd_verify(?)", (seekable,)).fetchone()[0])
        self.assertEqual(info["layout"], "seekable")
        out = subprocess.run([ZSTD, "-d", "-c", "-q", seekable], check=True, stdout=subprocess.PIPE).stdout
        with open(self.src, "rb") as f:
            self.assertEqual(out, f.read())

    def test_source_is_never_modified_and_no_side_files(self):
        before = sha(self.src)
        dst = self.path("side.db.zst")
        self.compress(self.src, dst)
        self.assertEqual(sha(self.src), before)
        con = open_compressed(dst)
        con.execute("SELECT count(*) FROM rocpd_op ORDER BY 1").fetchall()
        con.execute("CREATE TEMP TABLE scratch AS SELECT * FROM rocpd_op ORDER BY end DESC").fetchall()
        con.close()
        leftovers = sorted(n for n in os.listdir(self.dir) if n.startswith("side"))
        self.assertEqual(leftovers, ["side.db.zst"])

    def test_writes_are_refused(self):
        dst = self.path("ro.db.zst")
        self.compress(self.src, dst)
        con = connect()
        # Without mode=ro the file still opens, read-only.
        con.execute("ATTACH ? AS z", (vfs_uri(dst, extra=""),))
        with self.assertRaises(sqlite3.OperationalError) as caught:
            con.execute("INSERT INTO z.rocpd_string VALUES (999999, 'x')")
        self.assertEqual(str(caught.exception), "attempt to write a readonly database")
        con.close()

    def test_wal_database_snapshot_includes_uncheckpointed_commits(self):
        src = self.path("live.db")
        writer = make_trace(src, ops=3000, journal_mode="wal")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("INSERT INTO rocpd_string(id, string) VALUES (100000, 'committed after the last checkpoint')")
        writer.commit()
        # An open transaction of the writer must not leak into the snapshot.
        writer.execute("INSERT INTO rocpd_string(id, string) VALUES (100001, 'uncommitted')")
        before = (sha(src), sha(src + "-wal"))
        dst = self.path("live.db.zst")
        self.compress(src, dst)
        self.assertEqual((sha(src), sha(src + "-wal")), before)
        con = open_compressed(dst)
        ids = [r[0] for r in con.execute("SELECT id FROM rocpd_string WHERE id >= 100000")]
        self.assertEqual(ids, [100000])
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_op").fetchone()[0], 3000)
        self.assertEqual(con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        con.close()
        writer.rollback()
        writer.close()
        self.assertEqual(sorted(n for n in os.listdir(self.dir) if n.startswith("live.db.zst")), ["live.db.zst"])

    def test_rollback_database_with_a_writer_mid_transaction(self):
        src = self.path("busy.db")
        writer = make_trace(src, ops=2000)
        writer.execute("INSERT INTO rocpd_string(id, string) VALUES (200000, 'not yet committed')")
        before = sha(src)
        dst = self.path("busy.db.zst")
        self.compress(src, dst)
        con = open_compressed(dst)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_string WHERE id = 200000").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_op").fetchone()[0], 2000)
        con.close()
        writer.commit()  # the writer was not disturbed
        writer.close()
        self.assertNotEqual(sha(src), before)
        out = subprocess.run([ZSTD or "zstd", "-d", "-c", "-q", dst], check=True, stdout=subprocess.PIPE).stdout
        self.assertEqual(hashlib.sha256(out).hexdigest(), before)

    def test_parallel_readers(self):
        dst = self.path("threads.db.zst")
        self.compress(self.src, dst, 3, 16)
        expected = sqlite3.connect(self.src).execute("SELECT count(*), sum(end - start) FROM rocpd_op").fetchone()
        shared = open_compressed(dst)  # one connection used from several threads (serialized by SQLite)
        results, errors = [], []

        def work(con):
            try:
                for _ in range(3):
                    results.append(con.execute("SELECT count(*), sum(end - start) FROM rocpd_op").fetchone())
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(open_compressed(dst) if i % 2 else shared,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(results, [expected] * 18)


class Federated(Base):
    """Compressed members behave like any other member: the same rows in every federated table."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plain_dir = os.path.join(cls.dir, "job")
        cls.zst_dir = os.path.join(cls.dir, "job_zst")
        gen = os.environ.get("ROCPD_GEN")
        cls.files = []
        if gen and os.path.exists(gen):
            subprocess.run([gen, "--out", cls.plain_dir, "--procs", "3", "--format", "mixed", "--ops", "3000",
                            "--seed", "21"], check=True, stdout=subprocess.DEVNULL)
        if os.path.isdir(cls.plain_dir):
            cls.files = sorted(f for f in os.listdir(cls.plain_dir) if f.endswith((".rpd", ".db")))
        os.makedirs(cls.zst_dir, exist_ok=True)
        for i, f in enumerate(cls.files):
            # Several frame sizes across the members, the default among them.
            args = [(3, 256), (1, 4), (9, 64)][i % 3]
            BOOT.execute("SELECT rocpd_compress(?, ?, ?, ?)",
                         (os.path.join(cls.plain_dir, f), os.path.join(cls.zst_dir, f + ".zst")) + args).fetchone()

    def setUp(self):
        if not self.files:
            self.skipTest("the trace generator (ROCPD_GEN) produced no files")
        if BOOT.execute("SELECT count(*) FROM pragma_function_list WHERE name = 'rocpd_open'").fetchone()[0] == 0:
            self.skipTest("federation (rocpd_open) is not built into this library")

    def pair(self):
        plain, zst = connect(), connect()
        self.assertEqual(plain.execute("SELECT rocpd_open(?)", (self.plain_dir,)).fetchone()[0], len(self.files))
        self.assertEqual(zst.execute("SELECT rocpd_open(?)", (self.zst_dir,)).fetchone()[0], len(self.files))
        return plain, zst

    def test_every_federated_table_agrees(self):
        plain, zst = self.pair()
        queries = [
            "SELECT * FROM rocpd_ops ORDER BY db, op_id, start",
            "SELECT * FROM rocpd_apis ORDER BY db, api_id, start",
            "SELECT db, format, schema_version, uuid, hostname, pids, first_ns, last_ns, ops, apis "
            "FROM rocpd_members ORDER BY db",
            "SELECT * FROM rocpd_union('top') ORDER BY db, name",
            "SELECT db, kind, count(*), sum(duration) FROM rocpd_ops "
            "WHERE start >= (SELECT min(start) + (max(start) - min(start)) / 2 FROM rocpd_ops) "
            "AND start < (SELECT min(start) + (max(start) - min(start)) * 51 / 100 FROM rocpd_ops) GROUP BY 1, 2",
        ]
        for q in queries:
            with self.subTest(q=q):
                expected = plain.execute(q).fetchall()
                self.assertGreater(len(expected), 0)
                self.assertEqual(zst.execute(q).fetchall(), expected)
        paths = [r[0] for r in zst.execute("SELECT path FROM rocpd_members ORDER BY db")]
        self.assertTrue(all(p.endswith(".zst") for p in paths), paths)
        plain.close()
        zst.close()

    def test_attached_compressed_member(self):
        name = self.files[0]
        con = connect()
        con.execute("ATTACH ? AS packed", (vfs_uri(os.path.join(self.zst_dir, name + ".zst")),))
        con.execute("ATTACH ? AS unpacked", (os.path.join(self.plain_dir, name),))
        q = "SELECT count(*), sum(duration), min(start), max(end) FROM rocpd_ops WHERE db = ?"
        self.assertEqual(con.execute(q, ("packed",)).fetchone(), con.execute(q, ("unpacked",)).fetchone())
        self.assertEqual(con.execute("SELECT source FROM rocpd_members WHERE db = 'packed'").fetchone(), ("attached",))
        con.close()

    def test_damaged_member_is_refused_by_name(self):
        bad_dir = os.path.join(self.dir, "job_bad")
        os.makedirs(bad_dir, exist_ok=True)
        with open(os.path.join(self.zst_dir, self.files[0] + ".zst"), "rb") as f:
            data = f.read()
        bad = os.path.join(bad_dir, "rank9.rpd.zst")
        with open(bad, "wb") as f:
            f.write(data[: len(data) // 3])
        # SQLite reports the VFS's refusal as "unable to open database file"; rocpd_open appends
        # the VFS's own reason, naming the file (and no stale errno: the failure is not a system one).
        self.assertRegex(self.error("SELECT rocpd_open(?)", (bad,)),
                         "^" + re.escape(f"rocpd_open: '{bad}': ") + "(cannot open: )?" +
                         re.escape(f"unable to open database file; rocpd_zstd: {bad}: truncated: "
                                   f"the last zstd frame ends early ({len(data) // 3} bytes in the file)") + "$")


class Errors(Base):
    def test_argument_errors(self):
        dst = self.path("never.db.zst")
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?, 99)", (self.src, dst)),
                         "rocpd_compress: level 99 is outside zstd's range -131072..22")
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?, 3, 0)", (self.src, dst)),
                         "rocpd_compress: frame_kib 0 is outside 1..65536")
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?, 3, 65537)", (self.src, dst)),
                         "rocpd_compress: frame_kib 65537 is outside 1..65536")
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?, 'high')", (self.src, dst)),
                         "rocpd_compress: level must be an integer")
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?, 3, 1.5)", (self.src, dst)),
                         "rocpd_compress: frame_kib must be an integer")
        self.assertEqual(self.error("SELECT rocpd_compress(NULL, ?)", (dst,)),
                         "rocpd_compress: src and dst must be file names (text)")
        self.assertEqual(self.error("SELECT rocpd_compress(?, '')", (self.src,)),
                         "rocpd_compress: src and dst must be non-empty file names")
        self.assertFalse(os.path.exists(dst))

    def test_file_errors(self):
        dst = self.path("exists.db.zst")
        self.compress(self.src, dst)
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?)", (self.src, dst)),
                         f"rocpd_compress: '{dst}' already exists (rocpd_compress never overwrites)")
        missing = self.path("missing.db")
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?)", (missing, self.path("m.zst"))),
                         f"rocpd_compress: cannot open source '{missing}': unable to open database file")
        self.assertFalse(os.path.exists(missing))
        self.assertEqual(self.error("SELECT rocpd_compress(?, ?)", (dst, self.path("z.zst"))),
                         f"rocpd_compress: source '{dst}': file is not a database")
        nodir = self.path("no/such/dir/x.zst")
        self.assertRegex(self.error("SELECT rocpd_compress(?, ?)", (self.src, nodir)),
                         r"^rocpd_compress: cannot create '.*/no/such/dir/x\.zst': "
                         r"No such file or directory$")

    def test_direct_only(self):
        con = connect()
        con.execute("CREATE VIEW v AS SELECT rocpd_compress('a', 'b') AS n")
        with self.assertRaises(sqlite3.OperationalError) as caught:
            con.execute("SELECT * FROM v").fetchall()
        self.assertEqual(str(caught.exception), "unsafe use of rocpd_compress()")
        con.close()

    def damaged(self, name, mutate):
        good = self.path("good.db.zst")
        if not os.path.exists(good):
            self.compress(self.src, good, 3, 64)
        with open(good, "rb") as f:
            data = bytearray(f.read())
        data = mutate(data)
        path = self.path(name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_damaged_files(self):
        def entry(data, i):
            frames = int.from_bytes(data[-9:-5], "little")
            return len(data) - (8 + 12 * frames + 9) + 8 + 12 * i

        truncated = self.damaged("truncated.zst", lambda d: d[: len(d) // 2])
        uri = vfs_uri(truncated)
        con = connect()
        con.execute("ATTACH ? AS good", (vfs_uri(self.path("good.db.zst")),))  # a successful open clears it
        self.assertIsNone(con.execute("SELECT rocpd_zstd_last_error()").fetchone()[0])
        with self.assertRaises(sqlite3.OperationalError) as caught:
            con.execute("ATTACH ? AS z", (uri,))
        self.assertEqual(str(caught.exception), f"unable to open database: {uri}")
        self.assertEqual(con.execute("SELECT rocpd_zstd_last_error()").fetchone()[0],
                         f"rocpd_zstd: {truncated}: truncated: the last zstd frame ends early "
                         f"({os.path.getsize(truncated)} bytes in the file)")
        con.close()
        self.assertEqual(self.error("SELECT rocpd_zstd_verify(?)", (truncated,)),
                         f"rocpd_zstd_verify: {truncated}: truncated: the last zstd frame ends early "
                         f"({os.path.getsize(truncated)} bytes in the file)")

        def bad_checksum(d):
            e = entry(d, 2)
            d[e + 8] ^= 0xFF
            return d
        checksum = self.damaged("checksum.zst", bad_checksum)
        # The seek table is sound, so the file opens; the damaged frame fails when a query reaches it.
        con = connect()
        con.execute("ATTACH ? AS z", (vfs_uri(checksum),))
        with self.assertRaises(sqlite3.DatabaseError) as caught:
            con.execute("SELECT * FROM z.rocpd_op").fetchall()
            con.execute("SELECT * FROM z.rocpd_api").fetchall()
            con.execute("SELECT * FROM z.rocpd_string").fetchall()
        self.assertEqual(str(caught.exception), "database disk image is malformed")
        self.assertRegex(con.execute("SELECT rocpd_zstd_last_error()").fetchone()[0],
                         rf"^rocpd_zstd: {checksum}: frame 2 at offset \d+ fails its checksum "
                         r"\(seek table 0x[0-9a-f]{8}, data 0x[0-9a-f]{8}\)$")
        con.close()
        self.assertRegex(self.error("SELECT rocpd_zstd_verify(?)", (checksum,)),
                         rf"^rocpd_zstd_verify: {checksum}: frame 2 at offset \d+ fails its checksum "
                         r"\(seek table 0x[0-9a-f]{8}, data 0x[0-9a-f]{8}\)$")

        def lying_table(d):
            e = entry(d, 0)
            d[e : e + 4] = (int.from_bytes(d[e : e + 4], "little") + 1000).to_bytes(4, "little")
            return d
        lying = self.damaged("lying.zst", lying_table)
        self.assertEqual(self.error("ATTACH ? AS z", (vfs_uri(lying),)), f"unable to open database: {vfs_uri(lying)}")
        self.assertRegex(self.error("SELECT rocpd_zstd_verify(?)", (lying,)),
                         rf"^rocpd_zstd_verify: {lying}: seek table frame sizes (add up to|pass the start)")

        tera = self.path("tera.zst")
        with open(tera, "wb") as f:  # a frame header declaring 1 TB, nothing behind it
            f.write(bytes.fromhex("28b52ffd") + bytes([0xE0]) + (1 << 40).to_bytes(8, "little"))
        self.assertEqual(self.error("SELECT rocpd_zstd_verify(?)", (tera,)),
                         f"rocpd_zstd_verify: {tera}: declares 1099511627776 decompressed bytes; the limit for "
                         "single-frame .zst files is 268435456 bytes (rocpd_zstd_plain_limit(); rocpd_compress() "
                         "writes a seekable file instead)")
        self.assertEqual(self.error("ATTACH ? AS z", (vfs_uri(tera),)), f"unable to open database: {vfs_uri(tera)}")

        self.assertEqual(self.error("ATTACH ? AS z", (vfs_uri(self.src),)),
                         f"unable to open database: {vfs_uri(self.src)}")
        self.assertEqual(self.error("SELECT rocpd_zstd_verify(?)", (self.src,)),
                         f"rocpd_zstd_verify: {self.src}: not a zstd-compressed file (no zstd frame magic, no seek table)")
        missing = self.path("missing.zst")
        self.assertEqual(self.error("SELECT rocpd_zstd_verify(?)", (missing,)),
                         f"rocpd_zstd_verify: {missing}: cannot open: No such file or directory")

    def test_plain_limit_argument(self):
        self.assertEqual(self.error("SELECT rocpd_zstd_plain_limit(0)"),
                         "rocpd_zstd_plain_limit: the limit must be a positive integer (bytes)")
        self.assertEqual(self.error("SELECT rocpd_zstd_plain_limit('big')"),
                         "rocpd_zstd_plain_limit: the limit must be a positive integer (bytes)")


if __name__ == "__main__":
    unittest.main()
