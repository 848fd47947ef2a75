"""rocpd_operator_roofline (docs/roofline.md): analytic FLOPs and bytes from recorded operator shapes on a
hand-written Kineto trace (an H100 and an MI300X): convolutions (output sizes from stride, padding and
dilation), elementwise operators (broadcasting, Scalar arguments, in-place, out=, copy_) and GEMMs.
Every expected figure is computed here from the shapes written into the trace, with the datasheet
peaks written out; the GEMM rows must also equal rocpd_gemm_roofline's."""
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SHARED_DATA, connect, main  # noqa: E402

# Datasheet figures (TFLOP/s, TB/s) of the two devices; None where the built-in row has no figure.
H100 = {"fp32_vector": 67, "fp32_matrix": None, "fp64_matrix": 67, "fp16_matrix": 989.5, "fp16_vector": 133.8,
        "bf16_vector": 133.8, "mem": 3.35}
MI300X = {"bf16_matrix": 1307.4, "bf16_vector": None, "fp32_vector": 163.4, "mem": 5.3}
DEVICES = {0: ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM", H100), 1: ("AMD Instinct MI300X", "AMD Instinct MI300X", MI300X)}
SIZE = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "bool": 1, "long": 8}
VECTOR = {"float": "fp32_vector", "c10::Half": "fp16_vector", "c10::BFloat16": "bf16_vector", "double": "fp64_vector"}
MATRIX = {"float": "fp32_matrix", "c10::Half": "fp16_matrix", "c10::BFloat16": "bf16_matrix", "double": "fp64_matrix"}


def numel(shape):
    return math.prod(shape)


