"""`rocpd-ext summary --format html` rendered by headless Chromium (Debian's chromium): the
screenshot shows the utilization heatmap, every GPU bucket in the colour of its busy share. The
busy time per bucket is computed here by brute force (the union of each GPU's op intervals,
clipped to the buckets of the job's span); the PNG is decoded with zlib (png.py) and the pixels of
each of the ten colours counted: a bucket is a block of cell_width x cell_height pixels, and each
colour also fills one 14 x 14 legend swatch. Skipped (exit 77) when chromium is absent."""
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
    """The heatmap's attributes and its legend's colours, in class order."""

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


def busy_per_bucket(con, lo, hi, buckets):
    """{(db, gpu): [busy ns of bucket k]} over the grid [lo + k*span//n, lo + (k+1)*span//n)."""
    span = hi - lo
    edges = [lo + k * span // buckets for k in range(buckets + 1)]
    ops = defaultdict(list)
    for db, gpu, start, end in con.execute('SELECT db, gpu, start, "end" FROM rocpd_ops WHERE gpu IS NOT NULL'):
        ops[(db, gpu)].append((start, end))
    out = {}
    for key, spans in ops.items():
        merged = []
        for start, end in sorted(s for s in spans if s[0] is not None and s[1] is not None and s[1] > s[0]):
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
        out[key] = (busy, [edges[k + 1] - edges[k] for k in range(buckets)])
    return out


class Screenshot(unittest.TestCase):
    def test_heatmap_pixels(self):
        job, truth, tmp = demo_job()
        self.addCleanup(tmp.cleanup)
        page, err, _ = run("summary", job, "--format", "html", "--buckets", str(BUCKETS))
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
        cell = int(scan.attrs["data-cell-width"]) * int(scan.attrs["data-cell-height"])
        palette = [hex_rgb(c) for c in scan.legend]
        self.assertEqual(len(set(palette)), 10)
        # Light (idle) to dark (busy), and no grey: text and table backgrounds never take these colours.
        luminance = [0.2126 * r + 0.7152 * g + 0.0722 * b for r, g, b in palette]
        self.assertEqual(luminance, sorted(luminance, reverse=True))
        self.assertTrue(all(len({r, g, b}) > 1 for r, g, b in palette))

        con = connect(job)
        expected = Counter()
        grid = busy_per_bucket(con, lo, hi, BUCKETS)
        self.assertEqual(len(grid), sum(len(f["gpus"]) for f in truth["files"]))
        for busy, widths in grid.values():
            for b, w in zip(busy, widths):
                expected[min(9, b * 10 // w)] += 1
        self.assertGreater(len(expected), 3, "the demo job should show several utilization classes")

        profile = tempfile.mkdtemp(prefix="rocpd_chromium_", dir=tmp.name)
        shot = os.path.join(tmp.name, "summary.png")
        height = 220 + 14 * len(grid) + 120
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
        for c, rgb in enumerate(palette):
            want = expected[c] * cell + LEGEND_SWATCH
            self.assertEqual(pixels[rgb], want, f"class {c} ({scan.legend[c]}): {expected[c]} buckets")


if __name__ == "__main__":
    require()
    if not os.path.exists(CHROMIUM):
        print(f"SKIP: chromium not found ({CHROMIUM}); apt-get install chromium")
        sys.exit(77)
    unittest.main(verbosity=2)
