"""The real PyTorch profiler (Kineto) traces of ../shared/data read through rocpd_open equal a
brute-force reading of the raw JSON (kineto_brute.py: Python json, exact Decimal times): op,
kernel and API counts and duration sums per device and per name, kernel geometry, copy sizes,
launch links, ranks, and each kernel's operator stack against an HTA-style call-stack sweep."""
import json
import os
import sys
import unittest
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SHARED_DATA, ChecksumGuard, connect, main  # noqa: E402
from kineto_brute import Trace, duration, hta_parents, hta_stack, sums_by  # noqa: E402

FILES = ["kineto_mi250_rocm.json.gz", "kineto_rank0.json.gz", "kineto_rank1.json.gz", "kineto_counters.json.gz"]
PATHS = [os.path.join(SHARED_DATA, f) for f in FILES]


def alias(path):
    return os.path.basename(path).split(".")[0]


class KinetoRealFiles(ChecksumGuard):
    watched = PATHS

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.con = connect()
        cls.traces = {}
        for p in PATHS:
            cls.con.execute("SELECT rocpd_open(?)", (p,))
            cls.traces[alias(p)] = Trace(p)

    def rows(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    def test_members(self):
        got = {r[0]: r[1:] for r in self.rows("SELECT db, format, path, rank, pids, ops, apis FROM rocpd_members")}
        for db, t in self.traces.items():
            with self.subTest(db=db):
                fmt, path, rank, pids, ops, apis = got[db]
                self.assertEqual(fmt, "kineto")
                self.assertTrue(path.endswith(".json.gz"))
                self.assertEqual(rank, t.rank())
                self.assertEqual(ops, len(t.ops()))
                self.assertEqual(apis, len(t.calls()))
                cpu_pids = {c["pid"] for c in t.calls() if c["domain"] != "gpu_annotation"}
                self.assertEqual(json.loads(pids), sorted(cpu_pids))

    def test_ops_per_device_and_name(self):
        for db, t in self.traces.items():
            with self.subTest(db=db):
                want = sums_by(t.ops(), lambda o: (o["gpu"], o["kind"], o["name"]))
                got = {(g, k, n): (c, s) for g, k, n, c, s in self.rows(
                    "SELECT gpu, kind, name, count(*), sum(duration) FROM rocpd_ops WHERE db = ? "
                    "GROUP BY gpu, kind, name", (db,))}
                self.assertEqual(got, want)
                self.assertGreater(len(want), 0)

    def test_op_times_and_streams(self):
        for db, t in self.traces.items():
            with self.subTest(db=db):
                want = Counter((o["start"], o["end"], o["stream"], o["name"]) for o in t.ops())
                got = Counter(self.rows('SELECT start, "end", stream, name FROM rocpd_ops WHERE db = ?', (db,)))
                self.assertEqual(got, want)

    def test_kernels(self):
        for db, t in self.traces.items():
            with self.subTest(db=db):
                want = Counter()
                for o in t.ops():
                    if o["kind"] != "kernel":
                        continue
                    a = o["args"]
                    g, b = a.get("grid"), a.get("block")
                    want[(o["gpu"], o["start"], o["name"],
                          g[0] * b[0] if g and b else None, g[1] * b[1] if g and b else None,
                          b[0] if b else None, b[2] if b else None,
                          a.get("registers per thread"), a.get("shared memory"))] += 1
                got = Counter(self.rows(
                    "SELECT gpu, start, name, grid_x, grid_y, workgroup_x, workgroup_z, vgpr, lds_bytes "
                    "FROM rocpd_kernels WHERE db = ?", (db,)))
                self.assertEqual(got, want)

    def test_copies(self):
        for db, t in self.traces.items():
            with self.subTest(db=db):
                want = Counter()
                for o in t.ops():
                    if o["kind"] == "copy":
                        n = o["name"]
                        src = o["gpu"] if ("DtoH" in n or "DtoD" in n) else None
                        dst = o["gpu"] if ("HtoD" in n or "DtoD" in n) else None
                        want[(o["name"], o["args"].get("bytes"), src, dst, duration(o))] += 1
                got = Counter(self.rows("SELECT name, bytes, src_gpu, dst_gpu, duration FROM rocpd_copies WHERE db = ?",
                                        (db,)))
                self.assertEqual(got, want)

    def test_apis_per_domain_and_name(self):
        for db, t in self.traces.items():
            with self.subTest(db=db):
                want = sums_by(t.calls(), lambda c: (c["domain"], c["cat"], c["name"]))
                got = {(d, c, n): (k, s) for d, c, n, k, s in self.rows(
                    "SELECT domain, category, name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? "
                    "GROUP BY domain, category, name", (db,))}
                self.assertEqual(got, want)
                threads = Counter((c["pid"], c["tid"]) for c in t.calls() if c["domain"] != "gpu_annotation")
                got_threads = Counter(self.rows("SELECT pid, tid FROM rocpd_apis WHERE db = ? AND domain <> "
                                                "'gpu_annotation'", (db,)))
                self.assertEqual(got_threads, threads)

    def test_launch_links(self):
        for db, t in self.traces.items():
            with self.subTest(db=db):
                launches = t.launches()
                want = Counter()
                for o in t.ops():
                    c = launches.get(o["correlation"])
                    want[(o["start"], o["name"], c["start"] if c else None, c["name"] if c else None)] += 1
                got = Counter(self.rows(
                    "SELECT o.start, o.name, a.start, a.name FROM rocpd_ops AS o LEFT JOIN rocpd_apis AS a "
                    "ON a.db = o.db AND a.correlation_id = o.correlation_id WHERE o.db = ?", (db,)))
                self.assertEqual(got, want)
                # Correlation ids name one call each within a member.
                dup = self.rows("SELECT correlation_id FROM rocpd_apis WHERE db = ? AND correlation_id IS NOT NULL "
                                "GROUP BY correlation_id HAVING count(*) > 1", (db,))
                self.assertEqual(dup, [])

    def test_stacks_as_hta(self):
        """Every kernel's stack is its launching call's path in HTA's per-thread call tree, keeping the
        operators (cpu_op) and annotations (user_annotation)."""
        for db, t in self.traces.items():
            with self.subTest(db=db):
                parents = hta_parents(t)
                launches = t.launches()
                want = {}
                for o in t.ops():
                    if o["kind"] == "fill":
                        continue  # rocpd_kernel_stacks: kernels and copies
                    c = launches.get(o["correlation"])
                    key = (o["start"], o["name"], o["stream"])
                    self.assertNotIn(key, want)
                    want[key] = hta_stack(t, parents, c["index"]) if c else []
                got = {(s, n, q): json.loads(st) for s, n, q, st in self.rows(
                    "SELECT k.start, k.name, o.stream, k.stack FROM rocpd_kernel_stacks AS k JOIN rocpd_ops AS o "
                    "ON o.db = k.db AND o.op_id = k.op_id WHERE k.db = ?", (db,))}
                self.assertEqual(len(got), len(want))
                self.assertEqual(got, want)
                self.assertTrue(any(want.values()), "no kernel has a stack: the test would prove nothing")

    def test_time_bounds_exact(self):
        # ns above 2^53 survive: min/max of every op time equal the decimal computation.
        for db, t in self.traces.items():
            with self.subTest(db=db):
                ops = t.ops()
                got = self.rows('SELECT min(start), max("end") FROM rocpd_ops WHERE db = ?', (db,))[0]
                self.assertEqual(got, (min(o["start"] for o in ops), max(o["end"] for o in ops)))
                self.assertGreater(got[1], 2 ** 53)


if __name__ == "__main__":
    if not all(os.path.exists(p) for p in PATHS):
        print(f"skipped: the real Kineto traces are not in {SHARED_DATA}")
        sys.exit(77)
    main()
