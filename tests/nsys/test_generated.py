"""Generated Nsight Systems exports (rocpd_gen --format nsys) against the generator's ground truth
(truth.json, computed from the in-memory workload) and against a brute-force reading of their raw
tables (nsys_raw.py): two processes in one report with repeated correlation ids, rows out of time
order, NVTX text inline and registered, copies of every direction, memsets, version-suffixed calls."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import GEN, ChecksumGuard, connect, generate, main  # noqa: E402
from nsys_raw import Raw, kern_sum, union  # noqa: E402
from nsys_kern_sum import check_kern_sum, kern_sum as raw_kern_sum  # noqa: E402

# rocpd_gen --nsys-schema Y: the export schema each Nsight Systems year writes (docs/formats.md).
# 2021.5 records no EXPORT_SCHEMA_VERSION (version NULL, read by its tables and columns).
GENERATIONS = {2021: None, 2022: "2.9.1", 2023: "3.4.0", 2025: "3.20.3", 2026: "3.25.0"}


class Generated(ChecksumGuard):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_")
        cls.dir = os.path.join(cls.tmp, "job")
        cls.truth = generate(cls.dir, 2, "nsys", 3000, 5, "--sessions", 2, "--memsets", 40)
        cls.watched = [os.path.join(cls.dir, f["file"]) for f in cls.truth["files"]]
        super().setUpClass()
        cls.raw = {f["db"]: Raw(os.path.join(cls.dir, f["file"])) for f in cls.truth["files"]}
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.dir,))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def q(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    def files(self):
        for f in self.truth["files"]:
            with self.subTest(db=f["db"]):
                yield f["db"], f

    def test_fixture_shape(self):
        first = self.truth["files"][0]
        self.assertEqual(first["nsys_processes"], 2)
        self.assertGreater(first["nsys_shared_correlation_ids"], 1000)  # ids repeat across the two processes
        self.assertGreater(first["nsys_memsets"], 0)
        nvtx = first["nsys_nvtx"]
        self.assertTrue(all(nvtx[k] > 0 for k in ("push_pop", "start_end", "marks", "registered", "inline")))
        # Rows are not in time order (nsys guarantees none).
        con = sqlite3.connect(f"file:{self.watched[0]}?mode=ro", uri=True)
        for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
            starts = [r[0] for r in con.execute(f"SELECT start FROM {t} ORDER BY rowid")]
            self.assertNotEqual(starts, sorted(starts), t)
        con.close()

    def test_members_against_truth(self):
        for db, f in self.files():
            row = self.q("SELECT format, schema_version, version, hostname, pids, ops, apis, first_ns, last_ns "
                         "FROM rocpd_members WHERE db = ?", (db,))[0]
            self.assertEqual(row, ("nsys", 3, "3.25.0", f["hostname"], json.dumps(sorted(f["pids"])).replace(" ", ""),
                                   f["ops"], f["apis"] + f["markers"] + sum(n for n, t in f["nsys_sync"].values()),
                                   f["first_ns"], f["last_ns"]))

    def test_ops_against_truth(self):
        for db, f in self.files():
            self.assertEqual(self.q("SELECT count(*), sum(duration) FROM rocpd_ops WHERE db = ?", (db,))[0],
                             (f["ops"], f["ops_sum_ns"]))
            self.assertEqual(self.q("SELECT count(*) FILTER (WHERE kind = 'kernel'), count(*) FILTER (WHERE kind = "
                                    "'copy'), count(*) FILTER (WHERE kind = 'fill') FROM rocpd_ops WHERE db = ?",
                                    (db,))[0], (f["kernels"], f["copies"], f["nsys_memsets"]))
            got = {(n, k): (c, t, lo, hi) for n, k, c, t, lo, hi in self.q(
                "SELECT name, kind, count(*), sum(duration), min(duration), max(duration) FROM rocpd_ops "
                "WHERE db = ? GROUP BY name, kind", (db,))}
            self.assertEqual(got, {(t["name"], t["kind"]): (t["calls"], t["total_ns"], t["min_ns"], t["max_ns"])
                                   for t in f["top"]})
            gpus = self.q("SELECT gpu, count(*), sum(duration), min(start), max(\"end\") FROM rocpd_ops WHERE db = ? "
                          "GROUP BY gpu", (db,))
            self.assertEqual(gpus, [(g["gpu"], g["ops"], g["sum_ns"], g["first_ns"], g["last_ns"]) for g in f["gpus"]])
            busy = self.q("SELECT gpu, busy_ns FROM rocpd_busy WHERE db = ?", (db,))
            self.assertEqual(busy, [(g["gpu"], g["busy_ns"]) for g in f["gpus"]])
            intervals = self.q("SELECT gpu, count(*) FROM rocpd_busy_intervals WHERE db = ? GROUP BY gpu", (db,))
            self.assertEqual(intervals, [(g["gpu"], g["busy_intervals"]) for g in f["gpus"]])
            demangled = dict(self.q("SELECT name, demangled FROM rocpd_ops WHERE db = ? AND kind = 'kernel' "
                                    "AND demangled IS NOT name GROUP BY name", (db,)))
            self.assertEqual(demangled, f["nsys_demangled"])
            streams = {s for (s,) in self.q("SELECT DISTINCT stream FROM rocpd_ops WHERE db = ?", (db,))}
            self.assertEqual(streams, set(f["nsys_streams"].values()))
            self.assertEqual(self.q("SELECT count(*) FROM rocpd_ops WHERE db = ? AND queue IS NOT NULL", (db,)), [(0,)])

    def test_apis_against_truth(self):
        for db, f in self.files():
            got = {n: (c, t) for n, c, t in self.q(
                "SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? AND domain IN ('cuda', 'cuda_driver') "
                "GROUP BY name", (db,))}
            self.assertEqual(got, {t["name"]: (t["calls"], t["total_ns"]) for t in f["api_top"]})
            self.assertIn("cudaLaunchKernel", got)
            self.assertIn("cudaLaunchKernelExC_v11060", got)  # a five-digit suffix stays, as in nsys stats
            self.assertIn("cuLaunchKernel", got)  # a driver call
            self.assertEqual(dict(self.q("SELECT domain, count(*) FROM rocpd_apis WHERE db = ? AND domain IN ('cuda', 'cuda_driver') "
                                         "GROUP BY domain", (db,))), f["nsys_api_domains"])
            markers = {n: (c, t) for n, c, t in self.q(
                "SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? AND domain = 'marker' "
                "GROUP BY name", (db,))}
            self.assertEqual(markers, {m["name"]: (m["calls"], m["total_ns"]) for m in f["marker_top"]})
            nvtx = f["nsys_nvtx"]
            self.assertEqual(dict(self.q("SELECT category, count(*) FROM rocpd_apis WHERE db = ? AND domain = 'marker' "
                                         "GROUP BY category", (db,))),
                             {"NvtxPushPopRange": nvtx["push_pop"], "NvtxStartEndRange": nvtx["start_end"],
                              "NvtxMark": nvtx["marks"]})
            self.assertEqual(self.raw[db].nvtx_other, nvtx["other_rows"])
            self.assertEqual(sum(r["registered"] for r in self.raw[db].ranges), nvtx["registered"])

    def test_synchronization_against_truth(self):
        # Every synchronizing call left a CUPTI synchronization record: a 'cuda_sync' call named by
        # its kind, over the call's own time (the generator's truth), and one per raw row.
        for db, f in self.files():
            got = {n: [c, t] for n, c, t in self.q(
                "SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? AND domain = 'cuda_sync' "
                "GROUP BY name", (db,))}
            self.assertEqual(got, f["nsys_sync"])
            self.assertEqual(set(got), {"Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"})
            raw = sorted((y["pid"], y["name"], y["start"], y["end"]) for y in self.raw[db].syncs)
            self.assertEqual(self.q("SELECT pid, name, start, \"end\" FROM rocpd_apis WHERE db = ? AND "
                                    "domain = 'cuda_sync' ORDER BY 1, 2, 3, 4", (db,)), raw)

    def test_domain_in_list(self):
        # Each value of an IN list is a filter of its own; the member SQL writes `domain = 'x'` as a
        # predicate on eventClass, so a query prepared for one value must not serve the next.
        con = connect()
        con.execute("ATTACH ? AS rank0", (os.path.join(self.dir, "rank0.sqlite"),))
        each = {d: n for d, n in con.execute("SELECT domain, count(*) FROM rocpd_apis GROUP BY domain")}
        self.assertGreater(each.get("cuda", 0), 0)
        self.assertGreater(each.get("cuda_driver", 0), 0)
        got = con.execute("SELECT count(*) FROM rocpd_apis WHERE domain IN ('cuda', 'cuda_driver', 'none')").fetchone()
        self.assertEqual(got, (each["cuda"] + each["cuda_driver"],))

    def test_launches(self):
        for db, f in self.files():
            n = self.q("SELECT count(*) FROM rocpd_ops o JOIN rocpd_apis a ON a.db = o.db AND "
                       "a.correlation_id = o.correlation_id WHERE o.db = ?", (db,))[0][0]
            self.assertEqual(n, f["nsys_launch_pairs"])
            self.assertEqual(n, f["ops"])  # every op of the workload has its call
            want = {(k, i): c["rowid"] for (k, i), c in self.raw[db].launches().items()}
            got = {(k, i): a for k, i, a in self.q(
                "SELECT o.kind, o.op_id, a.api_id FROM rocpd_ops o JOIN rocpd_apis a "
                "ON a.db = o.db AND a.correlation_id = o.correlation_id WHERE o.db = ?", (db,))}
            self.assertEqual(got, want)
            self.assertEqual(self.q("SELECT count(*) - count(DISTINCT correlation_id) FROM rocpd_apis "
                                    "WHERE db = ? AND correlation_id IS NOT NULL", (db,)), [(0,)])

    def test_kernels_and_copies_against_truth(self):
        for db, f in self.files():
            k = f["nsys_kernels"]
            self.assertEqual(self.q("SELECT sum(grid_x), sum(grid_y), sum(grid_z), sum(workgroup_x), sum(workgroup_y), "
                                    "sum(workgroup_z), sum(lds_bytes), sum(scratch_bytes), sum(vgpr), "
                                    "count(graph_id), count(*) FROM rocpd_kernels WHERE db = ?", (db,))[0],
                             (k["grid_x"], k["grid_y"], k["grid_z"], k["workgroup_x"], k["workgroup_y"],
                              k["workgroup_z"], k["lds_bytes"], k["scratch_bytes"], k["vgpr"], k["graph_kernels"],
                              f["kernels"]))
            got = self.q("SELECT name, src_gpu, dst_gpu, count(*), sum(bytes) FROM rocpd_copies WHERE db = ? "
                         "GROUP BY 1, 2, 3", (db,))
            want = [(c["name"], c["src_gpu"], c["dst_gpu"], c["count"], c["bytes"]) for c in f["nsys_copies"]]
            self.assertEqual(sorted(got, key=repr), sorted(want, key=repr))

    def test_raw_tables_agree(self):
        for db, f in self.files():
            raw = self.raw[db]
            got = {(k, i): (n, g, s, p, a, b) for k, i, n, g, s, p, a, b in self.q(
                "SELECT kind, op_id, name, gpu, stream, pid, start, \"end\" FROM rocpd_ops WHERE db = ?", (db,))}
            self.assertEqual(got, {(o["kind"], o["rowid"]): (o["name"], o["gpu"], o["stream"], o["pid"], o["start"],
                                                            o["end"]) for o in raw.ops})
            calls = {i: (p, t, n, s, e) for i, p, t, n, s, e in self.q(
                "SELECT api_id, pid, tid, name, start, \"end\" FROM rocpd_apis WHERE db = ? AND domain IN ('cuda', 'cuda_driver')",
                (db,))}
            self.assertEqual(calls, {c["rowid"]: (c["pid"], c["tid"], c["name"], c["start"], c["end"])
                                     for c in raw.calls})

    def test_kernel_summary_against_definition(self):
        rows = self.q("SELECT name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns "
                      "FROM rocpd_kernel_summary_full")
        # Job-wide: the kernels of both files pooled per name.
        pooled = Raw.__new__(Raw)
        pooled.ops = [o for r in self.raw.values() for o in r.ops]
        want = kern_sum(pooled, by="name")
        self.assertEqual(len(rows), len(want))
        for name, total, n, avg, med, mn, mx, sd in rows:
            w = want[name]
            self.assertEqual((total, n, med, mn, mx), (w["total"], w["instances"], w["med"], w["min"], w["max"]))
            self.assertAlmostEqual(avg, w["avg"], delta=0.05 + 1e-9)
            if n > 1:
                self.assertAlmostEqual(sd, w["stddev"], delta=0.05 + 1e-9)

    def test_gaps_against_raw(self):
        for db, f in self.files():
            for g in sorted({o["gpu"] for o in self.raw[db].ops}):
                u = union([(o["start"], o["end"]) for o in self.raw[db].ops if o["gpu"] == g])
                want = [(a[1], b[0]) for a, b in zip(u, u[1:])]
                got = self.q("SELECT start, \"end\" FROM rocpd_gaps WHERE db = ? AND gpu = ? ORDER BY start", (db, g))
                self.assertEqual(got, want)

    def test_utilization_against_raw(self):
        f = self.truth["files"][0]
        db = f["db"]
        lo, hi, n = f["first_ns"], f["last_ns"], 17
        rows = self.q("SELECT gpu, bucket, bucket_start, bucket_end, busy_ns FROM rocpd_utilization "
                      "WHERE lo = ? AND hi = ? AND buckets = ? AND db = ? ORDER BY gpu, bucket", (lo, hi, n, db))
        want = []
        for g in sorted({o["gpu"] for o in self.raw[db].ops}):
            u = union([(o["start"], o["end"]) for o in self.raw[db].ops if o["gpu"] == g])
            for k in range(n):
                a, b = lo + k * (hi - lo) // n, lo + (k + 1) * (hi - lo) // n
                want.append((g, k, a, b, sum(max(0, min(e, b) - max(s, a)) for s, e in u)))
        self.assertEqual(rows, want)


class GeneratorOptions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_gen_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def gen(self, out, *args):
        return subprocess.run([GEN, "--out", os.path.join(self.tmp, out), *map(str, args)], capture_output=True,
                              text=True)

    def test_memsets_errors(self):
        r = self.gen("a", "--procs", 1, "--format", "rpd2", "--ops", 10, "--seed", 1, "--memsets", 3)
        self.assertEqual((r.returncode, r.stderr.splitlines()[0]),
                         (2, "rocpd_gen: option --memsets applies to nsys files only (--format nsys or vendors)"))
        r = self.gen("b", "--procs", 1, "--format", "nsys", "--ops", 10, "--seed", 1, "--memsets", 3, "--diagnosis", 1)
        self.assertEqual((r.returncode, r.stderr.splitlines()[0]),
                         (2, "rocpd_gen: option --memsets cannot be combined with --diagnosis 1"))
        r = self.gen("c", "--procs", 1, "--format", "nsys", "--ops", 10, "--seed", 1, "--memsets", -1)
        self.assertEqual(r.returncode, 2)

    def test_nsys_schema_errors(self):
        r = self.gen("d", "--procs", 1, "--format", "rpd2", "--ops", 10, "--seed", 1, "--nsys-schema", 2022)
        self.assertEqual((r.returncode, r.stderr.splitlines()[0]),
                         (2, "rocpd_gen: option --nsys-schema applies to nsys files only (--format nsys or vendors)"))
        for bad in (2024, 2020, 2027, "x"):
            r = self.gen("e", "--procs", 1, "--format", "nsys", "--ops", 10, "--seed", 1, "--nsys-schema", bad)
            self.assertEqual(r.returncode, 2, bad)

    def test_deterministic(self):
        args = ("--procs", 2, "--format", "nsys", "--ops", 500, "--seed", 9, "--sessions", 2, "--memsets", 7)
        self.assertEqual(self.gen("x", *args).returncode, 0)
        self.assertEqual(self.gen("y", *args).returncode, 0)
        for name in ("truth.json", "rank0.sqlite", "rank1.sqlite"):
            with open(os.path.join(self.tmp, "x", name), "rb") as a, open(os.path.join(self.tmp, "y", name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)


class Generations(unittest.TestCase):
    """One export per documented schema generation, all of one workload (rocpd_gen --nsys-schema):
    each read by its own tables and columns, its kernel summary equal to cuda_gpu_kern_sum's
    definition computed on its raw tables, and every event at the same UTC in each."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_gen_")
        cls.paths = {}
        for year in GENERATIONS:
            out = os.path.join(cls.tmp, f"g{year}")
            generate(out, 1, "nsys", 300, 11, "--sessions", 2, "--memsets", 5, "--nsys-schema", year)
            cls.paths[year] = os.path.join(out, "rank0.sqlite")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def opened(self, path):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        return con

    def variant(self, year, *sql):
        path = os.path.join(self.tmp, f"v{year}_{abs(hash(sql))}.sqlite")
        shutil.copy(self.paths[year], path)
        con = sqlite3.connect(path)
        for statement in sql:
            con.execute(statement)
        con.commit()
        con.close()
        return path

    def summary(self, con):
        return con.execute("SELECT name, time_pct, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns "
                           "FROM rocpd_kernel_summary_full").fetchall()

    def test_kernel_summary_equals_cuda_gpu_kern_sum(self):
        for year, version in GENERATIONS.items():
            with self.subTest(year=year):
                con = self.opened(self.paths[year])
                self.assertEqual(con.execute("SELECT format, version FROM rocpd_members").fetchall(),
                                 [("nsys", version)])
                check_kern_sum(self, self.summary(con), raw_kern_sum(self.paths[year]))

    def test_kernel_names_by_the_columns_present(self):
        # Before mangled names were recorded (NVIDIA: "a recent addition"), kernels are named by
        # their demangled name; with neither, by the base name (shortName): cuda_gpu_kern_sum's
        # default and ':base' definitions.
        for drop in (("mangledName",), ("mangledName", "demangledName")):
            with self.subTest(dropped=drop):
                path = self.variant(2022, *[f"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN {c}" for c in drop])
                con = self.opened(path)
                check_kern_sum(self, self.summary(con), raw_kern_sum(path))
                self.assertIn("lacks mangledName", con.execute("SELECT notes FROM rocpd_members").fetchone()[0])

    def test_counts_equal_raw_tables(self):
        for year in GENERATIONS:
            with self.subTest(year=year):
                raw = sqlite3.connect(self.paths[year])
                want_ops = dict(raw.execute(
                    "SELECT 'kernel', count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
                    "SELECT 'copy', count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
                    "SELECT 'fill', count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchall())
                want_apis = dict(raw.execute(
                    "SELECT CASE eventClass WHEN 0 THEN 'cuda' ELSE 'cuda_driver' END, count(*) "
                    "FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1 UNION ALL "
                    "SELECT 'cuda_sync', count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION UNION ALL "
                    "SELECT 'marker', count(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60)").fetchall())
                raw.close()
                con = self.opened(self.paths[year])
                self.assertEqual(dict(con.execute("SELECT kind, count(*) FROM rocpd_ops GROUP BY 1")), want_ops)
                self.assertEqual(dict(con.execute("SELECT domain, count(*) FROM rocpd_apis GROUP BY 1")), want_apis)

    def test_copies_equal_raw_tables(self):
        # CUPTI's copy kinds (1 HtoD, 2 DtoH, 8 DtoD); a peer copy's ends from srcDeviceId/dstDeviceId.
        for year in GENERATIONS:
            with self.subTest(year=year):
                raw = sqlite3.connect(self.paths[year])
                want = raw.execute(
                    "SELECT CASE copyKind WHEN 1 THEN 'CopyHostToDevice' WHEN 2 THEN 'CopyDeviceToHost' "
                    "ELSE 'CopyDeviceToDevice' END, CASE copyKind WHEN 1 THEN NULL ELSE coalesce(srcDeviceId, deviceId) "
                    "END, CASE copyKind WHEN 2 THEN NULL ELSE coalesce(dstDeviceId, deviceId) END, count(*), sum(bytes) "
                    "FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1, 2, 3").fetchall()
                raw.close()
                con = self.opened(self.paths[year])
                got = con.execute("SELECT name, src_gpu, dst_gpu, count(*), sum(bytes) FROM rocpd_copies "
                                  "GROUP BY 1, 2, 3").fetchall()
                self.assertEqual(sorted(got, key=repr), sorted(want, key=repr))
                self.assertEqual({r[0] for r in want}, {"CopyHostToDevice", "CopyDeviceToHost", "CopyDeviceToDevice"})

    def test_notes_and_utc(self):
        firsts = {}
        for year in GENERATIONS:
            with self.subTest(year=year):
                raw = sqlite3.connect(self.paths[year])
                columns = {r[1] for r in raw.execute("PRAGMA table_info(TARGET_INFO_SESSION_START_TIME)")}
                clock = "systemClockNs" if "systemClockNs" in columns else "0"
                anchor = raw.execute(f"SELECT utcEpochNs - {clock} FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
                first = raw.execute("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
                raw.close()
                con = self.opened(self.paths[year])
                notes, got_anchor, gpus, rank = con.execute(
                    "SELECT notes, utc_anchor_ns, gpu_names, rank FROM rocpd_members").fetchone()
                self.assertEqual(got_anchor, anchor)
                self.assertEqual(json.loads(gpus), {str(g): "NVIDIA H100 80GB HBM3" for g in range(4)})
                self.assertEqual(rank, 0)  # rank0.sqlite
                older = year < 2026
                self.assertEqual("CUPTI_ACTIVITY_KIND_KERNEL lacks graphId" in notes, older)
                self.assertEqual("TARGET_INFO_SESSION_START_TIME lacks systemClockNs" in notes, older)
                # 2021.5: no mangled names (kernels named by demangledName), no schema version.
                self.assertEqual("CUPTI_ACTIVITY_KIND_KERNEL lacks mangledName" in notes, year == 2021)
                self.assertEqual("no EXPORT_SCHEMA_VERSION" in notes, year == 2021)
                firsts[year] = con.execute("SELECT min(start) FROM rocpd_ops WHERE kind = 'kernel'").fetchone()[0]
                self.assertEqual(firsts[year], first)
                firsts[year] += anchor
        # One workload: its first kernel at one UTC in every generation (older ones count from the
        # session start, 2026's from the host's clock).
        self.assertEqual(len(set(firsts.values())), 1, firsts)

    def test_align_utc(self):
        con = connect()
        for year in GENERATIONS:
            con.execute("SELECT rocpd_open(?)", (self.paths[year],))
        self.assertEqual(con.execute("SELECT rocpd_align('utc')").fetchone()[0], len(GENERATIONS))
        anchors = con.execute("SELECT clock_offset, utc_anchor_ns FROM rocpd_members").fetchall()
        ref = anchors[0][1]
        self.assertEqual([o for o, a in anchors], [a - ref for o, a in anchors])
        self.assertEqual(con.execute("SELECT count(DISTINCT first_ns), count(DISTINCT s) FROM (SELECT db, first_ns, "
                                     "(SELECT min(start) FROM rocpd_ops o WHERE o.db = m.db) AS s FROM rocpd_members m)"
                                     ).fetchone(), (1, 1))
        with self.assertRaisesRegex(sqlite3.Error, r"rocpd_align\('utc'\) takes no other argument"):
            con.execute("SELECT rocpd_align('utc', 1)")
        # Members that record no UTC (rpd) are not moved; none at all is an error.
        rpd = os.path.join(self.tmp, "rpd")
        generate(rpd, 1, "rpd2", 20, 1)
        other = connect()
        other.execute("SELECT rocpd_open(?)", (rpd,))
        with self.assertRaisesRegex(sqlite3.Error, r"rocpd_align\('utc'\): no member has a recorded UTC"):
            other.execute("SELECT rocpd_align('utc')")
        other.execute("SELECT rocpd_open(?)", (self.paths[2022],))
        self.assertEqual(other.execute("SELECT rocpd_align('utc')").fetchone()[0], 1)

    def test_real_exports(self):
        """Real exports named in ROCPD_NSYS_REAL_EXPORTS (paths separated by ':'; public files read
        where they lie, never committed): the same kernel-summary check."""
        paths = [p for p in os.environ.get("ROCPD_NSYS_REAL_EXPORTS", "").split(":") if p]
        if not paths:
            self.skipTest("ROCPD_NSYS_REAL_EXPORTS is not set")
        for path in paths:
            with self.subTest(path=path):
                con = self.opened(path)
                version = con.execute("SELECT version FROM rocpd_members").fetchone()[0]
                check_kern_sum(self, self.summary(con), raw_kern_sum(path))
                print(f"real export {path}: schema {version}, "
                      f"{con.execute('SELECT count(*) FROM rocpd_kernel_summary_full').fetchone()[0]} kernel names "
                      f"checked", file=sys.stderr)


if __name__ == "__main__":
    main()