def broadcast(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        return None
    return [max(x, y) for x, y in zip(a, b)]


def conv(x, w, stride, padding, dilation, dtype):
    """FLOPs and bytes of a convolution: the output's spatial sizes by PyTorch's formula."""
    out = [x[0], w[0]]
    for i in range(len(x) - 2):
        if padding == "same":
            out.append(x[2 + i])
        else:
            out.append((x[2 + i] + 2 * padding[i] - dilation[i] * (w[2 + i] - 1) - 1) // stride[i] + 1)
    flops = 2 * numel(out) * numel(w[1:])
    return flops, (numel(x) + numel(w) + numel(out)) * SIZE[dtype]


# Each case: operator stack (outermost first), device, the innermost's Input Dims, Input type and
# Concrete Inputs, kernel durations (us), expected (flops, bytes) or None, source, peak column, a part
# of the expected warning.
CASES = []


def case(stack, dev, dims, types, concrete, durs, want, source, peak, warning=None):
    CASES.append(dict(stack=stack, dev=dev, dims=dims, types=types, concrete=concrete, durs=durs, want=want,
                      source=source, peak=peak, warning=warning))


# Convolutions. A conv2d nest launching from its innermost call (cudnn_convolution's arguments:
# self, weight, padding, stride, dilation, groups, ...): stride 2, padding 1.
case(["aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution"], 0,
     [[8, 3, 32, 32], [16, 3, 5, 5]], ["float", "float"], ["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1"],
     [20.0, 5.0], conv([8, 3, 32, 32], [16, 3, 5, 5], [2, 2], [1, 1], [1, 1], "float"), "shapes: conv", "fp32_vector")
# miopen_convolution (self, weight, bias, padding, stride, dilation, groups): groups 4 (weight's Cin/groups 4),
# one-value lists expanded, dilation 2, bf16 on the MI300X.
case(["aten::miopen_convolution"], 1, [[2, 16, 10, 10], [32, 4, 3, 3], [32]], ["c10::BFloat16"] * 3,
     ["", "", "", "[0]", "[1]", "[2, 2]", "4"], [7.0],
     conv([2, 16, 10, 10], [32, 4, 3, 3], [1, 1], [0, 0], [2, 2], "c10::BFloat16"), "shapes: conv", "bf16_matrix")
# conv1d with padding 'same' in half precision.
case(["aten::conv1d"], 0, [[4, 8, 100], [8, 8, 7], []], ["c10::Half", "c10::Half", ""],
     ["", "", "", "[1]", "same", "[1]", "1"], [3.0],
     conv([4, 8, 100], [8, 8, 7], [1], "same", [1], "c10::Half"), "shapes: conv", "fp16_matrix")
# conv3d in double, stride per dimension.
case(["aten::conv3d"], 0, [[1, 2, 4, 8, 8], [4, 2, 3, 3, 3], []], ["double", "double", ""],
     ["", "", "", "[1, 2, 2]", "[1, 1, 1]", "[1]", "1"], [9.0],
     conv([1, 2, 4, 8, 8], [4, 2, 3, 3, 3], [1, 2, 2], [1, 1, 1], [1, 1, 1], "double"), "shapes: conv", "fp64_matrix")
# No Concrete Inputs (PyTorch before 2.1): no estimate, said so.
case(["aten::convolution"], 0, [[1, 1, 8, 8], [1, 1, 3, 3]], ["float", "float"], None, [2.0], None,
     "shapes: conv", "fp32_vector", "no `Concrete Inputs`")
case(["aten::convolution"], 0, [[1, 1, 8, 8], [1, 1, 3, 3], []], ["float", "float", ""],
     ["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"], [2.0], None, "shapes: conv", "fp32_vector",
     "transposed convolution")


def ew(a, b, out_elem, in_elem_a, in_elem_b):
    """One FLOP per output element; bytes: the tensor operands' elements and the output's."""
    out = broadcast(a, b if b is not None else [])
    nbytes = numel(a) * in_elem_a + (numel(b) * in_elem_b if in_elem_b else 0) + numel(out) * out_elem
    return numel(out), nbytes


# Elementwise, on the H100 unless said.
case(["aten::add"], 0, [[4, 1, 8], [3, 1], []], ["float", "float", "Scalar"], ["", "", "1"], [2.0],
     ew([4, 1, 8], [3, 1], 4, 4, 4), "shapes: elementwise", "fp32_vector")
case(["aten::mul"], 0, [[1000], []], ["c10::Half", "Scalar"], ["", "3"], [1.0],
     ew([1000], None, 2, 2, 0), "shapes: elementwise", "fp16_vector")
case(["aten::add_"], 0, [[64, 64], [64], []], ["float", "float", "Scalar"], ["", "", "1"], [1.5],
     ew([64, 64], [64], 4, 4, 4), "shapes: elementwise", "fp32_vector")
# copy_(self, src): reads the float source, writes the bf16 destination.
case(["aten::to", "aten::_to_copy", "aten::copy_"], 0, [[256], [256], []], ["c10::BFloat16", "float", "Scalar"],
     ["", "", "False"], [1.0], (256, 256 * 4 + 256 * 2), "shapes: elementwise", "bf16_vector")
case(["aten::relu"], 0, [[10, 10]], ["float"], [""], [1.0], ew([10, 10], None, 4, 4, 0), "shapes: elementwise",
     "fp32_vector")
# mul with out= (a bool tensor): the output is written in its type.
case(["aten::mul"], 0, [[2048, 1], [2048, 1], [2048, 1]], ["float", "bool", "bool"], ["", "", ""], [1.0],
     ew([2048, 1], [2048, 1], 1, 4, 1), "shapes: elementwise", "fp32_vector")
# A 0-dim long tensor divisor: one element read.
case(["aten::div"], 0, [[2048], []], ["float", "long"], ["", ""], [1.0], ew([2048], [], 4, 4, 8),
     "shapes: elementwise", "fp32_vector")
case(["aten::div"], 0, [[3, 4], [5]], ["float", "float"], ["", ""], [1.0], None, "shapes: elementwise",
     "fp32_vector", "do not broadcast")
# bf16 on the MI300X, whose row has no bf16 vector figure.
case(["aten::sigmoid"], 1, [[128]], ["c10::BFloat16"], [""], [1.0], ew([128], None, 2, 2, 0),
     "shapes: elementwise", "bf16_vector", "has no figure for bf16_vector")
# GEMMs: 2MNK.
case(["aten::linear", "aten::addmm"], 0, [[32], [64, 128], [128, 32], [], []], ["float"] * 3 + ["Scalar"] * 2,
     ["", "", "", "1", "1"], [10.0, 2.0], (2 * 64 * 32 * 128, (64 * 128 + 128 * 32 + 64 * 32) * 4),
     "shapes: 2MNK", "fp32_vector")
case(["aten::bmm"], 1, [[4, 16, 8], [4, 8, 2]], ["c10::BFloat16"] * 2, ["", ""], [3.0],
     (2 * 4 * 16 * 2 * 8, 4 * (16 * 8 + 8 * 2 + 16 * 2) * 2), "shapes: 2MNK", "bf16_matrix")


def write_trace(path):
    """Each case: its operator stack nested on one thread, the launches inside the innermost (with its
    External id, as PyTorch links them), one kernel per duration on the case's device."""
    ev, t, corr = [], 1000, 0
    for n, c in enumerate(CASES):
        depth = len(c["stack"])
        for d, name in enumerate(c["stack"]):
            args = {"External id": 100 * n + d}
            if d == depth - 1:
                args.update({"Input Dims": c["dims"], "Input type": c["types"]})
                if c["concrete"] is not None:
                    args["Concrete Inputs"] = c["concrete"]
            else:  # the outer calls record their own shapes too; they launch nothing
                args.update({"Input Dims": c["dims"][:2], "Input type": c["types"][:2]})
            ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t + d, "dur": 100 - 2 * d,
                       "args": args})
        for k, dur in enumerate(c["durs"]):
            corr += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + depth + 1 + k, "dur": 1, "args": {"correlation": corr, "External id": 100 * n + depth - 1}})
            ev.append({"ph": "X", "cat": "kernel", "name": f"k{corr}", "pid": c["dev"], "tid": 7,
                       "ts": t + 50 + 20 * k, "dur": dur, "args": {"device": c["dev"], "stream": 7, "correlation": corr}})
        t += 200
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev,
                   "deviceProperties": [{"id": g, "name": name} for g, (name, _, _) in DEVICES.items()]}, f)


