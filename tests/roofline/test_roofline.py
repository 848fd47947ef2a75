"""rocpd_kernel_roofline (docs/roofline.md) on traces whose FLOPs and bytes are known by construction:
a hand-written Kineto trace with CUPTI counters (an H100 and a device no table knows) and a generated
rocprofv3 file whose counters are renamed and planted with AMD counter names (MI300X); every column
against a computation in this file from the planted values and the datasheet figures written out
here. Analytic GEMM FLOPs (rocpd_gemm_roofline) from shapes on a hand-written trace: 2MNK. Then the real counters trace of ../shared/data: FLOPs per operator equal HTA's formula applied
to the raw JSON, its device matched."""
import glob
import gzip
import json
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
sys.path.insert(0, os.path.join(HERE, "..", "formats"))
from rocpd_testlib import GEN, SHARED_DATA, connect, main  # noqa: E402

COLUMNS = ["db", "op_id", "gpu", "kernel", "device_name", "device", "duration", "flops", "bytes", "intensity",
           "flop_s", "bytes_s", "peak", "peak_flop_s", "mem_bytes_s", "roof_flop_s", "pct_of_roof", "bound",
           "source", "device_origin", "device_source", "warning", "top_level", "bottom_level"]
SASS = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"
# Datasheet figures (TFLOP/s, TB/s) the built-in table must hold for the devices used here.
H100_SXM = {"fp32_vector": 67, "fp16_vector": 133.8, "fp64_vector": 34, "mem": 3.35}
MI300X = {"fp32_vector": 163.4, "bf16_matrix": 1307.4, "fp64_vector": 81.7, "mem": 5.3}
A100_40 = {"fp32_vector": 19.5, "fp16_vector": 78, "mem": 1.555}


def expected_row(flops, bytes_, duration, peaks, peak):
    """The roofline columns from first principles: FLOP per byte, per-second rates over the duration
    (ns), the roof min(peak, intensity x bandwidth)."""
    out = {"flops": flops, "bytes": bytes_, "duration": duration, "peak": peak}
    out["intensity"] = flops / bytes_ if bytes_ else None
    out["flop_s"] = flops / (duration * 1e-9)
    out["bytes_s"] = bytes_ / (duration * 1e-9)
    if peaks is None or peak is None:
        return out
    p, bw = peaks[peak] * 1e12, peaks["mem"] * 1e12
    out["peak_flop_s"], out["mem_bytes_s"] = p, bw
    out["roof_flop_s"] = min(p, out["intensity"] * bw)
    out["pct_of_roof"] = 100 * out["flop_s"] / out["roof_flop_s"]
    out["bound"] = "memory" if out["intensity"] * bw < p else "compute"
    return out


def rows(con, where="1", args=()):
    cur = con.execute(f"SELECT {', '.join(COLUMNS)} FROM rocpd_kernel_roofline WHERE {where} ORDER BY db, op_id", args)
    return [dict(zip(COLUMNS, r)) for r in cur]


class Close(unittest.TestCase):
    def assert_row(self, got, want):
        for k, v in want.items():
            if isinstance(v, float) and got[k] is not None:
                self.assertTrue(math.isclose(got[k], v, rel_tol=1e-12), f"{k}: {got[k]} != {v}")
            else:
                self.assertEqual(got[k], v, k)


def kineto_trace(path):
    """Three kernels with CUPTI counters: two on an H100 SXM (one fp32 and memory bound, one fp16 and
    compute bound), one on a device no table knows; each launched inside an operator."""
    kernels = [  # (device, kernel dur us, counters)
        (0, 2.0, {SASS.format("ffma"): 1000, SASS.format("fadd"): 200, SASS.format("fmul"): 100,
                  "dram__bytes_read.sum": 4000, "dram__bytes_write.sum": 1000}),
        (0, 4.0, {SASS.format("hfma"): 10**6, SASS.format("dfma"): 10, "dram__bytes_read.sum": 100,
                  "dram__bytes_write.sum": 0}),
        (1, 1.0, {SASS.format("ffma"): 5, "dram__bytes_read.sum": 10, "my__custom_flop.sum": 7}),
    ]
    ev = []
    t = 100
    for i, (dev, dur, counters) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cpu_op", "name": f"aten::op{i}", "pid": 42, "tid": 43, "ts": t, "dur": 10,
                   "args": {"External id": i + 1}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 42, "tid": 43, "ts": t + 1,
                   "dur": 2, "args": {"correlation": i + 1, "External id": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"kern{i}", "pid": dev, "tid": 7, "ts": t + 5, "dur": dur,
                   "args": {"device": dev, "stream": 7, "correlation": i + 1}})
        ev.append({"ph": "X", "cat": "cuda_profiler_range", "name": f"kern{i}", "pid": 0, "tid": 0,
                   "ts": 10000 + 1000 * i, "dur": 500, "args": counters})
        t += 20
    trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"},
                                                      {"id": 1, "name": "NVIDIA Mystery X1"}],
             "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(trace, f)
    return kernels


