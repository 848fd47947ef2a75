"""The memory budget of decoded frames is global (issue 8). Before it, each open .zst file had its own
cache (at least 4 frames, each up to 64 MiB): 16 compressed members of 448 KB reached 3.7 GB RSS.

Here 16 members (seekable with 8 MiB frames, and plain .zst files from the zstd CLI) are opened
with rocpd_open and scanned, then each is opened again on its own connection - all held open at
once - and checked page by page. In a fresh child process, with a 48 MiB budget:
- the cache's own counters (rocpd_zstd_cache_stats()) stay within the budget plus the frames
  readers are copying from at that moment;
- the process's peak RSS grows by less than the budget plus that slack and SQLite's page caches
  (without the budget it grows by about 1 GB).

`budget_test.py --measure FRAME_KIB DB_MIB [LIMIT_MIB [OPS]]` runs the same scenario at another size
and prints the figures (docs/compression.md, the 16 x 448 KB case: --measure 65536 240; a limit of
0 keeps the default)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_db import make_trace  # noqa: E402

EXT = os.environ["ROCPD_EXT"]
ZSTD = shutil.which("zstd")
SANITIZED = "asan" in os.environ.get("LD_PRELOAD", "")
MIB = 1 << 20
MEMBERS = 16
PLAIN_MEMBERS = 4  # of the 16, written by the zstd CLI (no seek table)


def connect():
    con = sqlite3.connect(":memory:", check_same_thread=False)
    con.enable_load_extension(True)
    con.load_extension(EXT)
    return con


def make_padded_trace(path, db_mib, ops):
    """An rpd-like trace whose op and API pages are spread over the whole file between runs of
    zero-filled padding (it compresses to almost nothing, like the 448 KB members of the report):
    a scan of rocpd_ops then decodes every frame."""
    dense = path + ".dense"
    make_trace(dense, ops=ops).close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = off")
    con.execute("PRAGMA synchronous = off")
    con.execute("ATTACH ? AS d", (dense,))
    for name, sql in con.execute("SELECT name, sql FROM d.sqlite_schema WHERE type = 'table'").fetchall():
        con.execute(sql)
    con.execute("CREATE TABLE pad(b BLOB)")
    chunks = 100
    pad_rows = max(1, (db_mib * MIB) // chunks // 16000)
    step = -(-ops // chunks)
    for lo in range(1, ops + 1, step):
        for table in ("rocpd_op", "rocpd_api", "rocpd_api_ops"):
            con.execute(f"INSERT INTO main.{table} SELECT * FROM d.{table} WHERE id >= ? AND id < ?", (lo, lo + step))
        con.executemany("INSERT INTO pad VALUES (zeroblob(16000))", [()] * pad_rows)
    for table in ("rocpd_metadata", "rocpd_string"):
        con.execute(f"INSERT INTO main.{table} SELECT * FROM d.{table}")
    con.execute("CREATE INDEX op_start ON rocpd_op(start)")
    con.commit()
    con.execute("DETACH d")
    con.close()
    os.remove(dense)


def make_members(directory, db_mib, frame_kib, ops=3000):
    """MEMBERS compressed copies of one padded trace: seekable ones from rocpd_compress and, when
    the zstd CLI is there, PLAIN_MEMBERS plain ones."""
    src = os.path.join(directory, "source.rpd")
    make_padded_trace(src, db_mib, ops)
    members = os.path.join(directory, "members")
    os.mkdir(members)
    first = os.path.join(members, "rank00.rpd.zst")
    con = connect()
    con.execute("SELECT rocpd_compress(?, ?, 3, ?)", (src, first, frame_kib)).fetchone()
    con.close()
    plain = os.path.join(directory, "plain.zst")
    if ZSTD:
        subprocess.run([ZSTD, "-q", "-3", src, "-o", plain], check=True)
    for i in range(1, MEMBERS):
        use_plain = ZSTD and i > MEMBERS - 1 - PLAIN_MEMBERS
        shutil.copyfile(plain if use_plain else first, os.path.join(members, f"rank{i:02d}.rpd.zst"))
    sizes = sorted({os.path.getsize(os.path.join(members, f)) for f in os.listdir(members)})
    return src, members, sizes


CHILD = """
import json, os, sqlite3

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(EXT)
budget = con.execute("SELECT count(*) FROM pragma_function_list WHERE name = 'rocpd_zstd_cache_limit'").fetchone()[0]
if budget and LIMIT:
    con.execute("SELECT rocpd_zstd_cache_limit(?)", (LIMIT,)).fetchone()
base = status("VmRSS")
out = {"base_rss": base}
if con.execute("SELECT count(*) FROM pragma_function_list WHERE name = 'rocpd_open'").fetchone()[0]:
    out["opened"] = con.execute("SELECT rocpd_open(?)", (MEMBERS_DIR,)).fetchone()[0]
    out["ops"] = con.execute("SELECT count(*), sum(duration) FROM rocpd_ops").fetchone()
    out["ops_again"] = con.execute("SELECT count(*), sum(duration) FROM rocpd_ops").fetchone()
    out["hwm_growth_federated"] = status("VmHWM") - base
# Every member on its own connection, all open at once, every page read.
conns = []
for name in sorted(os.listdir(MEMBERS_DIR)):
    c = sqlite3.connect("file:" + os.path.join(MEMBERS_DIR, name) + "?vfs=rocpd_zstd&mode=ro", uri=True)
    conns.append(c)
    out.setdefault("quick_check", []).append(c.execute("PRAGMA quick_check").fetchone()[0])
out["hwm_growth"] = status("VmHWM") - base
if budget:
    out["stats"] = json.loads(con.execute("SELECT rocpd_zstd_cache_stats()").fetchone()[0])