COLS = ["operator", "source", "dtype", "shapes", "kernels", "duration", "gpu", "device_name", "device", "flops", "bytes",
        "intensity", "flop_s", "bytes_s", "peak", "peak_flop_s", "mem_bytes_s", "roof_flop_s", "pct_of_roof", "bound",
        "roofline_ns", "warning"]


class OperatorShapes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.path = os.path.join(cls.dir, "shapes.json")
        write_trace(cls.path)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.path,))
        cur = cls.con.execute(f"SELECT {', '.join(COLS)} FROM rocpd_operator_roofline ORDER BY api_id")
        cls.rows = [dict(zip(COLS, r)) for r in cur]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def assert_close(self, got, want, what):
        if want is None or got is None:
            self.assertEqual(got, want, what)
        else:
            self.assertTrue(math.isclose(got, want, rel_tol=1e-12), f"{what}: {got} != {want}")

    def test_one_row_per_launching_call(self):
        # Only the innermost call of a nest launched: the outer ones have no row.
        self.assertEqual([r["operator"] for r in self.rows], [c["stack"][-1] for c in CASES])

    def test_every_column(self):
        for c, r in zip(CASES, self.rows):
            what = f'{c["stack"][-1]} {c["dims"]}'
            name, device, peaks = DEVICES[c["dev"]]
            duration = round(sum(c["durs"]) * 1000)
            self.assertEqual((r["source"], r["dtype"], json.loads(r["shapes"]), r["kernels"], r["duration"], r["gpu"],
                              r["device_name"], r["device"], r["peak"]),
                             (c["source"], c["types"][0], c["dims"], len(c["durs"]), duration, c["dev"], name, device,
                              c["peak"]), what)
            if c["want"] is None:
                self.assertEqual((r["flops"], r["bytes"], r["roof_flop_s"]), (None, None, None), what)
                self.assertIn(c["warning"], r["warning"], what)
                continue
            flops, nbytes = c["want"]
            self.assertEqual((r["flops"], r["bytes"]), (flops, nbytes), what)
            self.assert_close(r["intensity"], flops / nbytes, what)
            self.assert_close(r["flop_s"], flops / (duration * 1e-9), what)
            self.assert_close(r["bytes_s"], nbytes / (duration * 1e-9), what)
            peak = peaks.get(c["peak"])
            bw = peaks["mem"] * 1e12
            self.assert_close(r["mem_bytes_s"], bw, what)
            if peak is None:
                self.assertEqual((r["peak_flop_s"], r["roof_flop_s"], r["pct_of_roof"], r["bound"]), (None,) * 4, what)
                self.assertIn(c["warning"], r["warning"], what)
                continue
            p = peak * 1e12
            roof = min(p, flops / nbytes * bw)
            self.assert_close(r["peak_flop_s"], p, what)
            self.assert_close(r["roof_flop_s"], roof, what)
            self.assert_close(r["pct_of_roof"], 100 * flops / (duration * 1e-9) / roof, what)
            self.assertEqual(r["bound"], "memory" if flops / nbytes * bw < p else "compute", what)
            self.assert_close(r["roofline_ns"], max(flops / p, nbytes / bw) * 1e9, what)
            self.assertIsNone(r["warning"], what)

    def test_gemm_rows_as_rocpd_gemm_roofline(self):
        cols = ["api_id", "operator", "dtype", "kernels", "duration", "gpu", "device", "flops", "bytes", "intensity",
                "flop_s", "peak", "peak_flop_s", "mem_bytes_s", "roof_flop_s", "pct_of_roof", "bound", "roofline_ns",
                "source", "warning"]
        gemm = self.con.execute(f"SELECT {', '.join(cols)} FROM rocpd_gemm_roofline ORDER BY api_id").fetchall()
        ours = self.con.execute(f"SELECT {', '.join(cols)} FROM rocpd_operator_roofline WHERE source = 'shapes: 2MNK' "
                                "ORDER BY api_id").fetchall()
        self.assertEqual(len(gemm), 2)
        self.assertEqual(ours, gemm)


@unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_mi250_rocm.json.gz")),
                     "../shared/data/kineto_mi250_rocm.json.gz is absent")
class RealShapes(unittest.TestCase):
    """The real ROCm trace records shapes (and External ids): its GEMM rows equal rocpd_gemm_roofline's,
    its elementwise rows the shapes of the raw JSON."""

    def test_mi250(self):
        import gzip
        path = os.path.join(SHARED_DATA, "kineto_mi250_rocm.json.gz")
        with gzip.open(path) as f:
            raw = json.load(f)["traceEvents"]
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        got = con.execute("SELECT operator, shapes, flops, bytes FROM rocpd_operator_roofline "
                          "WHERE source = 'shapes: elementwise'").fetchall()
        launched = {e["args"].get("External id") for e in raw if e.get("cat") == "cuda_runtime"
                    and "Launch" in e["name"]}
        want = []
        for e in raw:
            a = e.get("args", {})
            if e.get("cat") != "cpu_op" or a.get("External id") not in launched:
                continue
            dims, types = a.get("Input Dims"), a.get("Input type")
            if e["name"] in ("aten::add_", "aten::threshold_backward"):  # in place / grad-shaped binary
                n = numel(dims[0])
                want.append((e["name"], n, numel(dims[0]) * 4 + numel(dims[1]) * 4 + n * 4))
            elif e["name"] == "aten::clamp_min":  # unary with a Scalar
                want.append((e["name"], numel(dims[0]), numel(dims[0]) * 8))
        self.assertEqual(sorted((o, f, b) for o, _, f, b in got), sorted(want))
        gemm = con.execute("SELECT api_id, flops, bytes, duration FROM rocpd_gemm_roofline ORDER BY api_id").fetchall()
        ours = con.execute("SELECT api_id, flops, bytes, duration FROM rocpd_operator_roofline "
                           "WHERE source = 'shapes: 2MNK' ORDER BY api_id").fetchall()
        self.assertEqual(len(gemm), 2)
        self.assertEqual(ours, gemm)


UNARY = {"aten::copy_", "aten::relu", "aten::relu_", "aten::gelu", "aten::gelu_", "aten::silu", "aten::silu_",
         "aten::sigmoid", "aten::sigmoid_", "aten::tanh", "aten::tanh_", "aten::neg", "aten::exp", "aten::sqrt",
         "aten::rsqrt", "aten::clamp_min", "aten::clamp_min_", "aten::clamp_max", "aten::clamp_max_"}