class NvidiaHandmade(Close):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        path = os.path.join(cls.dir, "nv.json")
        cls.kernels = kineto_trace(path)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (path,))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def expected(self, i, peaks):
        dev, dur, c = self.kernels[i]
        weights = {"ffma": 2, "fadd": 1, "fmul": 1, "hfma": 2, "dfma": 2}
        per_type = defaultdict(int)
        for op, w in weights.items():
            per_type[{"f": "fp32_vector", "h": "fp16_vector", "d": "fp64_vector"}[op[0]]] += c.get(SASS.format(op), 0) * w
        flops = sum(per_type.values())
        bytes_ = c["dram__bytes_read.sum"] + c.get("dram__bytes_write.sum", 0)
        peak = max(per_type, key=lambda k: (per_type[k], k == min(per_type)))
        return expected_row(flops, bytes_, int(dur * 1000), peaks, peak)

    def test_every_column(self):
        got = rows(self.con)
        self.assertEqual(len(got), 3)
        self.assert_row(got[0], {**self.expected(0, H100_SXM), "bound": "memory", "device": "NVIDIA H100 SXM",
                                 "device_name": "NVIDIA H100 80GB HBM3", "gpu": 0, "kernel": "kern0",
                                 "source": "counters: NVIDIA", "device_origin": "builtin", "warning": None,
                                 "top_level": "aten::op0", "bottom_level": "aten::op0"})
        self.assertIn("H100", got[0]["device_source"])
        self.assert_row(got[1], {**self.expected(1, H100_SXM), "bound": "compute", "peak": "fp16_vector",
                                 "warning": None, "bottom_level": "aten::op1"})
        # The unknown device: measured columns, no roof, a warning that says how to add it.
        self.assert_row(got[2], {**self.expected(2, None), "device": None, "peak_flop_s": None, "roof_flop_s": None,
                                 "pct_of_roof": None, "bound": None, "device_name": "NVIDIA Mystery X1"})
        self.assertIn("no peaks for device 'NVIDIA Mystery X1'", got[2]["warning"])
        self.assertIn("rocpd_user_device_peaks", got[2]["warning"])

    def test_user_rows_take_precedence(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(self.dir, "nv.json"),))
        con.execute("INSERT INTO temp.rocpd_user_device_peaks(device, match, fp32_vector, mem_tb_s, source) "
                    "VALUES ('Mystery X1', '[\"*mystery x1*\"]', 2.0, 0.5, 'measured by me')")
        con.execute("INSERT INTO temp.rocpd_user_counter_formulas(counter, flops, peak) "
                    "VALUES ('my__custom_flop.sum', 3, 'fp32_vector')")
        got = rows(con, "gpu = 1")[0]
        flops = 5 * 2 + 7 * 3
        self.assert_row(got, {**expected_row(flops, 10, 1000, {"fp32_vector": 2.0, "mem": 0.5}, "fp32_vector"),
                              "device": "Mystery X1", "device_origin": "user", "device_source": "measured by me",
                              "warning": None, "bound": "memory"})
        self.assertEqual(sorted(got["source"].removeprefix("counters: ").split(",")), ["NVIDIA", "user"])
        # Rows that could not work are refused when inserted.
        with self.assertRaisesRegex(sqlite3.IntegrityError, "json_valid"):
            con.execute("INSERT INTO temp.rocpd_user_device_peaks(device, match) VALUES ('x', '*x*')")
        with self.assertRaisesRegex(sqlite3.IntegrityError, "peak"):
            con.execute("INSERT INTO temp.rocpd_user_counter_formulas(counter, flops, peak) VALUES ('c', 1, 'fp32')")
        # A user row named like a built-in one replaces it.
        con.execute("INSERT INTO temp.rocpd_user_device_peaks(device, match, fp32_vector, fp16_vector, mem_tb_s) "
                    "VALUES ('NVIDIA H100 SXM', '[\"*h100*\"]', 50, 100, 3)")
        got = rows(con, "gpu = 0")
        self.assert_row(got[0], {**self.expected(0, {"fp32_vector": 50, "mem": 3}), "device_origin": "user"})
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_device_peaks WHERE device = 'NVIDIA H100 SXM'")
                         .fetchone()[0], 1)

    def test_by_kernel(self):
        got = self.con.execute("SELECT kernel, instances, flops, bytes, pct_of_roof, bound FROM "
                               "rocpd_kernel_roofline_by_kernel WHERE kernel = 'kern0'").fetchall()
        e = self.expected(0, H100_SXM)
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][:4], ("kern0", 1, e["flops"], e["bytes"]))
        self.assertTrue(math.isclose(got[0][4], e["pct_of_roof"], rel_tol=1e-12))
        self.assertEqual(got[0][5], "memory")


