"""`rocpd-ext summary`'s roofline section and the html page's roofline plot (docs/cli.md,
docs/roofline.md) on a hand-written Kineto trace of an H100 SXM whose five kernels carry CUPTI
counters chosen so that each lands at a known place under the roof: the section's rows against the
roofline computed here from the planted counters and the datasheet peaks; the plot's points where
the log-log axes put them; the page rendered by headless Chromium, the roofs and points in the
screenshot (skipped without chromium). ROCPD_ROOFLINE_SHOT=path keeps the screenshot."""
import csv
import html.parser
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from collections import Counter

import png
from clitest import require, run

CHROMIUM = os.environ.get("ROCPD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SASS = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"
# H100 SXM datasheet (dense): TFLOP/s per data type, TB/s.
PEAK = {"fp32_vector": 67, "fp16_vector": 133.8, "fp64_vector": 34}
BW = 3.35
KERNELS = [  # name, duration us, {sass op: count}, bytes
    ("gemm_fp32", 1000, {"ffma": 2 * 10**10}, 2 * 10**9),
    ("elementwise_add", 300, {"fadd": 10**8}, 9 * 10**8),
    ("softmax_fp16", 200, {"hfma": 5 * 10**9}, 4 * 10**8),
    ("reduce_fp64", 100, {"dfma": 5 * 10**8}, 10**8),
    ("layernorm", 50, {"fmul": 10**8, "ffma": 10**8}, 12 * 10**7),
]


def write_trace(path):
    ev, t = [], 100
    for i, (name, dur, ops, nbytes) in enumerate(KERNELS):
        counters = {SASS.format(op): n for op, n in ops.items()}
        counters.update({"dram__bytes_read.sum": nbytes // 2, "dram__bytes_write.sum": nbytes - nbytes // 2})
        ev += [{"ph": "X", "cat": "cpu_op", "name": f"aten::{name}", "pid": 1, "tid": 1, "ts": t, "dur": 5,
                "args": {"External id": i + 1}},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1, "dur": 2,
                "args": {"correlation": i + 1, "External id": i + 1}},
               {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 10, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": i + 1}},
               {"ph": "X", "cat": "cuda_profiler_range", "name": name, "pid": 0, "tid": 0, "ts": 10**7 + 10**4 * i,
                "dur": 500, "args": counters}]
        t += dur + 50
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                   "traceEvents": ev}, f)


def expected():
    """Per kernel: (name, intensity, FLOP/s, % of roof, bound), from the planted counters."""
    out = []
    for name, dur, ops, nbytes in KERNELS:
        per = Counter()
        for op, n in ops.items():
            per[{"f": "fp32_vector", "h": "fp16_vector", "d": "fp64_vector"}[op[0]]] += n * (2 if "fma" in op else 1)
        flops = sum(per.values())
        peak = PEAK[per.most_common(1)[0][0]] * 1e12
        intensity, rate = flops / nbytes, flops / (dur * 1e-6)
        roof = min(peak, intensity * BW * 1e12)
        out.append((name, dur, intensity, rate, 100 * rate / roof, "memory" if intensity * BW * 1e12 < peak else "compute"))
    return out


class Svg(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.circles, self.roofs, self.attrs = False, [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.inside = a.get("id") == "roofline"
        elif self.inside and tag == "circle":
            self.circles.append(a)
        elif self.inside and tag == "polyline":
            self.roofs.append(a)
        elif self.inside and tag == "rect" and self.attrs is None:
            self.attrs = a

    def handle_endtag(self, tag):
        if tag == "svg":
            self.inside = False


class Roofline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_roofline_")
        cls.trace = os.path.join(cls.tmp, "h100.json")
        write_trace(cls.trace)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_section_rows(self):
        out, _, _ = run("summary", self.trace, "--section", "roofline", "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        want = sorted(expected(), key=lambda e: -e[1])
        self.assertEqual([r["kernel"] for r in rows], [w[0] for w in want])
        for r, (name, dur, intensity, rate, pct, bound) in zip(rows, want):
            self.assertEqual(r["device"], "NVIDIA H100 SXM")
            self.assertEqual(float(r["flop_per_byte"]), round(intensity, 3), name)
            self.assertEqual(float(r["pct_of_roof"]), round(pct, 4), name)
            self.assertEqual(r["bound"], bound, name)
            self.assertEqual(float(r["tflop_s"]), round(rate / 1e12, 4), name)

    def test_no_section_without_counters(self):
        plain = os.path.join(self.tmp, "plain.json")
        with open(self.trace) as f:
            t = json.load(f)
        t["traceEvents"] = [e for e in t["traceEvents"] if e["cat"] != "cuda_profiler_range"]
        with open(plain, "w") as f:
            json.dump(t, f)
        out, _, _ = run("summary", plain)
        self.assertNotIn("Roofline", out)
        out, _, _ = run("summary", plain, "--section", "roofline")
        self.assertIn("(none: no kernel has counters", out)

    def test_plot(self):
        page, err, _ = run("summary", self.trace, "--format", "html")
        svg = Svg()
        svg.feed(page)
        # One roof per distinct peak the H100 SXM row has (fp64 34, fp64 matrix and fp32 67 share one,
        # tf32, fp16/bf16 vector, fp16/bf16 matrix, int8).
        self.assertEqual(len(svg.roofs), 6)
        self.assertEqual(len(svg.circles), len(KERNELS))
        x0, y0 = float(svg.attrs["x"]), float(svg.attrs["y"])
        w, h = float(svg.attrs["width"]), float(svg.attrs["height"])
        want = sorted(expected(), key=lambda e: -e[1])
        xs = [math.log10(e[2]) for e in want]
        ys = [math.log10(e[3]) for e in want]
        # Points on log axes: the differences of their positions are proportional to the differences of
        # the logarithms (whatever the axes' decades), x growing rightwards and y upwards.
        cx = [float(c["cx"]) for c in svg.circles]
        cy = [float(c["cy"]) for c in svg.circles]
        sx = (cx[0] - cx[1]) / (xs[0] - xs[1])
        sy = (cy[0] - cy[1]) / (ys[0] - ys[1])
        self.assertGreater(sx, 0)
        self.assertLess(sy, 0)
        for i in range(len(want)):
            self.assertAlmostEqual(cx[i] - cx[0], sx * (xs[i] - xs[0]), delta=0.2)
            self.assertAlmostEqual(cy[i] - cy[0], sy * (ys[i] - ys[0]), delta=0.2)
            self.assertTrue(x0 <= cx[i] <= x0 + w and y0 <= cy[i] <= y0 + h)
        # Area proportional to time: radius 3 + 12 sqrt(t / t_max).
        for c, e in zip(svg.circles, want):
            self.assertAlmostEqual(float(c["r"]), 3 + 12 * math.sqrt(e[1] / want[0][1]), delta=0.06)
        if not os.path.exists(CHROMIUM):
            self.skipTest(f"chromium not found ({CHROMIUM})")
        html_path = os.path.join(self.tmp, "summary.html")
        with open(html_path, "w") as f:
            f.write(page)
        shot = os.environ.get("ROCPD_ROOFLINE_SHOT") or os.path.join(self.tmp, "summary.png")
        profile = tempfile.mkdtemp(prefix="rocpd_chromium_", dir=self.tmp)
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--force-color-profile=srgb", "--force-device-scale-factor=1", "--hide-scrollbars",
               f"--screenshot={shot}", "--window-size=1280,1600", "file://" + html_path]
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
        self.assertTrue(os.path.exists(shot), f"chromium wrote no screenshot ({p.returncode}): {p.stderr[-2000:]}")
        pixels = Counter(px for row in png.read(shot) for px in row)
        # Every roof's colour is drawn (its line and label), and the points' fill blended on white.
        for roof in svg.roofs:
            rgb = tuple(int(roof["stroke"][i:i + 2], 16) for i in (1, 3, 5))
            self.assertGreater(pixels[rgb], 50, roof["stroke"])


if __name__ == "__main__":
    require()
    unittest.main(verbosity=2)