BINARY = {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::rsub", "aten::mul", "aten::mul_", "aten::div",
          "aten::div_", "aten::maximum", "aten::minimum", "aten::sigmoid_backward", "aten::tanh_backward",
          "aten::threshold_backward", "aten::gelu_backward", "aten::silu_backward"}
GEMM = {"aten::mm": 0, "aten::addmm": 1, "aten::bmm": 0, "aten::baddbmm": 1}
ALL_SIZES = {**SIZE, "int": 4, "long int": 8}


def estimate(name, dims, types):
    """(flops, bytes) of an operator call by the rules of docs/roofline.md, or None when not estimated."""
    if name in GEMM:
        a, b = dims[GEMM[name]], dims[GEMM[name] + 1]
        batch = a[0] if len(a) == 3 else 1
        m, k, n = a[-2], a[-1], b[-1]
        return 2 * batch * m * n * k, batch * (m * k + k * n + m * n) * ALL_SIZES[types[GEMM[name]]]
    arity = 1 if name in UNARY else 2
    a, at = (dims[1], types[1]) if name == "aten::copy_" else (dims[0], types[0])
    b, bt = (dims[1], types[1]) if arity == 2 else ([], None)
    out = broadcast(a, b)
    if out is None:
        return None
    if name != "aten::copy_" and len(dims) > arity and dims[-1] and types[-1] in ALL_SIZES:
        out_size = ALL_SIZES[types[-1]]
    elif name.endswith("_"):
        out_size = ALL_SIZES[types[0]]
    elif a and b and bt in ALL_SIZES:
        out_size = max(ALL_SIZES[at], ALL_SIZES[bt])
    else:
        out_size = ALL_SIZES[at]
    nbytes = numel(a) * ALL_SIZES[at] + (numel(b) * ALL_SIZES[bt] if bt in ALL_SIZES else 0) + numel(out) * out_size
    return numel(out), nbytes


@unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_rank0.json.gz")),
                     "../shared/data/kineto_rank0.json.gz is absent")
class RealRankTrace(unittest.TestCase):
    """kineto_rank0 records shapes, but its launches carry their correlation id as `External id`:
    kernels are attributed by nesting. Every row equals the estimate of the operator that encloses
    its launches innermost (HTA's nesting rule, tests/formats/kineto_brute.py), from the raw JSON."""

    def test_rank0(self):
        sys.path.insert(0, os.path.join(HERE, "..", "formats"))
        from kineto_brute import RANGE_CATS, Trace, hta_parents
        path = os.path.join(SHARED_DATA, "kineto_rank0.json.gz")
        trace = Trace(path)
        parents = hta_parents(trace)
        by_index = {i: (e, start, end) for i, e, start, end in trace.x}
        kernels = {o["correlation"]: o for o in trace.ops() if o["kind"] == "kernel"}
        per_op = {}
        for corr, call in trace.launches().items():
            if corr not in kernels:
                continue
            p = parents.get(call["index"])
            while p is not None and by_index[p][0].get("cat") not in RANGE_CATS:
                p = parents.get(p)
            if p is None:
                continue
            n, d = per_op.get(p, (0, 0))
            per_op[p] = (n + 1, d + kernels[corr]["end"] - kernels[corr]["start"])
        want = []
        for p, (n, d) in per_op.items():
            e = by_index[p][0]
            a = e.get("args", {})
            if e["name"] in GEMM or e["name"] in UNARY or e["name"] in BINARY:
                if isinstance(a.get("Input Dims"), list):
                    est = estimate(e["name"], a["Input Dims"], a["Input type"])
                    want.append((e["name"], n, d) + (est if est else (None, None)))
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        got = con.execute("SELECT operator, kernels, duration, CAST(flops AS INTEGER), CAST(bytes AS INTEGER) "
                          "FROM rocpd_operator_roofline").fetchall()
        self.assertGreater(len(want), 600)
        self.assertEqual(sorted(got, key=repr), sorted(want, key=repr))
        # No External id links them: rocpd_gemm_roofline has none of these rows.
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_gemm_roofline").fetchone()[0], 0)


if __name__ == "__main__":
    main()