print(json.dumps(out))
"""


def run_scenario(members, limit):
    """Runs CHILD in a fresh process; returns its figures. Allocations of 1 MiB and more are
    mmap()ed (MALLOC_MMAP_THRESHOLD_), so that RSS follows the frames alive, not what glibc keeps."""
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_=str(1 << 20))
    script = f"EXT = {EXT!r}\nLIMIT = {limit!r}\nMEMBERS_DIR = {members!r}\n" + textwrap.dedent(CHILD)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise AssertionError(f"the scenario failed ({out.returncode}): {out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


class Budget(unittest.TestCase):
    FRAME = 8 * MIB
    LIMIT = 48 * MIB
    # Frames being copied from outside the cache: the query's thread and the prefetch lanes.
    IN_FLIGHT = 4 * FRAME
    # SQLite's page caches (16 connections and the federation's pool), the interpreter.
    OTHER = 96 * MIB

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compression_budget_", dir=os.getcwd())
        cls.src, cls.members, cls.sizes = make_members(cls.tmp.name, db_mib=40, frame_kib=cls.FRAME // 1024)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_many_members_stay_within_the_budget(self):
        out = run_scenario(self.members, self.LIMIT)
        self.assertEqual(out["quick_check"], ["ok"] * MEMBERS)
        if "opened" in out:
            self.assertEqual(out["opened"], MEMBERS)
            expected = sqlite3.connect(self.src).execute("SELECT count(*), sum(end - start) FROM rocpd_op").fetchone()
            self.assertEqual(out["ops"], [expected[0] * MEMBERS, expected[1] * MEMBERS])
            self.assertEqual(out["ops_again"], out["ops"])
        if not SANITIZED:  # ASan's quarantine keeps freed frames resident for a while
            self.assertLess(out["hwm_growth"], self.LIMIT + self.IN_FLIGHT + self.OTHER,
                            f"peak RSS grew by {out['hwm_growth'] / MIB:.0f} MiB")
        self.assertIn("stats", out, "rocpd_zstd_cache_stats() is missing")
        stats = out["stats"]
        self.assertEqual(stats["limit"], self.LIMIT)
        self.assertLessEqual(stats["peak_cached_bytes"], self.LIMIT)
        self.assertLessEqual(stats["peak_live_bytes"], self.LIMIT + self.IN_FLIGHT)
        self.assertGreater(stats["evictions"], 0)  # the scenario really needed more than the budget

    def test_sql_interface(self):
        con = connect()
        try:
            # A fresh process has the documented default; setting returns the new limit.
            default = subprocess.run(
                [sys.executable, "-c", "import sqlite3; c = sqlite3.connect(':memory:'); c.enable_load_extension(True); "
                 f"c.load_extension({EXT!r}); print(c.execute('SELECT rocpd_zstd_cache_limit()').fetchone()[0])"],
                check=True, capture_output=True, text=True).stdout.strip()
            self.assertEqual(int(default), 256 * MIB)
            old = con.execute("SELECT rocpd_zstd_cache_limit()").fetchone()[0]
            self.assertEqual(con.execute("SELECT rocpd_zstd_cache_limit(12345678)").fetchone()[0], 12345678)
            self.assertEqual(json.loads(con.execute("SELECT rocpd_zstd_cache_stats()").fetchone()[0])["limit"], 12345678)
            for bad in ("0", "-1", "'big'", "1.5", "NULL"):
                with self.assertRaises(sqlite3.Error) as caught:
                    con.execute(f"SELECT rocpd_zstd_cache_limit({bad})").fetchone()
                self.assertEqual(str(caught.exception),
                                 "rocpd_zstd_cache_limit: the limit must be a positive integer (bytes)")
            con.execute("SELECT rocpd_zstd_cache_limit(?)", (old,)).fetchone()
            # DIRECTONLY: a database's views cannot change the process's budget.
            con.execute("CREATE VIEW v AS SELECT rocpd_zstd_cache_limit(1) AS n")
            with self.assertRaises(sqlite3.Error) as caught:
                con.execute("SELECT * FROM v").fetchall()
            self.assertEqual(str(caught.exception), "unsafe use of rocpd_zstd_cache_limit()")
            self.assertEqual(con.execute("SELECT rocpd_zstd_cache_limit()").fetchone()[0], old)
        finally:
            con.close()

    def test_frames_larger_than_the_budget_stay_readable(self):
        # A budget smaller than one frame: every member still reads correctly.
        out = run_scenario(self.members, 1 * MIB)
        self.assertEqual(out["quick_check"], ["ok"] * MEMBERS)
        if "opened" in out:
            self.assertEqual(out["ops_again"], out["ops"])
        self.assertGreater(out["stats"]["oversized"], 0)
        self.assertLessEqual(out["stats"]["peak_live_bytes"], self.FRAME + self.IN_FLIGHT)


def measure(frame_kib, db_mib, limit_mib=0, ops=2500):
    with tempfile.TemporaryDirectory(prefix="budget_measure_") as tmp:
        _, members, sizes = make_members(tmp, db_mib=db_mib, frame_kib=frame_kib, ops=ops)
        out = run_scenario(members, limit_mib * MIB if limit_mib else None)
        print(json.dumps({"frame_kib": frame_kib, "db_mib": db_mib, "member_bytes": sizes,
                          "hwm_growth_federated_mib": round(out.get("hwm_growth_federated", 0) / MIB, 1),
                          "hwm_growth_mib": round(out["hwm_growth"] / MIB, 1), **out}, indent=1))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        measure(*[int(a) for a in sys.argv[2:]])
    else:
        unittest.main()