AMD_PLANT = {  # counter -> value per dispatch, as a function of the dispatch id
    "SQ_INSTS_VALU_FMA_F32": lambda d: 10 * d,
    "SQ_INSTS_VALU_ADD_F32": lambda d: 3,
    "SQ_INSTS_VALU_TRANS_F32": lambda d: 1,
    "SQ_INSTS_VALU_MFMA_MOPS_BF16": lambda d: 4 * d if d % 2 else 0,
    "TCC_EA0_RDREQ": lambda d: 100 + d,
    "TCC_EA0_RDREQ_32B": lambda d: 20,
    "TCC_EA0_WRREQ": lambda d: 50,
    "TCC_EA0_WRREQ_64B": lambda d: 10,
    "TCC_BUBBLE": lambda d: 5 + d % 7,  # 128-byte reads (MI300), part of TCC_EA0_RDREQ
}


def hbm_bytes(v, mi300=True):
    """rocprof-compute's HBM bytes (src/utils/roofline_calc.py, calc_ai): MI200 without TCC_BUBBLE, MI300
    with it, as written upstream (not as one weight per counter)."""
    r, r32, w, w64 = (v[k] for k in ("TCC_EA0_RDREQ", "TCC_EA0_RDREQ_32B", "TCC_EA0_WRREQ", "TCC_EA0_WRREQ_64B"))
    if not mi300:
        return r32 * 32 + (r - r32) * 64 + w64 * 64 + (w - w64) * 32
    b = v["TCC_BUBBLE"]
    return b * 128 + r32 * 32 + (r - b - r32) * 64 + (w - w64) * 32 + w64 * 64


