"""Generated PyTorch profiler (Kineto) members (rocpd_gen --format kineto, docs/generator.md) read
with every count, sum, stack and counter the generator's ground truth (truth.json) states, and row
for row equal to the same workload written as rocprofv3 files (the same seed: the same processes):
op times to the ns (even ranks write every ts just past 2^53 ns), GPUs, queues, kernel geometry."""
import json
import os
import shutil
import sys
import tempfile
import unittest
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import connect, generate, main  # noqa: E402

SEED, PROCS, OPS = 23, 4, 1500


class KinetoGenerated(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_kineto_gen_")
        cls.truth = generate(os.path.join(cls.tmp, "k"), PROCS, "kineto", OPS, SEED)
        generate(os.path.join(cls.tmp, "r"), PROCS, "rocpd", OPS, SEED)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (os.path.join(cls.tmp, "k"),))
        for i in range(PROCS):
            cls.con.execute("SELECT rocpd_open(?)", (os.path.join(cls.tmp, "r", f"rank{i}.db"),))
        cls.files = {f["db"]: f for f in cls.truth["files"]}

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    def test_layouts_covered(self):
        layouts = {f["kineto"]["layout"] for f in self.truth["files"]}
        self.assertEqual(layouts, {"base", "absolute", "base_after_events"})

    def test_members(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                k = f["kineto"]
                row = self.rows("SELECT format, schema_version, rank, pids, ops, apis, first_ns, last_ns "
                                "FROM rocpd_members WHERE db = ?", (db,))
                self.assertEqual(row, [("kineto", f["schema_version"], k["rank"], json.dumps(f["pids"]).replace(" ", ""), f["ops"],
                                        f["apis"] + f["markers"] + k["cpu_ops"], f["first_ns"], f["last_ns"])])

    def test_ops(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                generic = f["kineto"]["copy_names"]  # Kineto's copy name -> the truth's
                got = self.rows("SELECT count(*), sum(kind = 'kernel'), sum(kind = 'copy'), sum(duration) "
                                "FROM rocpd_ops WHERE db = ?", (db,))
                self.assertEqual(got, [(f["ops"], f["kernels"], f["copies"], f["ops_sum_ns"])])
                top = {(t["name"], t["kind"]): (t["calls"], t["total_ns"], t["min_ns"], t["max_ns"]) for t in f["top"]}
                got = {}
                for n, k, c, s, lo, hi in self.rows("SELECT name, kind, count(*), sum(duration), min(duration), "
                                                    "max(duration) FROM rocpd_ops WHERE db = ? GROUP BY name, kind",
                                                    (db,)):
                    key = (generic.get(n, n) if k == "copy" else n, k)
                    old = got.get(key)
                    got[key] = (c, s, lo, hi) if not old else (old[0] + c, old[1] + s, min(old[2], lo), max(old[3], hi))
                self.assertEqual(got, top)
                gpus = {g["gpu"]: (g["ops"], g["sum_ns"], g["first_ns"], g["last_ns"]) for g in f["gpus"]}
                got = {g: (c, s, a, b) for g, c, s, a, b in self.rows(
                    'SELECT gpu, count(*), sum(duration), min(start), max("end") FROM rocpd_ops WHERE db = ? '
                    "GROUP BY gpu", (db,))}
                self.assertEqual(got, gpus)

    def test_busy(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                want = {g["gpu"]: g["busy_ns"] for g in f["gpus"]}
                got = dict(self.rows("SELECT gpu, busy_ns FROM rocpd_busy WHERE db = ?", (db,)))
                self.assertEqual(got, want)

    def test_apis_and_markers(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                want = {t["name"]: (t["calls"], t["total_ns"]) for t in f["api_top"]}
                got = {n: (c, s) for n, c, s in self.rows(
                    "SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? AND domain = 'hip' "
                    "GROUP BY name", (db,))}
                self.assertEqual(got, want)
                want = {t["name"]: (t["calls"], t["total_ns"]) for t in f["marker_top"]}
                got = {n: (c, s) for n, c, s in self.rows(
                    "SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? AND category = "
                    "'user_annotation' GROUP BY name", (db,))}
                self.assertEqual(got, want)
                self.assertEqual(self.rows("SELECT count(*) FROM rocpd_apis WHERE db = ? AND category = 'cpu_op' "
                                           "AND domain = 'marker'", (db,)), [(f["kineto"]["cpu_ops"],)])

    def test_launch_links(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                unlinked = self.rows(
                    "SELECT count(*) FROM rocpd_ops AS o WHERE db = ? AND NOT EXISTS (SELECT 1 FROM rocpd_apis AS a "
                    "WHERE a.db = o.db AND a.correlation_id = o.correlation_id)", (db,))
                self.assertEqual(unlinked, [(f["kineto"]["unlinked_ops"],)])
                self.assertGreater(f["kineto"]["flow_only_links"], 0)

    def test_stacks(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                k = f["kineto"]
                self.assertEqual(sorted(self.rows("SELECT depth, count(*) FROM rocpd_kernel_stacks WHERE db = ? "
                                                  "GROUP BY depth", (db,))), [tuple(x) for x in k["stack_depths"]])
                for col, key in (("top_level", "top_levels"), ("bottom_level", "bottom_levels")):
                    got = sorted(self.rows(f"SELECT {col}, count(*) FROM rocpd_kernel_stacks WHERE db = ? AND "
                                           f"{col} IS NOT NULL GROUP BY {col}", (db,)))
                    self.assertEqual(got, sorted(tuple(x) for x in k[key]))

    def test_counter_samples(self):
        for db, f in self.files.items():
            with self.subTest(db=db):
                k = f["kineto"]
                got = self.rows("SELECT count(*), sum(value), count(op_id), min(counter), max(counter) "
                                "FROM rocpd_counters WHERE db = ?", (db,))
                self.assertEqual(got, [(k["counter_samples"], float(k["counter_sum"]), 0, k["counter_name"],
                                        k["counter_name"])])

    def test_same_rows_as_rocprofv3(self):
        """Each Kineto member holds the ops of the same process written as rocprofv3: same times (to
        the ns), GPUs, queues, kernel names and launch geometry."""
        generic = self.files["rank0"]["kineto"]["copy_names"]
        rocpd_copy = {"MEMORY_COPY_HOST_TO_DEVICE": "CopyHostToDevice", "MEMORY_COPY_DEVICE_TO_HOST": "CopyDeviceToHost",
                      "MEMORY_COPY_DEVICE_TO_DEVICE": "CopyDeviceToDevice"}
        for i in range(PROCS):
            k, r = f"rank{i}", f"rank{i}_2"
            with self.subTest(db=k):
                sql = ('SELECT kind, start, "end", gpu, CASE WHEN kind = \'kernel\' THEN name END '
                       "FROM rocpd_ops WHERE db = ?")
                self.assertEqual(Counter(self.rows(sql, (k,))), Counter(self.rows(sql, (r,))))
                geometry = ("SELECT start, grid_x, grid_y, grid_z, workgroup_x, workgroup_y, workgroup_z, lds_bytes "
                            "FROM rocpd_kernels WHERE db = ?")
                self.assertEqual(Counter(self.rows(geometry, (k,))), Counter(self.rows(geometry, (r,))))
                # Copies: sizes and the GPUs at both ends; Kineto names neither GPU of a peer copy (PtoP).
                copies = "SELECT name, start, bytes, src_gpu, dst_gpu FROM rocpd_copies WHERE db = ?"
                got = Counter((generic[n], s, b, sg, dg) for n, s, b, sg, dg in self.rows(copies, (k,)))
                want = Counter()
                for n, s, b, sg, dg in self.rows(copies, (r,)):
                    if sg is not None and dg is not None and sg != dg:
                        sg = dg = None
                    want[(rocpd_copy.get(n, n), s, b, sg, dg)] += 1
                self.assertEqual(got, want)
                self.assertTrue(any(n == "CopyDeviceToDevice" for n, *_ in got))


    def test_analyses_as_rocprofv3(self):
        """Analyses of a Kineto member equal those of the same process written as rocprofv3 (whose
        rows other tests check against brute force): over its ops alone, and over the ops whose
        launch the Kineto member records (all but the unlinked ones)."""
        per_op = {
            "rocpd_gaps": "SELECT gpu, count(*), sum(\"end\" - start) FROM rocpd_gaps WHERE db = ? GROUP BY gpu",
            "rocpd_utilization": "SELECT gpu, bucket, busy_ns FROM rocpd_utilization(1000000) WHERE db = ?",
            "rocpd_comm_overlap": "SELECT gpu, compute_ops, comm_ops, compute_ns, comm_ns, overlap_ns, exposed_comm_ns "
                                  "FROM rocpd_comm_overlap WHERE db = ?",
            "rocpd_gpu_summary": "SELECT * FROM rocpd_gpu_summary WHERE db = ?",
        }
        for i in range(PROCS):
            k, r = f"rank{i}", f"rank{i}_2"
            for name, sql in per_op.items():
                with self.subTest(db=k, analysis=name):
                    got = sorted(tuple(x[1:]) if name == "rocpd_gpu_summary" else x for x in self.rows(sql, (k,)))
                    want = sorted(tuple(x[1:]) if name == "rocpd_gpu_summary" else x for x in self.rows(sql, (r,)))
                    self.assertEqual(got, want)
                    self.assertTrue(got)
            with self.subTest(db=k, analysis="rocpd_launch_stats"):
                sql = ("SELECT start, name, api_name, cpu_ns, gpu_ns, launch_delay_ns FROM rocpd_launch_stats "
                       "WHERE db = ? AND kind = 'kernel'")
                got = sorted(self.rows(sql, (k,)))
                want = sorted(self.rows(sql, (r,)))
                unlinked = self.files[k]["kineto"]["unlinked_ops"]
                self.assertLessEqual(len(want) - len(got), unlinked)  # the unlinked kernels have no launch
                self.assertGreater(len(got), len(want) // 2)
                self.assertTrue(set(got) <= set(want))


def brute_ops(path):
    """The trace's GPU ops counted from its JSON alone (Python's json, exact decimals): per op
    category spelling of every profiler version (Kernel/kernel, Memcpy/gpu_memcpy, MTIA's
    mtia_ccp_events, whose DMA requests are copies), kernels, copies, the sum of dur and the
    first start, in ns."""
    import gzip
    from decimal import ROUND_HALF_UP, Decimal
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    base = int(doc.get("baseTimeNanoseconds", 0))
    ns = lambda v: int((Decimal(v) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    kernels = copies = total = 0
    first = None
    for e in doc["traceEvents"]:
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") != "X" or cat not in ("kernel", "gpu_memcpy", "memcpy", "mtia_ccp_events") or \
                not isinstance(e.get("pid"), int):
            continue
        copy = cat in ("gpu_memcpy", "memcpy") or (cat == "mtia_ccp_events" and e["name"].startswith("dma"))
        kernels += not copy
        copies += copy
        total += ns(e["dur"])
        start = base + ns(e["ts"])
        first = start if first is None else min(first, start)
    return kernels, copies, total, first


class KinetoVersions(unittest.TestCase):
    """rocpd_gen --kineto-version V: the trace as PyTorch V's profiler writes it (category
    spellings, whole-µs or ns-digit times, no baseTimeNanoseconds, text tids, old launch flows
    ph s/f with id and bp, "external id", no distributedInfo or deviceProperties, MTIA devices),
    read with the counts and times of a brute force over the JSON and the generator's truth."""
    VERSIONS = ("1.8", "1.9", "1.10", "1.11", "2.0", "2.1", "2.3", "2.4", "mtia")

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_kineto_ver_")
        cls.truth = {v: generate(os.path.join(cls.tmp, v), 1, "kineto", 300, SEED, "--kineto-version", v)["files"][0]
                     for v in cls.VERSIONS}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_versions(self):
        for v, f in self.truth.items():
            with self.subTest(version=v):
                con = connect()
                con.execute("SELECT rocpd_open(?)", (os.path.join(self.tmp, v),))
                kernels, copies, total, first = brute_ops(os.path.join(self.tmp, v, f["db"] + ".json"))
                self.assertEqual((kernels, copies), (f["kernels"], f["copies"]))
                got = con.execute("SELECT sum(kind = 'kernel'), sum(kind = 'copy'), sum(duration), min(start) "
                                  "FROM rocpd_ops").fetchall()
                self.assertEqual(got, [(kernels, copies, total, first)])
                if v in ("2.3", "2.4", "mtia"):  # ns digits: the truth's own times
                    self.assertEqual(total, f["ops_sum_ns"])
                # Launch links through every version's flows and correlations.
                unlinked = con.execute("SELECT count(*) FROM rocpd_ops AS o WHERE NOT EXISTS (SELECT 1 FROM rocpd_apis "
                                       "AS a WHERE a.correlation_id = o.correlation_id)").fetchall()
                self.assertEqual(unlinked, [(f["kineto"]["unlinked_ops"],)])
                self.assertGreater(f["kineto"]["flow_only_links"], 0)
                rank, names, notes = con.execute("SELECT rank, gpu_names, notes FROM rocpd_members").fetchone()
                self.assertEqual(rank, None if v in ("1.8", "1.9") else f["kineto"]["rank"])
                self.assertEqual(names is None, v == "1.8")
                if names:
                    want = "ARTEMIS" if v == "mtia" else "NVIDIA A100-SXM4-80GB"
                    self.assertEqual(set(json.loads(names).values()), {want})
                self.assertEqual("whole microseconds" in (notes or ""), v not in ("2.3", "2.4", "mtia"))
                con.close()

    def test_real_traces(self):
        """ROCPD_KINETO_REAL_TRACES (paths separated by ':'): public traces of other versions and
        devices (HTA's tests/data MTIA traces), read in place, against the same brute force."""
        paths = [p for p in os.environ.get("ROCPD_KINETO_REAL_TRACES", "").split(":") if p]
        if not paths:
            self.skipTest("ROCPD_KINETO_REAL_TRACES not set")
        for path in paths:
            with self.subTest(path=path):
                kernels, copies, total, first = brute_ops(path)
                con = connect()
                con.execute("SELECT rocpd_open(?)", (path,))
                got = con.execute("SELECT sum(kind = 'kernel'), sum(kind = 'copy'), sum(duration), min(start) "
                                  "FROM rocpd_ops").fetchall()
                self.assertEqual(got, [(kernels, copies, total, first)])
                con.close()


if __name__ == "__main__":
    main()
