"""`rocpd-ext summary --format html` rendered by headless Chromium (Debian's chromium): the
screenshot shows the heatmap, three lanes per GPU (compute, communication, copies), every bucket of
a lane in the colour of that class's busy share, each lane in a hue of its own. The busy time per
lane and bucket is computed here by brute force (the union of each GPU's op intervals of the
class, clipped to the buckets of the job's span); the PNG is decoded with zlib (png.py) and the
pixels of each of the thirty colours counted: a bucket is a block of cell_width x lane_height
pixels, and each colour also fills one 14 x 14 legend swatch. Skipped (exit 77) when chromium is
absent."""
import bisect
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from collections import Counter, defaultdict

import png
from clitest import connect, demo_job, require, run

CHROMIUM = os.environ.get("ROCPD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
BUCKETS = 50
LEGEND_SWATCH = 14 * 14


def hex_rgb(color):
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


class HeatmapScan(html.parser.HTMLParser):
    """The heatmap's attributes and its legend's colours: the three lanes' ten classes, in order."""

    def __init__(self):
        super().__init__()
        self.attrs, self.legend, self.inside = None, [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.inside = a.get("id") == "heatmap"
            if self.inside:
                self.attrs = a
        elif tag == "rect" and self.inside and a.get("class") == "legend":
            self.legend.append(a["fill"])


def lane_of(kind, name):
    """The heatmap lane of an op (the breakdown's classes), None when it is in none."""
    if kind in ("copy", "fill"):
        return 2
    if kind == "kernel":
        n = (name or "").lower()
        return 1 if "nccl" in n or "rccl" in n or "cross_device_reduce" in n else 0
    return None


def busy_per_bucket(con, lo, hi, buckets):
    """{(db, gpu): ([busy ns of bucket k] per lane, bucket widths)} over the grid
    [lo + k*span//n, lo + (k+1)*span//n)."""
    span = hi - lo
    edges = [lo + k * span // buckets for k in range(buckets + 1)]
    ops = defaultdict(lambda: ([], [], []))
    for db, gpu, kind, name, start, end in con.execute('SELECT db, gpu, kind, name, start, "end" FROM rocpd_ops '
                                                       'WHERE gpu IS NOT NULL'):
        lane = lane_of(kind, name)
        if lane is not None and start is not None and end is not None and end > start:
            ops[(db, gpu)][lane].append((start, end))
    out = {}
    for key, lanes in ops.items():
        per_lane = []
        for spans in lanes:
            merged = []
            for start, end in sorted(spans):
                if merged and start <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            busy = [0] * buckets
            for start, end in merged:
                start, end = max(start, lo), min(end, hi)
                k = max(0, bisect.bisect_right(edges, start) - 1)
                while k < buckets and edges[k] < end:
                    busy[k] += max(0, min(end, edges[k + 1]) - max(start, edges[k]))
                    k += 1
            per_lane.append(busy)
        out[key] = (per_lane, [edges[k + 1] - edges[k] for k in range(buckets)])
    return out


class Screenshot(unittest.TestCase):
    def test_heatmap_pixels(self):
        job, truth, tmp = demo_job()
        self.addCleanup(tmp.cleanup)
        page, err, _ = run("summary", job, "--format", "html", "--buckets", str(BUCKETS), "--top", "100")
        self.assertEqual(err, "")
        html_path = os.path.join(tmp.name, "summary.html")
        with open(html_path, "w") as f:
            f.write(page)
        scan = HeatmapScan()
        scan.feed(page)
        self.assertIsNotNone(scan.attrs, "no svg#heatmap in the page")
        lo, hi = truth["job"]["first_ns"], truth["job"]["last_ns"]
        self.assertEqual((int(scan.attrs["data-lo"]), int(scan.attrs["data-hi"])), (lo, hi))
        self.assertEqual(int(scan.attrs["data-buckets"]), BUCKETS)
        cell = int(scan.attrs["data-cell-width"]) * int(scan.attrs["data-lane-height"])
        palette = [hex_rgb(c) for c in scan.legend]
        self.assertEqual(len(palette), 30)
        self.assertEqual(len(set(palette)), 30)
        # Each lane light (idle) to dark (busy), and no grey: text and table backgrounds never take
        # these colours. Three hues: compute blue, communication orange, copies green.
        for lane in range(3):
            shades = palette[10 * lane:10 * lane + 10]
            luminance = [0.2126 * r + 0.7152 * g + 0.0722 * b for r, g, b in shades]
            self.assertEqual(luminance, sorted(luminance, reverse=True), lane)
            self.assertTrue(all(len({r, g, b}) > 1 for r, g, b in shades))
            r, g, b = shades[6]
            self.assertEqual(max((b, 0), (r, 1), (g, 2))[1], lane, shades[6])  # the dominant channel

        con = connect(job)
        expected = Counter()
        grid = busy_per_bucket(con, lo, hi, BUCKETS)
        self.assertEqual(len(grid), sum(len(f["gpus"]) for f in truth["files"]))
        for lanes, widths in grid.values():
            for lane, busy in enumerate(lanes):
                for b, w in zip(busy, widths):
                    expected[(lane, min(9, b * 10 // w))] += 1
        for lane in range(3):
            self.assertGreater(len([c for (ln, c) in expected if ln == lane]), 2, f"lane {lane}: too few classes")

        profile = tempfile.mkdtemp(prefix="rocpd_chromium_", dir=tmp.name)
        shot = os.path.join(tmp.name, "summary.png")
        height = 300 + 19 * len(grid) + 200
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--force-color-profile=srgb", "--force-device-scale-factor=1", "--hide-scrollbars",
               f"--screenshot={shot}", f"--window-size=1280,{height}", "file://" + html_path]
        # Chromium runs as installed: without the sanitizer runtimes the sanitizer build preloads
        # into the test's processes.
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
        self.assertTrue(os.path.exists(shot), f"chromium wrote no screenshot ({p.returncode}): {p.stderr[-2000:]}")
        pixels = Counter(px for row in png.read(shot) for px in row)
        for i, rgb in enumerate(palette):
            lane, c = divmod(i, 10)
            want = expected[(lane, c)] * cell + LEGEND_SWATCH
            self.assertEqual(pixels[rgb], want, f"lane {lane} class {c} ({scan.legend[i]}): {expected[(lane, c)]} buckets")


if __name__ == "__main__":
    require()
    if not os.path.exists(CHROMIUM):
        print(f"SKIP: chromium not found ({CHROMIUM}); apt-get install chromium")
        sys.exit(77)
    unittest.main(verbosity=2)