def amd_file(directory, mi200=False):
    """A generated rocprofv3 file (MI300X agents) with the counters of AMD_PLANT added per dispatch,
    the value split over two dimension rows as rocprofv3 stores per-XCC values; GPU 1 renamed to a
    product no table knows. Returns the file and {dispatch id: (duration ns, gpu)}."""
    out = os.path.join(directory, "gen")
    import subprocess
    subprocess.run([GEN, "--out", out, "--procs", "1", "--format", "rocpd", "--ops", "40", "--seed", "5",
                    "--gpus", "2", "--counters", "1"], check=True, stdout=subprocess.DEVNULL)
    path = [p for p in glob.glob(os.path.join(out, "*")) if not p.endswith(".json")][0]
    db = sqlite3.connect(path)
    suffix = db.execute("SELECT substr(name, length('rocpd_info_pmc') + 1) FROM sqlite_master "
                        "WHERE name LIKE 'rocpd_info_pmc_%' AND type = 'table'").fetchone()[0]
    dispatches = {d: (e - s, g, ev) for d, s, e, g, ev in db.execute(
        f"SELECT k.id, k.start, k.\"end\", a.type_index, k.event_id FROM rocpd_kernel_dispatch{suffix} AS k "
        f"JOIN rocpd_info_agent{suffix} AS a ON a.id = k.agent_id")}
    agent = db.execute(f"SELECT id FROM rocpd_info_agent{suffix} WHERE type = 'GPU' ORDER BY type_index").fetchone()[0]
    for i, name in enumerate(AMD_PLANT):
        pmc = 500 + i
        db.execute(f"INSERT INTO rocpd_info_pmc{suffix}(id, nid, pid, agent_id, target_arch, event_code, instance_id, "
                   f"name, symbol, description, component, value_type, block, expression, is_constant, is_derived) "
                   f"SELECT ?, nid, pid, ?, 'GPU', 0, 0, ?, ?, '', 'rocm', 'ABS', 'SQ', '', 0, 0 "
                   f"FROM rocpd_info_agent{suffix} WHERE id = ?", (pmc, agent, name, name, agent))
        for d, (_, _, ev) in dispatches.items():
            v = AMD_PLANT[name](d)
            db.executemany(f"INSERT INTO rocpd_pmc_event{suffix}(event_id, pmc_id, value) VALUES (?, ?, ?)",
                           [(ev, pmc, v - v // 2), (ev, pmc, v // 2)])
    db.execute(f"UPDATE rocpd_info_agent{suffix} SET product_name = 'AMD Mystery Accelerator' "
               f"WHERE type = 'GPU' AND type_index = 1")
    if mi200:  # GPU 0 one die of an MI250X, as ROCm names and describes it
        db.execute(f"UPDATE rocpd_info_agent{suffix} SET product_name = 'AMD Instinct MI250X / MI250', name = 'gfx90a', "
                   f"extdata = '{{\"cu_count\": 110, \"wave_front_size\": 64}}' WHERE type = 'GPU' AND type_index = 0")
    db.commit()
    db.close()
    return path, {d: (dur, g) for d, (dur, g, _) in dispatches.items()}


class AmdPlanted(Close):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.path, cls.dispatches = amd_file(cls.dir)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.path,))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_every_column(self):
        got = {r["op_id"]: r for r in rows(self.con)}
        self.assertEqual(set(got), set(self.dispatches))
        for d, (dur, gpu) in self.dispatches.items():
            v = {k: f(d) for k, f in AMD_PLANT.items()}
            fp32 = 64 * (2 * v["SQ_INSTS_VALU_FMA_F32"] + v["SQ_INSTS_VALU_ADD_F32"] + v["SQ_INSTS_VALU_TRANS_F32"])
            bf16 = 512 * v["SQ_INSTS_VALU_MFMA_MOPS_BF16"]
            hbm = hbm_bytes(v)
            peak = "bf16_matrix" if bf16 > fp32 else "fp32_vector"
            if gpu == 0:
                want = {**expected_row(fp32 + bf16, hbm, dur, MI300X, peak), "device": "AMD Instinct MI300X",
                        "device_name": "AMD Instinct MI300X", "source": "counters: AMD", "warning": None}
            else:
                want = {**expected_row(fp32 + bf16, hbm, dur, None, peak), "device": None, "roof_flop_s": None,
                        "device_name": "AMD Mystery Accelerator"}
                self.assertIn("no peaks for device 'AMD Mystery Accelerator'", got[d]["warning"])
            self.assert_row(got[d], want)
        self.assertEqual({r["gpu"] for r in got.values()}, {0, 1})
        self.assertEqual({r["peak"] for r in got.values() if r["gpu"] == 0}, {"bf16_matrix", "fp32_vector"})


MI250X_GCD = {"fp32_vector": 23.95, "bf16_matrix": 191.5, "mem": 1.6}


class AmdMi200(Close):
    """TCC_BUBBLE is left out on an MI200-class device (rocprof-compute's MI200 formula has none) and
    counted on the other GPU of the same file."""

    def test_bubble_by_device(self):
        d = tempfile.mkdtemp()
        try:
            path, dispatches = amd_file(d, mi200=True)
            con = connect()
            con.execute("SELECT rocpd_open(?)", (path,))
            got = {r["op_id"]: r for r in rows(con)}
            self.assertEqual(set(got), set(dispatches))
            for op, (dur, gpu) in dispatches.items():
                v = {k: f(op) for k, f in AMD_PLANT.items()}
                self.assertEqual(got[op]["bytes"], hbm_bytes(v, mi300=gpu != 0), op)
                if gpu == 0:
                    self.assertEqual(got[op]["device"], "AMD Instinct MI250X (one GCD)")
                    fp32 = 64 * (2 * v["SQ_INSTS_VALU_FMA_F32"] + v["SQ_INSTS_VALU_ADD_F32"] + v["SQ_INSTS_VALU_TRANS_F32"])
                    bf16 = 512 * v["SQ_INSTS_VALU_MFMA_MOPS_BF16"]
                    peak = "bf16_matrix" if bf16 > fp32 else "fp32_vector"
                    self.assert_row(got[op], expected_row(fp32 + bf16, hbm_bytes(v, mi300=False), dur, MI250X_GCD, peak))
            self.assertEqual({r["gpu"] for r in got.values()}, {0, 1})
        finally:
            shutil.rmtree(d)


class DbFilter(Close):
    """`db = x` on rocpd_kernel_roofline reaches the counters table (its plan hands the member's name to
    rocpd_op_counters, which then reads that member only), and gives that member's rows of the whole."""

    def test_db_pushed_down(self):
        d = tempfile.mkdtemp()
        try:
            path, _ = amd_file(d)
            nv = os.path.join(d, "nv.json")
            kineto_trace(nv)
            con = connect()
            con.execute("SELECT rocpd_open(?)", (path,))
            con.execute("SELECT rocpd_open(?)", (nv,))
            whole = rows(con)
            dbs = sorted({r["db"] for r in whole})
            self.assertEqual(len(dbs), 2)
            for db in dbs + ["nope"]:
                self.assertEqual(rows(con, "db = ?", (db,)), [r for r in whole if r["db"] == db], db)
                plan = [r[3] for r in con.execute("EXPLAIN QUERY PLAN SELECT * FROM rocpd_kernel_roofline WHERE db = ?",
                                                  (db,))]
                scans = [p for p in plan if "rocpd_op_counters" in p]
                self.assertEqual(len(scans), 1, plan)
                self.assertRegex(scans[0], r"VIRTUAL TABLE INDEX \d+:\w*D", plan)
            plan = [r[3] for r in con.execute("EXPLAIN QUERY PLAN SELECT * FROM rocpd_kernel_roofline")]
            self.assertNotRegex(" ".join(p for p in plan if "rocpd_op_counters" in p), r"INDEX \d+:\w*D")
        finally:
            shutil.rmtree(d)


GEMMS = [  # operator, Input Dims, Input type, kernel durations (us), (batch, M, N, K), element size, peak
    ("aten::mm", [[64, 128], [128, 32]], ["float", "float"], [10.0], (1, 64, 32, 128), 4, "fp32_vector"),
    ("aten::bmm", [[4, 16, 8], [4, 8, 2]], ["c10::Half", "c10::Half"], [3.0], (4, 16, 2, 8), 2, "fp16_matrix"),
    ("aten::addmm", [[32], [64, 128], [128, 32]], ["c10::BFloat16"] * 3, [4.0, 1.0], (1, 64, 32, 128), 2, "bf16_matrix"),
]
H100_MATRIX = {"fp32_vector": 67, "fp16_matrix": 989.5, "bf16_matrix": 989.5, "mem": 3.35}


class GemmShapes(Close):
    """Analytic FLOPs of GEMM operators from their recorded shapes: 2MNK (x batch), bytes
    (MK + KN + MN) x element size, over the kernels each operator launched."""

    def test_2mnk(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        ev, t, corr = [], 100, 0
        for i, (op, dims, types, durs, _, _, _) in enumerate(GEMMS):
            ev.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t, "dur": 40,
                       "args": {"External id": 100 + i, "Input Dims": dims, "Input type": types}})
            for d in durs:
                corr += 1
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                           "ts": t + corr, "dur": 1, "args": {"correlation": corr, "External id": 100 + i}})
                ev.append({"ph": "X", "cat": "kernel", "name": f"gemm{corr}", "pid": 0, "tid": 7, "ts": t + 20 + corr * 5,
                           "dur": d, "args": {"device": 0, "stream": 7, "correlation": corr}})
            t += 100
        path = os.path.join(tmp, "gemm.json")
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                       "traceEvents": ev}, f)
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        cols = ["operator", "batch", "m", "n", "k", "kernels", "duration", "flops", "bytes", "intensity", "flop_s",
                "peak", "peak_flop_s", "mem_bytes_s", "roof_flop_s", "pct_of_roof", "bound", "roofline_ns", "device",
                "warning"]
        got = [dict(zip(cols, r)) for r in con.execute(f"SELECT {', '.join(cols)} FROM rocpd_gemm_roofline ORDER BY api_id")]
        self.assertEqual(len(got), len(GEMMS))
        for g, (op, _, _, durs, (b, m, n, k), elem, peak) in zip(got, GEMMS):
            flops = 2 * b * m * n * k
            nbytes = b * (m * k + k * n + m * n) * elem
            duration = int(sum(durs) * 1000)
            want = {**expected_row(flops, nbytes, duration, H100_MATRIX, peak), "operator": op, "batch": b, "m": m,
                    "n": n, "k": k, "kernels": len(durs), "device": "NVIDIA H100 SXM", "warning": None,
                    "roofline_ns": max(flops / (H100_MATRIX[peak] * 1e12), nbytes / (H100_MATRIX["mem"] * 1e12)) * 1e9}
            want.pop("bytes_s")
            self.assert_row(g, want)


@unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_counters.json.gz")),
                     "../shared/data/kineto_counters.json.gz is absent")
class RealCounters(unittest.TestCase):
    def test_flops_per_operator_as_hta(self):
        from kineto_brute import Trace, hta_parents, hta_stack
        path = os.path.join(SHARED_DATA, "kineto_counters.json.gz")
        trace = Trace(path)
        parents = hta_parents(trace)
        # HTA (cupti_counter_analysis): FLOPs = the SASS fp instruction counters, an FMA twice.
        want = defaultdict(int)
        for (_, _, r), launch in zip(trace.profiler_ranges(), trace.kernel_launch_calls()):
            stack = hta_stack(trace, parents, launch["index"], ("cpu_op",))
            want[stack[-1]] += sum(int(v) * (2 if "fma" in k else 1) for k, v in r["args"].items()
                                   if k.startswith("smsp__sass_thread_inst_executed_op_"))
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        got = dict(con.execute("SELECT bottom_level, sum(flops) FROM rocpd_kernel_roofline GROUP BY bottom_level"))
        self.assertEqual(got, dict(want))
        with gzip.open(path) as f:
            names = {d["name"] for d in json.load(f)["deviceProperties"]}
        self.assertEqual(names, {"NVIDIA A100-PG509-200"})
        # docs/roofline.md shows the top three operators by FLOPs (its example is not run: the trace is
        # not in the repository): its rows are these.
        with open(os.path.join(HERE, "..", "..", "docs", "roofline.md"), encoding="utf-8") as f:
            doc = f.read()
        shown = doc[doc.index("FROM rocpd_kernel_roofline GROUP BY bottom_level ORDER BY flops DESC LIMIT 3;"):]
        shown = shown[:shown.index("## ")]
        cells = [[c.strip() for c in line.strip("│").split("│")] for line in shown.splitlines()
                 if line.startswith("│") and "aten::" in line]
        top = sorted(want.items(), key=lambda kv: -kv[1])[:3]
        self.assertEqual(cells, [[b, str(sum(1 for (_, _, r), launch in zip(trace.profiler_ranges(),
                                                                            trace.kernel_launch_calls())
                                             if hta_stack(trace, parents, launch["index"], ("cpu_op",))[-1] == b)),
                                  str(f), "NVIDIA A100 40GB", "no byte counters: no intensity, no roof"]
                                 for b, f in top])
        devices = set(con.execute("SELECT device_name, device, mem_bytes_s, warning FROM rocpd_kernel_roofline"))
        # No byte counters in this trace: matched to its peaks, no roof, said so.
        self.assertEqual(devices, {("NVIDIA A100-PG509-200", "NVIDIA A100 40GB", A100_40["mem"] * 1e12,
                                    "no byte counters: no intensity, no roof")})


@unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_mi250_rocm.json.gz")),
                     "../shared/data/kineto_mi250_rocm.json.gz is absent")
class RealUnnamedDevice(unittest.TestCase):
    def test_warned_not_guessed(self):
        """PyTorch on ROCm names the MI250's dies 'AMD Radeon Graphics': no row may claim them."""
        path = os.path.join(SHARED_DATA, "kineto_mi250_rocm.json.gz")
        with gzip.open(path) as f:
            names = {str(d["id"]): d["name"] for d in json.load(f)["deviceProperties"]}
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        got = {str(g): (n, d, w) for g, n, d, w in con.execute("SELECT gpu, name, device, warning FROM rocpd_gpu_devices")}
        self.assertEqual(set(got), set(names))
        for g, (n, d, w) in got.items():
            self.assertEqual((n, d), (names[g], None))
            # 104 CUs and 64 GiB fit two parts (test_device_match.py): a warning naming both.
            self.assertIn(f"device '{names[g]}' (", w)
            self.assertIn("matches several devices by its properties", w)


if __name__ == "__main__":
    main()
