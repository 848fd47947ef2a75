"""rocpd-ext (docs/cli.md) on the README's demo job: every format of `summary` parses and equals
both the generator's ground truth (truth.json) and the views it reads; `query` and `export`
likewise; stdout holds only the result; every error is one line on stderr with a non-zero status."""
import csv
import html.parser
import io
import json
import math
import os
import re
import shutil
import signal
import sqlite3
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from collections import defaultdict

from clitest import CLI, GEN, connect, demo_job, fixture_set, kineto_trace, peak_rss_kb, require, run
from compare_truth import expected_rows, same_p

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "federation"))
from tiny_traces import make_rpd  # noqa: E402

DATA = os.environ.get("ROCPD_SHARED_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                           "..", "shared", "data")

SECTIONS = ["job", "members", "breakdown", "busy", "copies", "kernels", "apis", "other_calls", "stragglers", "steps",
            "critical_path", "idle"]
ALL = "100000"  # --top: every row of every section


def csv_blocks(text):
    """The CSV tables of a summary, separated by one empty line: a list of (header, rows)."""
    blocks = []
    for chunk in text.rstrip("\n").split("\n\n"):
        rows = list(csv.reader(io.StringIO(chunk + "\n")))
        blocks.append((rows[0], rows[1:]))
    return blocks


def same(cell, value):
    """A CSV cell against a value SQLite returned (NULL is an empty field)."""
    if value is None:
        return cell == ""
    if isinstance(value, float):
        return math.isclose(float(cell), value, rel_tol=1e-12, abs_tol=1e-12)
    return cell == str(value)


def md_escape(text):
    """A Markdown cell as the md format writes it."""
    for a, b in (("\\", "\\\\"), ("|", "\\|"), ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(a, b)
    return text


def union_length(spans):
    """Length of the union of [start, end) intervals (brute force: sorted sweep)."""
    total, reach = 0, None
    for start, end in sorted(spans):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def is_comm(name):
    n = (name or "").lower()
    return "nccl" in n or "rccl" in n or "cross_device_reduce" in n


def shares_text(share):
    """The headline's shares (percent of the GPUs' spans) as rocpd-ext words them: each kind is a union
    of its own ops, so where kinds run at once the shares add up past 100 % and the line says by how much."""
    text = (f"compute {share['compute']:.1f} %, communication {share['comm']:.1f} %, copies {share['copy']:.1f} %, "
            f"idle {share['idle']:.1f} %")
    counted_twice = share["compute"] + share["comm"] + share["copy"] + share["idle"] - 100.0
    if counted_twice >= 0.05:
        text += f" (kinds running at once count in each: +{counted_twice:.1f} %)"
    return text


def breakdown_brute_force(con):
    """{(db, gpu): dict of span, busy, compute, comm, copy, overlap, idle} from rocpd_ops' rows."""
    rows = defaultdict(list)
    for db, gpu, kind, name, start, end in con.execute('SELECT db, gpu, kind, name, start, "end" FROM rocpd_ops '
                                                       'WHERE gpu IS NOT NULL'):
        if start is not None and end is not None and end >= start:
            rows[(db, gpu)].append((kind, name, start, end))
    out = {}
    for key, ops in rows.items():
        span = max(e for _, _, _, e in ops) - min(s for _, _, s, _ in ops)
        pick = lambda f: [(s, e) for k, n, s, e in ops if f(k, n)]
        compute = union_length(pick(lambda k, n: k == "kernel" and not is_comm(n)))
        comm = union_length(pick(lambda k, n: k == "kernel" and is_comm(n)))
        kernels = union_length(pick(lambda k, n: k == "kernel"))
        busy = union_length(pick(lambda k, n: True))
        out[key] = dict(span=span, busy=busy, compute=compute, comm=comm,
                        copy=union_length(pick(lambda k, n: k in ("copy", "fill"))),
                        overlap=compute + comm - kernels, idle=span - busy)
    return out


class Summary(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.job, cls.truth, cls._tmp = demo_job()
        cls.con = connect(cls.job)
        cls.out = {}
        for fmt in ("table", "csv", "json", "md", "html"):
            stdout, stderr, _ = run("summary", cls.job, "--format", fmt, "--top", ALL)
            cls.out[fmt] = stdout
            assert stderr == "", stderr  # no warning on the demo job
        cls.blocks = dict(zip(SECTIONS, csv_blocks(cls.out["csv"])))

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        cls._tmp.cleanup()

    def view(self, sql, *args):
        cur = self.con.execute(sql, args)
        return [d[0] for d in cur.description], cur.fetchall()

    def assert_block_equals_view(self, section, sql, *args):
        header, rows = self.blocks[section]
        columns, expected = self.view(sql, *args)
        self.assertEqual(header, columns, section)
        self.assertEqual(len(rows), len(expected), section)
        for got, want in zip(rows, expected):
            for g, w in zip(got, want):
                self.assertTrue(same(g, w), f"{section}: {got} != {want}")

    def test_csv_has_every_section_and_nothing_else(self):
        self.assertEqual(len(csv_blocks(self.out["csv"])), len(SECTIONS))
        self.assertTrue(self.out["csv"].startswith("members,first_ns,last_ns,span_ns,ops,apis,gpus,busy_ns,gpu_busy_pct\n"))

    def test_job_row_is_the_ground_truth(self):
        header, rows = self.blocks["job"]
        self.assertEqual(len(rows), 1)
        job = dict(zip(header, rows[0]))
        t = self.truth
        gpus = [g for f in t["files"] for g in f["gpus"]]
        span = t["job"]["last_ns"] - t["job"]["first_ns"]
        busy = sum(g["busy_ns"] for g in gpus)
        self.assertEqual(int(job["members"]), len(t["files"]))
        self.assertEqual(int(job["first_ns"]), t["job"]["first_ns"])
        self.assertEqual(int(job["last_ns"]), t["job"]["last_ns"])
        self.assertEqual(int(job["span_ns"]), span)
        self.assertEqual(int(job["ops"]), t["job"]["ops"])
        self.assertEqual(int(job["apis"]), sum(f["apis"] + f["markers"] for f in t["files"]))
        self.assertEqual(int(job["gpus"]), len(gpus))
        self.assertEqual(int(job["busy_ns"]), busy)
        self.assertEqual(float(job["gpu_busy_pct"]), round(100.0 * busy / (len(gpus) * span), 2))

    def test_members_are_the_ground_truth(self):
        header, rows = self.blocks["members"]
        got = {r[header.index("db")]: dict(zip(header, r)) for r in rows}
        self.assertEqual(sorted(got), sorted(f["db"] for f in self.truth["files"]))
        for f in self.truth["files"]:
            m = got[f["db"]]
            self.assertEqual(m["format"], f["format"])
            self.assertEqual(int(m["ops"]), f["ops"])
            self.assertEqual(int(m["apis"]), f["apis"] + f["markers"])
            self.assertEqual(int(m["span_ns"]), f["last_ns"] - f["first_ns"])
            self.assertEqual(os.path.basename(m["path"]), f["file"])
        self.assert_block_equals_view(
            "members", "SELECT db, format, version, hostname, ops, apis, last_ns - first_ns AS span_ns, path FROM rocpd_members")

    def test_breakdown_is_the_brute_force(self):
        header, rows = self.blocks["breakdown"]
        self.assertEqual(header, ["db", "gpu", "span_ns", "busy_ns", "compute_ns", "comm_ns", "copy_ns", "overlap_ns",
                                  "idle_ns", "compute_pct", "comm_pct", "copy_pct", "idle_pct"])
        want = breakdown_brute_force(self.con)
        truth = {(f["db"], g["gpu"]): g for f in self.truth["files"] for g in f["gpus"]}
        self.assertEqual({(r[0], int(r[1])) for r in rows}, set(want))
        for row in rows:
            r = dict(zip(header, row))
            w = want[(r["db"], int(r["gpu"]))]
            for k in ("span", "busy", "compute", "comm", "copy", "overlap", "idle"):
                self.assertEqual(int(r[k + "_ns"]), w[k], (r["db"], r["gpu"], k))
            for k in ("compute", "comm", "copy", "idle"):
                self.assertEqual(float(r[k + "_pct"]), round(100.0 * w[k] / w["span"], 2))
            self.assertEqual(int(r["busy_ns"]), truth[(r["db"], int(r["gpu"]))]["busy_ns"])
        self.assertGreater(sum(w["comm"] for w in want.values()), 0)
        self.assertGreater(sum(w["overlap"] for w in want.values()), 0)
        # The section is rocpd_time_breakdown's whole-gpu rows (issue 30: not a second computation).
        self.assert_block_equals_view(
            "breakdown", "SELECT db, gpu, span_ns, busy_ns, compute_ns, comm_ns, copy_ns, overlap_ns, idle_ns,"
            " round(compute_pct, 2) AS compute_pct, round(comm_pct, 2) AS comm_pct, round(copy_pct, 2) AS copy_pct,"
            " round(idle_pct, 2) AS idle_pct FROM rocpd_time_breakdown WHERE step IS NULL"
            " ORDER BY idle_ns * 1.0 / span_ns DESC, db COLLATE rocpd_natural, gpu")
        # Worst first: the most idle share of its span first (ties by member and GPU).
        shares = [want[(r[0], int(r[1]))]["idle"] / want[(r[0], int(r[1]))]["span"] for r in rows]
        self.assertEqual(shares, sorted(shares, reverse=True))

    def test_headline_leads_with_the_shares(self):
        want = breakdown_brute_force(self.con)
        span = sum(w["span"] for w in want.values())
        share = {k: 100.0 * sum(w[k] for w in want.values()) / span for k in ("compute", "comm", "copy", "idle")}
        first = self.out["table"].splitlines()[0]
        self.assertEqual(first, f"GPU time ({len(want)} GPUs, {span / 1e9:.3f} s): {shares_text(share)}")
        self.assertIn("kinds running at once count in each", first)  # the demo's kernels overlap
        out, _, _ = run("summary", self.job, "--section", "job", "--by-rank")
        lines = out.splitlines()
        self.assertEqual(lines[0], first)
        # One line per member (one process each), most idle first.
        expected = []
        for f in self.truth["files"]:
            mine = [w for (db, _), w in want.items() if db == f["db"]]
            span = sum(w["span"] for w in mine)
            mine_share = {k: 100.0 * sum(w[k] for w in mine) / span for k in ("compute", "comm", "copy", "idle")}
            expected.append((-sum(w["idle"] for w in mine) / span, f["db"],
                             f"  {f['db']} ({len(mine)} GPUs, {span / 1e9:.3f} s): {shares_text(mine_share)}"))
        self.assertEqual(lines[2:2 + len(expected)], [e[2] for e in sorted(expected)])
        out, _, _ = run("summary", self.job, "--section", "job", "--by-rank", "-n", "3")
        self.assertEqual(out.splitlines()[2:6], [e[2] for e in sorted(expected)][:3] +
                         [f"  ... and {len(expected) - 3} more (-n/--top shows more)"])

    def test_busy_per_gpu_is_the_ground_truth(self):
        header, rows = self.blocks["busy"]
        got = {(r[0], int(r[1])): dict(zip(header, r)) for r in rows}
        want = {(f["db"], g["gpu"]): g for f in self.truth["files"] for g in f["gpus"]}
        self.assertEqual(set(got), set(want))
        for key, g in want.items():
            self.assertEqual(int(got[key]["busy_ns"]), g["busy_ns"], key)
            self.assertEqual(int(got[key]["span_ns"]), g["last_ns"] - g["first_ns"], key)
            self.assertEqual(int(got[key]["ops"]), g["ops"], key)
            self.assertEqual(float(got[key]["busy_pct"]), round(100.0 * g["busy_ns"] / (g["last_ns"] - g["first_ns"]), 2))
        self.assert_block_equals_view("busy", "SELECT db, gpu, busy_ns, span_ns, busy_pct, ops FROM rocpd_busy"
                                              " ORDER BY busy_ns * 1.0 / span_ns, db COLLATE rocpd_natural, gpu")
        # Worst first: the least busy share of its span first.
        shares = [want[(r[0], int(r[1]))]["busy_ns"] / (want[(r[0], int(r[1]))]["last_ns"] -
                                                        want[(r[0], int(r[1]))]["first_ns"]) for r in rows]
        self.assertEqual(shares, sorted(shares))

    def test_copies_are_the_brute_force(self):
        header, rows = self.blocks["copies"]
        self.assertEqual(header, ["time_pct", "total_ns", "count", "avg_ns", "bytes", "avg_bytes", "unsized", "gb_per_s",
                                  "kind", "name"])
        want = defaultdict(lambda: [0, 0, 0, 0, 0, 0])  # count, ns, bytes, timed bytes, timed ns, sized
        for name, duration, size in self.con.execute("SELECT name, duration, bytes FROM rocpd_copies"):
            w = want[("copy", name)]
            w[0] += 1
            w[1] += duration or 0
            w[2] += size or 0
            w[5] += size is not None
            if size is not None and duration and duration > 0:
                w[3] += size
                w[4] += duration
        for name, duration in self.con.execute("SELECT name, duration FROM rocpd_ops WHERE kind = 'fill'"):
            want[("fill", name)][0] += 1
            want[("fill", name)][1] += duration or 0
        total = sum(w[1] for w in want.values())
        self.assertEqual(len(rows), len(want))
        order = sorted(want, key=lambda k: (-want[k][1], k))
        self.assertEqual([(r[8], r[9]) for r in rows], order)
        for row in rows:
            r = dict(zip(header, row))
            w = want[(r["kind"], r["name"])]
            self.assertEqual((int(r["count"]), int(r["total_ns"]), int(r["bytes"])), (w[0], w[1], w[2]))
            self.assertEqual((float(r["avg_bytes"]), int(r["unsized"])), (round(w[2] / w[5], 1), w[0] - w[5]))
            self.assertEqual(float(r["time_pct"]), round(100.0 * w[1] / total, 2))
            self.assertEqual(float(r["gb_per_s"]), round(w[3] / w[4], 3))
        # The generator's copies per member add up to the rows' counts.
        self.assertEqual(sum(int(r[2]) for r in rows),
                         sum(k["calls"] for f in self.truth["files"] for k in f["top"] if k["kind"] == "copy"))

    def test_top_kernels_are_the_ground_truth(self):
        kernels = defaultdict(lambda: [0, 0, None, None])
        for f in self.truth["files"]:
            for k in f["top"]:
                if k["kind"] != "kernel":
                    continue
                e = kernels[k["name"]]
                e[0] += k["calls"]
                e[1] += k["total_ns"]
                e[2] = k["min_ns"] if e[2] is None else min(e[2], k["min_ns"])
                e[3] = k["max_ns"] if e[3] is None else max(e[3], k["max_ns"])
        total = sum(e[1] for e in kernels.values())
        top = sorted(kernels.items(), key=lambda kv: (-kv[1][1], kv[0]))
        header, rows = self.blocks["kernels"]
        self.assertEqual(len(rows), len(kernels))
        for row, (name, (calls, ns, lo, hi)) in zip(rows, top):
            r = dict(zip(header, row))
            shown, = self.con.execute("SELECT rocpd_display_name(?)", (name,)).fetchone()
            self.assertEqual(r["kernel"], shown)
            self.assertEqual((int(r["instances"]), int(r["total_ns"]), int(r["min_ns"]), int(r["max_ns"])),
                             (calls, ns, lo, hi))
            self.assertEqual(float(r["time_pct"]), round(100.0 * ns / total, 2))
        self.assert_block_equals_view("kernels", "SELECT * FROM rocpd_kernel_summary")

    def test_top_apis_are_the_ground_truth(self):
        apis = defaultdict(lambda: [0, 0])
        for f in self.truth["files"]:
            for a in f["api_top"]:
                apis[a["name"]][0] += a["calls"]
                apis[a["name"]][1] += a["total_ns"]
        total = sum(ns for _, ns in apis.values())
        top = sorted(apis.items(), key=lambda kv: (-kv[1][1], kv[0]))
        header, rows = self.blocks["apis"]
        self.assertEqual(header, ["time_pct", "total_ns", "calls", "avg_ns", "api"])
        self.assertEqual([(r[4], int(r[2]), int(r[1])) for r in rows], [(n, c, ns) for n, (c, ns) in top])
        for r, (_, (calls, ns)) in zip(rows, top):
            self.assertEqual(float(r[0]), round(100.0 * ns / total, 2))
            self.assertEqual(float(r[3]), round(ns / calls, 1))

    def test_other_calls_are_the_markers(self):
        # The demo's calls are all hip* runtime calls; its roctx ranges and marks are markers.
        header, rows = self.blocks["other_calls"]
        self.assertEqual(header, ["class", "total_ns", "calls", "avg_ns", "name"])
        want = defaultdict(lambda: [0, 0])
        for name, duration in self.con.execute("SELECT name, duration FROM rocpd_apis WHERE domain = 'marker'"):
            want[name][0] += 1
            want[name][1] += duration or 0
        self.assertTrue(want)
        order = sorted(want, key=lambda n: (-want[n][1], n))
        self.assertEqual([r[4] for r in rows], order)
        for r in rows:
            self.assertEqual((r[0], int(r[2]), int(r[1])), ("marker", want[r[4]][0], want[r[4]][1]))
        self.assertFalse({r[4] for r in self.blocks["apis"][1]} & set(want))

    def test_stragglers_and_steps_need_matching_collectives_and_steps(self):
        # The demo's NCCL kernels do not line up across ranks, and it has no ProfilerStep ranges:
        # the three sections are empty (csv: the header alone) and say why in the table.
        for name in ("stragglers", "steps", "critical_path"):
            self.assertEqual(self.blocks[name][1], [], name)
        unmatched, = self.con.execute("SELECT sum(unmatched) FROM rocpd_stragglers").fetchone()
        self.assertGreater(unmatched, 0)
        self.assertIn("(none: the members' collectives do not match across members", self.out["table"])
        self.assertIn("(none: no member has step ranges", self.out["table"])
        self.assertIn("(none: no member has step ranges, the ProfilerStep#N ranges rocpd_critical_path follows; "
                      "--steps PATTERN chooses them)",
                      self.out["table"])

    def test_idle_causes_add_up_to_the_gaps(self):
        # Brute force: the union of each GPU's non-empty op intervals, and the gaps between them.
        ops = defaultdict(list)
        for db, gpu, start, end in self.con.execute('SELECT db, gpu, start, "end" FROM rocpd_ops'):
            if start is not None and end is not None and end > start:
                ops[(db, gpu)].append((start, end))
        gaps = {}
        for key, spans in ops.items():
            spans.sort()
            n, idle, reach = 0, 0, spans[0][1]
            for start, end in spans[1:]:
                if start > reach:
                    n, idle = n + 1, idle + start - reach
                reach = max(reach, end)
            gaps[key] = (n, idle)
        header, rows = self.blocks["idle"]
        want = {(f["db"], g["gpu"]): g for f in self.truth["files"] for g in f["gpus"]}
        self.assertEqual(len(rows), len(want))
        for row in rows:
            r = {k: int(v) for k, v in zip(header[1:], row[1:])}
            key = (row[0], r["gpu"])
            self.assertEqual((r["gaps"], r["idle_ns"]), gaps[key], key)
            self.assertEqual(r["gaps"], want[key]["busy_intervals"] - 1)
            self.assertEqual(r["host_wait_ns"] + r["kernel_wait_ns"] + r["other_ns"], r["idle_ns"])
            self.assertEqual(r["busy_ns"], want[key]["busy_ns"])
        self.assert_block_equals_view(
            "idle", "SELECT db, gpu, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, busy_ns "
                    "FROM rocpd_idle_breakdown WHERE level = 'gpu' ORDER BY idle_ns DESC, db COLLATE rocpd_natural, gpu")

    def test_json_holds_the_same_rows(self):
        doc = json.loads(self.out["json"])
        self.assertEqual(list(doc), ["findings"] + SECTIONS)  # findings: test_cli_findings.py
        self.assertIsInstance(doc["job"], dict)
        for name in SECTIONS:
            header, rows = self.blocks[name]
            objs = [doc["job"]] if name == "job" else doc[name]
            self.assertEqual(len(objs), len(rows), name)
            for obj, row in zip(objs, rows):
                self.assertEqual(list(obj), header)
                for cell, value in zip(row, obj.values()):
                    self.assertTrue(same(cell, value), f"{name}: {row} vs {obj}")
        # Typed as SQLite returned them: integers, reals, text, null.
        columns, rows = self.view("SELECT * FROM rocpd_kernel_summary")
        self.assertEqual(doc["kernels"], [dict(zip(columns, r)) for r in rows])
        columns, rows = self.view("SELECT db, format, version, hostname, ops, apis, last_ns - first_ns AS span_ns, path "
                                  "FROM rocpd_members")
        self.assertEqual(doc["members"], [dict(zip(columns, r)) for r in rows])

    def test_table_and_markdown_show_every_section(self):
        table, md = self.out["table"], self.out["md"]
        job = dict(zip(*[self.blocks["job"][0], self.blocks["job"][1][0]]))
        headline = table.splitlines()[1]
        self.assertTrue(headline.startswith(f"{int(job['members']):,} members, {int(job['ops']):,} GPU ops, "
                                            f"{int(job['apis']):,} API calls"), headline)
        self.assertIn(f"busy {job['gpu_busy_pct']} % of the span", headline)
        self.assertIn(headline, md)
        shown = 0
        for name in SECTIONS:
            header, rows = self.blocks[name]
            if not rows and name != "job":
                continue  # a note instead of an empty table
            shown += 1
            # Durations lose their _ns suffix in the human formats (they carry their unit).
            human = [c[:-3] if c.endswith("_ns") and c not in ("first_ns", "last_ns") else c for c in header]
            self.assertIn("| " + " | ".join(human) + " |", md)
            self.assertTrue(any(line.split() == human for line in table.splitlines()), name)
            for row in rows:
                for cell in row:
                    if not cell.replace(".", "").replace("-", "").isdigit():
                        self.assertIn(md_escape(cell), md)
        md_lines = [line for line in md.splitlines() if line.startswith("|")]
        self.assertEqual(len(md_lines), sum(len(rows) + 2 for name, (_, rows) in self.blocks.items() if rows))
        self.assertEqual(shown, len(SECTIONS) - 3)

    def test_html_is_self_contained(self):
        page = self.out["html"]

        class Scan(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.tags, self.refs, self.svgs, self.rects, self.ids = defaultdict(int), [], [], 0, set()

            def handle_starttag(self, tag, attrs):
                self.tags[tag] += 1
                a = dict(attrs)
                self.refs += [v for k, v in attrs if k in ("src", "href", "xlink:href") and v]
                self.ids |= {v for k, v in attrs if k == "id"}
                if tag == "svg":
                    self.svgs.append(a.get("id"))
                if tag == "rect" and a.get("class") != "legend" and self.svgs[-1] == "heatmap":
                    self.rects += 1

        s = Scan()
        s.feed(page)
        # Only links within the page (the findings' to their sections), each to an id on it.
        self.assertEqual([r for r in s.refs if not (r.startswith("#") and r[1:] in s.ids)], [])
        self.assertEqual(s.tags["script"], 0)
        self.assertEqual(s.tags["link"], 0)
        self.assertNotIn("url(", page)
        self.assertEqual(s.svgs, ["heatmap", "kernel-bars"])
        self.assertEqual(s.tags["table"], len(SECTIONS) - 3)  # stragglers, steps, critical_path: a note
        self.assertGreaterEqual(s.rects, len(self.blocks["busy"][1]))  # at least one run of cells per GPU
        self.assertIn(self.out["table"].splitlines()[0], page)

    def test_top_and_section(self):
        out, _, _ = run("summary", self.job, "--format", "csv", "--top", "3", "--section", "apis", "--section", "kernels")
        blocks = csv_blocks(out)
        # Printed in the summary's order, whatever the order asked.
        self.assertEqual([b[0][-1] for b in blocks], ["kernel", "api"])
        self.assertEqual([len(b[1]) for b in blocks], [3, 3])
        self.assertEqual(blocks[0][1], self.blocks["kernels"][1][:3])

    def test_top_bounds_every_section(self):
        # Default --top 10: the per-GPU sections (32 GPUs) and members (8) are cut too, and the
        # table says so under each cut table.
        out, _, _ = run("summary", self.job, "-f", "csv")
        blocks = dict(zip(SECTIONS, csv_blocks(out)))
        for name in SECTIONS:
            self.assertEqual(blocks[name][1], self.blocks[name][1][:10], name)
        table, _, _ = run("summary", self.job, "-n", "4", "--section", "breakdown", "--section", "members")
        self.assertIn("\n... and 28 more (-n/--top shows more)\n", table)  # 32 GPUs
        self.assertIn("\n... and 4 more (-n/--top shows more)\n", table)  # 8 members
        self.assertEqual(len([line for line in table.splitlines() if line.startswith("rank")]), 8)

    def test_time_units_and_separators(self):
        # auto: each duration in its unit; counts with separators; timestamps as they are.
        table, _, _ = run("summary", self.job, "--section", "job")
        header, rows = self.blocks["job"]
        job = dict(zip(header, rows[0]))
        line = table.splitlines()[-1].split()
        span = int(job["span_ns"])
        self.assertEqual(line[:5], ["8", job["first_ns"], job["last_ns"], f"{span / 1e6:.2f}", "ms"])
        self.assertEqual(line[5:7], [f"{int(job['ops']):,}", f"{int(job['apis']):,}"])
        for unit, scale in (("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)):
            table, _, _ = run("summary", self.job, "--section", "job", "--timeunit", unit)
            lines = table.splitlines()
            self.assertIn(f"span_{unit}", lines[-3].split())
            want = f"{span:,}" if unit == "ns" else f"{span / scale:,.3f}"
            self.assertEqual(lines[-1].split()[3], want, unit)
        # csv and json keep the raw ns whatever the unit.
        out, _, _ = run("summary", self.job, "-f", "csv", "--section", "job", "--timeunit", "ms")
        self.assertEqual(csv_blocks(out)[0], self.blocks["job"])

    def test_progress_goes_to_stderr(self):
        out, _, _ = run("summary", self.job, "--format", "csv", "--progress", "--section", "busy", "--top", ALL)
        self.assertEqual(csv_blocks(out), [self.blocks["busy"]])

    def test_output_file(self):
        path = os.path.join(self._tmp.name, "summary.csv")
        out, err, _ = run("summary", self.job, "-f", "csv", "--section", "job", "-o", path)
        self.assertEqual((out, err), ("", ""))
        with open(path) as f:
            self.assertEqual(csv_blocks(f.read()), [self.blocks["job"]])
        # A failing command leaves the file as it was; a member's file is never the output.
        out, err, rc = run("summary", os.path.join(self._tmp.name, "nope"), "-o", path, check=False)
        self.assertEqual(rc, 1)
        with open(path) as f:
            self.assertEqual(csv_blocks(f.read()), [self.blocks["job"]])
        member = os.path.join(self.job, "rank0.rpd")
        with open(member, "rb") as f:
            before = f.read()
        out, err, rc = run("summary", self.job, "-o", member, check=False)
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("is the trace of member rank0: it is read, never replaced", err)
        with open(member, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual([n for n in os.listdir(self._tmp.name) if n.startswith(".rocpd-ext-")], [])

    def test_output_to_a_fifo_writes_into_it(self):
        # As `-o /dev/null` must: a device or FIFO is written in place, never replaced by a regular
        # file renamed over it (a FIFO here: no test may risk the machine's /dev/null).
        fifo = os.path.join(self._tmp.name, "out.fifo")
        os.mkfifo(fifo)
        got = []

        def read_all():
            with open(fifo) as f:
                got.append(f.read())
        # A daemon: replaced by a regular file, the FIFO is never opened for writing and the reader
        # stays blocked; the test then fails instead of hanging.
        reader = threading.Thread(target=read_all, daemon=True)
        reader.start()
        out, err, rc = run("summary", self.job, "-f", "csv", "--section", "job", "-o", fifo, check=False)
        if rc != 0 and reader.is_alive() and stat.S_ISFIFO(os.lstat(fifo).st_mode):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the command failed before opening it
        reader.join(30)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
        self.assertFalse(reader.is_alive(), "nothing was written into the FIFO")
        self.assertEqual((rc, out, err), (0, "", ""))
        self.assertEqual(csv_blocks(got[0]), [self.blocks["job"]])
        self.assertEqual([n for n in os.listdir(self._tmp.name) if n.startswith(".rocpd-ext-")], [])


class CriticalPath(unittest.TestCase):
    """The critical_path section on a generated job with a planted slow data loader (rank 2's,
    3 ms; docs/generator.md), against a brute force over rocpd_critical_path's segments."""

    COLUMNS = ["step_of", "step", "step_time_ns", "kind", "path_ns", "pct", "largest_db", "largest_name", "largest_ns"]

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_cp_")
        cls.job = os.path.join(cls._tmp.name, "loader4")
        subprocess.run([GEN, "--out", cls.job, "--procs", "4", "--format", "rpd3", "--ops", "20", "--seed", "7",
                        "--steps", "3", "--critical-path", "loader", "--loader", "2:3000000"],
                       check=True, stdout=subprocess.DEVNULL)
        con = connect(cls.job)
        cls.segments = con.execute("SELECT step, db, kind, name, duration FROM rocpd_critical_path").fetchall()
        # The section shows names as summaries do (rocpd_display_name); it picks the largest by raw name.
        cls.display = dict(con.execute("SELECT DISTINCT name, rocpd_display_name(name) FROM rocpd_critical_path"))
        con.close()

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def expected(self, top):
        """Rows of the section, computed from the segments: per step its time (the segments tile
        it), the slowest step (ties: the lower step) and the median (the lower middle of the steps
        by time, ties by step), per kind the summed durations and the largest (db, name)."""
        step_ns, kinds, items = defaultdict(int), defaultdict(int), defaultdict(int)
        for step, db, kind, name, duration in self.segments:
            step_ns[step] += duration
            kinds[(step, kind)] += duration
            items[(step, kind, db, name)] += duration
        by_time = sorted(step_ns, key=lambda s: (step_ns[s], s))
        slowest = sorted(step_ns, key=lambda s: (-step_ns[s], s))[0]
        median = by_time[(len(by_time) + 1) // 2 - 1]
        rows = []
        for label, step in (("slowest", slowest), ("median", median)):
            ks = sorted(((ns, k) for (s, k), ns in kinds.items() if s == step), key=lambda t: (-t[0], t[1]))
            for ns, kind in ks[:top]:
                big = sorted(((v, d, n) for (s, k, d, n), v in items.items() if s == step and k == kind),
                             key=lambda t: (-t[0], t[1], t[2]))[0]
                rows.append([label, step, step_ns[step], kind, ns, round(100.0 * ns / step_ns[step], 2), big[1],
                             self.display.get(big[2], big[2]), big[0]])
        return rows, len(kinds) // len(step_ns)

    def test_shares_equal_the_segments(self):
        self.assertGreater(len(self.segments), 0)
        want, kinds = self.expected(100)
        self.assertGreaterEqual(kinds, 3)
        out, _, _ = run("summary", self.job, "-f", "csv", "--section", "critical_path", "-n", "100")
        (header, rows), = csv_blocks(out)
        self.assertEqual(header, self.COLUMNS)
        self.assertEqual(len(rows), len(want))
        for got, w in zip(rows, want):
            self.assertEqual(got[:5] + got[6:], [str(v) for v in w[:5] + w[6:]])
            self.assertAlmostEqual(float(got[5]), w[5], places=6)
        # The loader dominates: the path of each step runs mostly through rank 2's CPU.
        self.assertEqual((want[0][3], want[0][6], want[0][7]), ("cpu_op", "rank2", "DataLoader.__next__"))
        doc = json.loads(run("summary", self.job, "-f", "json", "--section", "critical_path", "-n", "100")[0])
        self.assertEqual(list(doc), ["critical_path"])
        self.assertEqual([list(o.values()) for o in doc["critical_path"]], want)

    def test_top_bounds_each_step_in_every_format(self):
        want, _ = self.expected(2)
        out, _, _ = run("summary", self.job, "-f", "csv", "--section", "critical_path", "-n", "2")
        (_, rows), = csv_blocks(out)
        self.assertEqual([r[:5] for r in rows], [[str(v) for v in w[:5]] for w in want])
        self.assertEqual(len(rows), 4)
        note = "(the largest 2 kinds of each step; -n/--top shows more)"
        title = "Critical path of the slowest and the median step: its share per kind (rocpd_critical_path)"
        for fmt in ("table", "md", "html"):
            out, _, _ = run("summary", self.job, "-f", fmt, "--section", "critical_path", "-n", "2")
            self.assertIn(title, out, fmt)
            self.assertIn(note, out, fmt)
            self.assertIn("DataLoader.__next__", out, fmt)
            # The title and two rows (html: and the chart's title), the headline's line aside.
            self.assertEqual(out.count("slowest") - out.count("critical path, slowest step"), 3 + (fmt == "html"), fmt)

    def test_html_draws_the_slowest_steps_path(self):
        # One rect per segment of the slowest step (chosen here, ties: the lower step), on the lane
        # of its thread or GPU queue, filled with its kind's colour (docs/cli.md).
        colors = {"cpu_op": "#7b3294", "launch": "#c2a5cf", "kernel": "#d7191c", "copy": "#a6611a",
                  "sync_wait": "#dfc27d", "gpu_wait": "#1b7837", "stream_wait": "#5aae61", "collective_wait": "#e7298a",
                  "idle_gap": "#bdbdbd"}
        con = connect(self.job)
        segs = con.execute("SELECT step, db, tid, gpu, queue, kind, duration FROM rocpd_critical_path").fetchall()
        con.close()
        step_ns = defaultdict(int)
        for seg in segs:
            step_ns[seg[0]] += seg[6]
        slowest = sorted(step_ns, key=lambda s: (-step_ns[s], s))[0]
        mine = [seg for seg in segs if seg[0] == slowest]
        lanes = {(db, tid) if tid is not None else (db, gpu, queue) for _, db, tid, gpu, queue, _, _ in mine}
        page, _, _ = run("summary", self.job, "-f", "html", "--section", "critical_path")

        class Scan(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.svgs, self.fills, self.labels, self.in_label = [], defaultdict(int), [], False

            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if tag == "svg":
                    self.svgs.append(a.get("id"))
                inside = self.svgs and self.svgs[-1] == "critical-path"
                if inside and tag == "rect" and a.get("class") != "legend":
                    self.fills[a["fill"]] += 1
                self.in_label = inside and tag == "text" and a.get("class") == "lbl"

            def handle_data(self, data):
                if self.in_label:
                    self.labels.append(data)
                    self.in_label = False

        sc = Scan()
        sc.feed(page)
        self.assertEqual(sc.svgs, ["critical-path"])
        self.assertIn(f"Critical path of the slowest step (step {slowest},", page)
        want = defaultdict(int)
        for seg in mine:
            want[colors[seg[5]]] += 1
        self.assertEqual(dict(sc.fills), dict(want))
        self.assertEqual(sum(sc.fills.values()), len(mine))
        self.assertEqual(len(sc.labels), len(lanes))
        # No steps, no chart (and no error).
        plain = os.path.join(self._tmp.name, "plain")
        subprocess.run([GEN, "--out", plain, "--procs", "1", "--format", "rpd3", "--ops", "20", "--seed", "7"],
                       check=True, stdout=subprocess.DEVNULL)
        page, _, _ = run("summary", plain, "-f", "html", "--section", "critical_path")
        self.assertNotIn("<svg", page)
        self.assertIn("(none: no member has step ranges", page)


class Query(unittest.TestCase):
    # The tests' mixed8 set (8 ranks x 2000 ops, rpd v2, rpd v3 and rocprofv3 files).
    @classmethod
    def setUpClass(cls):
        cls.job, cls.truth = fixture_set()
        cls.con = connect(cls.job)

    @classmethod
    def tearDownClass(cls):
        cls.con.close()

    SQL = "SELECT db, count(*) AS ops, sum(duration) AS gpu_ns, max(name) AS last_name FROM rocpd_ops GROUP BY db"

    def test_csv_equals_the_query(self):
        out, err, _ = run("query", self.job, self.SQL, "--format", "csv")
        self.assertEqual(err, "")
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["db", "ops", "gpu_ns", "last_name"])
        expected = self.con.execute(self.SQL).fetchall()
        self.assertEqual(rows[1:], [[str(v) for v in r] for r in expected])
        # Against the ground truth: every member's op count and summed durations.
        want = {f["db"]: (f["ops"], f["ops_sum_ns"]) for f in self.truth["files"]}
        self.assertEqual({r[0]: (int(r[1]), int(r[2])) for r in rows[1:]}, want)

    def test_json_and_several_statements(self):
        out, _, _ = run("query", self.job, self.SQL + "; CREATE TEMP TABLE t(x); SELECT NULL AS n, 2.5 AS r, 'a\"b' AS s",
                        "--format", "json")
        # One array per statement that returns columns, as `sqlite3 -json` prints them.
        first, second = out.strip().split("\n]\n")
        ops = json.loads(first + "\n]")
        self.assertEqual([(o["db"], o["ops"], o["gpu_ns"]) for o in ops],
                         [tuple(r[:3]) for r in self.con.execute(self.SQL)])
        self.assertEqual(json.loads(second), [{"n": None, "r": 2.5, "s": 'a"b'}])

    PUSHED = ("SELECT name, count(*), sum(duration), median(duration) FROM rocpd_ops WHERE kind = 'kernel' "
              "GROUP BY name ORDER BY 3 DESC, name")

    def test_pushed_down_query(self):
        # A query the GROUP BY rewrite takes (docs/pushdown.md) runs rewritten: the same output in
        # every format as the query run as typed (ROCPD_PUSHDOWN=0) and as SQLite's answer, column
        # names included; rocpd_ops itself is never scanned (rocpd_last_scan() names no table).
        as_typed = dict(os.environ, ROCPD_PUSHDOWN="0")
        for fmt in ("csv", "table", "json", "md"):
            pushed, err, _ = run("query", self.job, self.PUSHED, "--format", fmt)
            self.assertEqual(err, "")
            self.assertEqual(pushed, run("query", self.job, self.PUSHED, "--format", fmt, env=as_typed)[0], fmt)
            if fmt == "csv":
                cur = self.con.execute(self.PUSHED)
                rows = list(csv.reader(io.StringIO(pushed)))
                self.assertEqual(rows[0], [d[0] for d in cur.description])
                self.assertEqual(rows[1:], [[str(v) for v in r] for r in cur.fetchall()])
        scanned = "; SELECT json_extract(rocpd_last_scan(), '$.table') AS scanned"
        for env, table in ((None, ""), (as_typed, "rocpd_ops")):
            out, _, _ = run("query", self.job, self.PUSHED + scanned, "--format", "json", env=env)
            self.assertEqual(json.loads(out.strip().split("\n]\n")[1]), [{"scanned": table}])

    def test_csv_quoting(self):
        out, _, _ = run("query", "SELECT 'a,b' AS x, 'say \"hi\"' AS y, 'two\nlines' AS z, x'00ff' AS w", "--format", "csv")
        self.assertEqual(list(csv.reader(io.StringIO(out))), [["x", "y", "z", "w"], ["a,b", 'say "hi"', "two\nlines", "00ff"]])

    def test_empty_result_and_no_path(self):
        out, _, _ = run("query", self.job, "SELECT db FROM rocpd_members WHERE 0", "--format", "json")
        self.assertEqual(json.loads(out), [])
        out, _, _ = run("query", self.job, "SELECT db FROM rocpd_members WHERE 0", "--format", "csv")
        self.assertEqual(out, "db\n")
        out, _, _ = run("query", "SELECT demangle('_Z3foov') AS d")
        self.assertEqual(out.split(), ["d", "-----", "foo()"])

    def test_table_md_html(self):
        table, _, _ = run("query", self.job, self.SQL)
        lines = table.splitlines()
        self.assertEqual(lines[0].split(), ["db", "ops", "gpu_ns", "last_name"])
        self.assertEqual(len(lines), 2 + 8)
        md, _, _ = run("query", self.job, self.SQL, "--format", "md")
        self.assertEqual(md.splitlines()[1], "|---|---:|---:|---|")
        page, _, _ = run("query", self.job, self.SQL, "--format", "html")
        self.assertEqual(page.count("<tr>"), 1 + 8)

    def test_paths_globs_and_directories(self):
        def members(*paths):
            out, _, _ = run("query", *paths, "SELECT db FROM rocpd_members", "--format", "csv")
            return out.split()[1:]

        self.assertEqual(members(os.path.join(self.job, "rank[01].rpd")), ["rank0", "rank1"])
        self.assertEqual(members(os.path.join(self.job, "rank2.db"), os.path.join(self.job, "rank5.db")), ["rank2", "rank5"])
        self.assertEqual(len(members(self.job)), 8)
        # The same file twice is one member.
        self.assertEqual(members(self.job, os.path.join(self.job, "rank3.rpd")), members(self.job))


class Export(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.job, cls.truth = fixture_set()
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_export_")
        cls.out = cls._tmp.name
        cls.con = connect(cls.job)
        cls.first, cls.last = cls.truth["job"]["first_ns"], cls.truth["job"]["last_ns"]

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        cls._tmp.cleanup()

    def export(self, name, *args):
        path = os.path.join(self.out, name)
        out, err, _ = run("export", self.job, path, *args)
        self.assertEqual(err, "")
        return path, out

    def direct(self, name, lo, hi, options=None):
        """The events rocpd_export_trace writes for the window, called directly."""
        n, = self.con.execute("SELECT rocpd_export_trace(?, ?, ?, ?)",
                              (os.path.join(self.out, "direct_" + name), lo, hi, options)).fetchone()
        return n

    def check(self, name, lo, hi, *args, options=None):
        path, out = self.export(name, *args)
        n = self.direct(name, lo, hi, options)
        window = f" in [{lo if lo is not None else 'start'}, {hi if hi is not None else 'end'})" \
            if (lo, hi) != (None, None) else ""
        self.assertEqual(out, f"{path}: {n} events{window}\n")
        with open(path) as f:
            self.assertEqual(len(json.load(f)["traceEvents"]), n)

    def test_whole_job(self):
        self.check("all.json", None, None)

    def test_window_as_share_of_the_job(self):
        span = self.last - self.first
        # Rounded to the nearest ns, halves up (this job's 10 % is a half ns).
        self.check("pct.json", self.first + (span * 10 + 50) // 100, self.first + (span * 25 + 50) // 100,
                   "--start", "10%", "--end", "25%")
        self.check("pct2.json", self.first + (span * 125 + 500) // 1000, None, "--start", "12.5%")

    def test_window_as_time_since_the_start(self):
        self.check("ms.json", self.first + 10_000_000, self.first + 15_000_000, "--start", "10ms", "--end", "0.015s")
        self.check("ns.json", self.first + 5_000_000, None, "--start", "5000000")
        self.check("us.json", None, self.first + 2_500, "--end", "2.5us")

    def test_window_as_timestamps(self):
        lo, hi = self.first + 1_000_000, self.first + 9_000_000
        self.check("abs.json", lo, hi, "--start", f"@{lo}", "--end", f"@{hi}")

    def test_window_as_range_names(self):
        lo, = self.con.execute("SELECT min(start) FROM rocpd_ranges WHERE name = 'forward'").fetchone()
        hi, = self.con.execute("SELECT max(\"end\") FROM rocpd_ranges WHERE name = 'backward'").fetchone()
        self.check("ranges.json", lo, hi, "--start", "forward", "--end", "range:backward")
        lo2, hi2 = self.con.execute("SELECT min(start), max(\"end\") FROM rocpd_ranges WHERE name = 'optimizer.step'").fetchone()
        self.check("range.json", lo2, hi2, "--range", "optimizer.step")

    def test_members_and_pftrace(self):
        self.check("r0.json", None, None, "--db", "rank0", "--db", "rank3", options='{"db": ["rank0", "rank3"]}')
        path, out = self.export("job.pftrace")
        n, = self.con.execute("SELECT rocpd_export_trace(?)", (os.path.join(self.out, "direct.pftrace"),)).fetchone()
        self.assertEqual(out, f"{path}: {n} packets\n")

    def test_bad_windows(self):
        path = os.path.join(self.out, "bad.json")
        for args, message in [
            (["--start", "nope"], "--start 'nope': neither a time (12000000, 12ms, 1.5s, 25%, @1000079750000000) nor "
                                  "the name of a CPU range (rocpd_ranges); list the names with: rocpd-ext query PATH... "),
            (["--range", "nope"], "--range 'nope': no CPU range (rocpd_ranges) is named 'nope'"),
            (["--start", "range:5ms"], "--start 'range:5ms': no CPU range (rocpd_ranges) is named '5ms'"),
            (["--start", "150%"], "--start '150%': a share of the job is a number from 0 to 100 followed by %"),
            (["--end", "@12x"], "--end '@12x': an absolute time is @ followed by an integer ns"),
        ]:
            out, err, rc = run("export", self.job, path, *args, check=False)
            self.assertEqual((rc, out), (1, ""), args)
            self.assertTrue(err.startswith("rocpd-ext: " + message), err)
            self.assertEqual(err.count("\n"), 1)
        self.assertFalse(os.path.exists(path))

    def test_times_beyond_an_int64(self):
        # Issue 31 item 9: these once wrapped negative and exported the whole job.
        path = os.path.join(self.out, "huge.json")
        for option, value in (("--start", "9223372037s"), ("--start", "99999999999999999999"),
                              ("--end", "9223372036854775807ns"), ("--start", "@99999999999999999999"),
                              ("--end", "1e30")):
            out, err, rc = run("export", self.job, path, option, value, check=False)
            self.assertEqual((rc, out), (1, ""), (option, value, err))
            if value != "1e30":
                self.assertTrue(err.startswith(f"rocpd-ext: {option} '{value}': beyond the timestamps an int64 of ns "
                                               "holds"), err)
            self.assertEqual(err.count("\n"), 1)
        self.assertFalse(os.path.exists(path))

    def test_empty_window_speaks_of_the_options(self):
        # The times were given relative to the job's start: no hint to add rocpd_job_start().
        path = os.path.join(self.out, "late.json")
        out, err, rc = run("export", self.job, path, "--start", "1000s", check=False)
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, f"rocpd-ext: --start 1000s: the window [{self.first + 1000 * 10**9}, end) holds no op or "
                              f"API call: it starts after the job's last timestamp; the job runs from {self.first} to "
                              f"{self.last} ns ({(self.last - self.first) / 1e6:.2f} ms); times such as 12ms or 25% count "
                              "from the job's start, @T is a timestamp as rocpd_ops shows it\n")
        self.assertNotIn("rocpd_job_start", err)
        self.assertFalse(os.path.exists(path))


class Errors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.job, _ = fixture_set()
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_errors_")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def fails(self, status, message, *args, env=None):
        out, err, rc = run(*args, env=env, check=False)
        self.assertEqual(rc, status, err)
        self.assertEqual(out, "")
        self.assertTrue(err.startswith("rocpd-ext: " + message), err)
        self.assertEqual(err.count("\n"), 1, err)

    def test_bad_paths(self):
        missing = os.path.join(self._tmp.name, "missing.rpd")
        self.fails(1, f"rocpd_open: '{missing}': no such file or directory", "summary", missing, "--format", "csv")
        self.fails(1, "rocpd_open: no file matches", "summary", os.path.join(self._tmp.name, "*.nothing"))
        notes = os.path.join(self._tmp.name, "notes.txt")
        with open(notes, "w") as f:
            f.write("not a database\n")
        self.fails(1, "rocpd_open: ", "query", notes, "SELECT 1")

    def test_bad_sql(self):
        self.fails(1, 'near "SELEC": syntax error', "query", self.job, "SELEC 1", "--format", "csv")
        self.fails(1, "no such table: nope", "query", self.job, "SELECT * FROM nope", "--format", "json")

    def test_usage(self):
        self.fails(2, "a command is needed: summary, query, export, compare")
        self.fails(2, "unknown command 'sumary' (commands: summary, query, export, compare)", "sumary", self.job)
        self.fails(2, "unknown format 'xml' (table, csv, json, md or html) (see rocpd-ext summary --help)",
                   "summary", self.job, "--format", "xml")
        self.fails(2, "--top needs a positive integer, got '0'", "summary", self.job, "--top", "0")
        self.fails(2, "unknown section 'gpus' (findings, job, members, breakdown, busy, copies, kernels, roofline, apis, other_calls, "
                      "stragglers, steps, critical_path, idle)",
                   "summary", self.job, "--section", "gpus")
        self.fails(2, "unknown option '--top' for query", "query", self.job, "SELECT 1", "--top", "3")
        self.fails(2, "summary needs at least one PATH", "summary")
        self.fails(2, "query needs the SQL to run", "query")
        self.fails(2, "export needs at least one PATH and the OUT file", "export", self.job)
        self.fails(2, "--range replaces --start and --end", "export", self.job, "x.json", "--range", "a", "--start", "1")
        self.fails(2, "--format needs a value", "summary", self.job, "--format")

    def test_help(self):
        for cmd in ("summary", "query", "export"):
            for args in ([cmd, "--help"], ["--help", cmd], [cmd, self.job, "-h"]):
                out, err, rc = run(*args)
                self.assertEqual((rc, err), (0, ""))
                self.assertTrue(out.startswith(f"usage: rocpd-ext {cmd} "), out)
        out, _, _ = run("--help")
        self.assertTrue(out.startswith("usage: rocpd-ext COMMAND"))
        out, _, _ = run("--version")
        self.assertEqual(out, "rocpd-ext 0.1.0\n")

    def test_ctrl_c_interrupts(self):
        # An endless query, interrupted at several moments (loading or opening, running); the
        # first delay leaves the process the time to reach main (before, SIGINT kills it at once).
        endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        for delay in (0.3, 0.8, 2.0):
            p = subprocess.Popen([CLI, "query", self.job, endless, "--format", "csv"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            time.sleep(delay)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
            self.assertEqual((p.returncode, out, err), (130, "", "rocpd-ext: interrupted\n"), delay)

    def test_term_and_hup_interrupt_and_leave_no_temporary_file(self):
        # Issue 31 item 13: SIGTERM (a scheduler's kill) and SIGHUP (a closed terminal) ended the tool at
        # once, leaving a JSON trace's converted database in the temporary directory. They stop it as
        # Ctrl-C does now, with the shells' status 128 + the signal, and leave nothing.
        tmpdir = os.path.join(self._tmp.name, "term_tmp")
        os.makedirs(tmpdir, exist_ok=True)
        trace = kineto_trace(os.path.join(self._tmp.name, "term.json"))
        endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        for sig in (signal.SIGTERM, signal.SIGHUP):
            p = subprocess.Popen([CLI, "query", trace, endless, "--format", "csv"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=dict(os.environ, SQLITE_TMPDIR=tmpdir))
            # The converted database, beside the process's lock file (rocpd-kineto-<token>.lock).
            def databases():
                return [n for n in os.listdir(tmpdir) if n.endswith(".db")]
            deadline = time.monotonic() + 60
            while not databases() and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            self.assertEqual(len(databases()), 1, "the trace is being converted, or open")
            time.sleep(0.2)
            p.send_signal(sig)
            out, err = p.communicate(timeout=60)
            self.assertEqual((p.returncode, out, err), (128 + sig, "", "rocpd-ext: interrupted\n"), sig)
            self.assertEqual(os.listdir(tmpdir), [], sig)

    def test_library_lookup(self):
        env = dict(os.environ, ROCPD_EXT_LIBRARY="/nonexistent/librocpd_ext.so")
        self.fails(1, "ROCPD_EXT_LIBRARY='/nonexistent/librocpd_ext.so': no such file", "query", "SELECT 1", env=env)
        # A copy of the tool with no library beside it or in ../lib names the places it looked in.
        bindir = os.path.join(self._tmp.name, "alone", "bin")
        os.makedirs(bindir)
        shutil.copy(CLI, bindir)
        env = {k: v for k, v in os.environ.items() if k != "ROCPD_EXT_LIBRARY"}
        p = subprocess.run([os.path.join(bindir, "rocpd-ext"), "query", "SELECT 1"], capture_output=True,
                                         text=True, env=env)
        self.assertEqual((p.returncode, p.stdout), (1, ""))
        self.assertEqual(p.stderr, f"rocpd-ext: cannot find librocpd_ext.so (looked in: {bindir}/librocpd_ext.so, "
                                   f"{os.path.dirname(bindir)}/lib/librocpd_ext.so); set ROCPD_EXT_LIBRARY to its path\n")
        # The build tree's tool finds the library beside it without the variable.
        p = subprocess.run([CLI, "query", "SELECT rocpd_version()", "--format", "csv"],
                                         capture_output=True, text=True, env=env)
        self.assertEqual(p.stdout, "rocpd_version()\n0.1.0\n", p.stderr)


@unittest.skipUnless(os.path.isdir(DATA), f"{DATA} absent (the real traces are not part of the project)")
class RealTraces(unittest.TestCase):
    """What a user tries first: the real files of ../shared/data (issue 30, "Must show")."""

    def shares(self, path):
        want = breakdown_brute_force(connect(path))
        span = sum(w["span"] for w in want.values())
        return len(want), span, {k: 100.0 * sum(w[k] for w in want.values()) / span
                                 for k in ("compute", "comm", "copy", "idle")}

    def test_nsys_copies_lead(self):
        path = os.path.join(DATA, "nsys_h100_2gpu.sqlite")
        gpus, span, share = self.shares(path)
        self.assertLess(share["compute"], 3)
        self.assertGreater(share["copy"], 96)
        out, err, _ = run("summary", path)
        self.assertEqual(err, "")
        self.assertEqual(out.splitlines()[0], f"GPU time ({gpus} GPUs, {span / 1e9:.3f} s): {shares_text(share)}")
        self.assertIn("CopyHostToDevice", out.split("Copies and fills")[1].split("\n\n")[0])

    def test_kineto_ranks_name_their_straggler(self):
        paths = [os.path.join(DATA, f"kineto_rank{r}.json.gz") for r in (0, 1)]
        out, err, _ = run("summary", *paths, "-f", "csv", "--section", "stragglers", "--section", "steps")
        self.assertEqual(err, "")
        (sh, srows), (th, trows) = csv_blocks(out)
        con = connect(*paths)
        for header, rows, view in ((sh, srows, "rocpd_stragglers"), (th, trows, "rocpd_step_summary")):
            cur = con.execute(f"SELECT * FROM {view}")
            want = cur.fetchall()
            self.assertEqual(header, [d[0] for d in cur.description])
            self.assertEqual(len(rows), len(want))
            self.assertTrue(all(same(c, v) for r, w in zip(rows, want) for c, v in zip(r, w)), view)
        self.assertEqual(srows[0][0], "kineto_rank1")
        table, _, _ = run("summary", *paths, "--section", "stragglers")
        self.assertIn("kineto_rank1", table.split("Stragglers")[1])

    def test_gpu_annotations_are_no_api_calls(self):
        path = os.path.join(DATA, "kineto_mi250_rocm.json.gz")
        out, _, _ = run("summary", path, "-f", "csv", "--section", "apis", "-n", ALL)
        header, rows = csv_blocks(out)[0]
        con = connect(path)
        want = con.execute("SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE domain NOT IN "
                           "('marker', 'gpu_annotation', 'cuda_sync') GROUP BY name "
                           "ORDER BY sum(duration) DESC, name").fetchall()
        self.assertEqual([(r[4], int(r[2]), int(r[1])) for r in rows], [tuple(w) for w in want])
        annotations = {n for n, in con.execute("SELECT name FROM rocpd_apis WHERE domain = 'gpu_annotation'")}
        self.assertTrue(annotations)
        self.assertFalse(annotations & {r[4] for r in rows})


class Compare(unittest.TestCase):
    """Two generated runs of one workload: B captured half the steps, and its largest kernel runs
    twice as long per call. By raw totals B looks faster everywhere; per step the slowed kernel
    changed most."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_compare_")
        cls.a, cls.b = os.path.join(cls._tmp.name, "base"), os.path.join(cls._tmp.name, "cand")
        for out, ops, steps in ((cls.a, 4000, 8), (cls.b, 1500, 3)):
            subprocess.run([GEN, "--out", out, "--procs", "2", "--format", "rpd3", "--ops", str(ops), "--seed", "7",
                            "--steps", str(steps)], check=True, stdout=subprocess.DEVNULL)
        con = connect(cls.a)
        cls.slowed, = con.execute("SELECT name FROM rocpd_ops WHERE kind = 'kernel' GROUP BY name "
                                  "ORDER BY sum(duration) DESC LIMIT 1").fetchone()
        cls.shown, = con.execute("SELECT rocpd_display_name(?)", (cls.slowed,)).fetchone()
        con.close()
        for name in os.listdir(cls.b):
            if name.endswith(".rpd"):
                f = sqlite3.connect(os.path.join(cls.b, name))
                f.execute('UPDATE rocpd_op SET "end" = start + 2 * ("end" - start) WHERE description_id IN '
                          "(SELECT id FROM rocpd_string WHERE string = ?)", (cls.slowed,))
                f.commit()
                f.close()

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def durations(self, path, kind_sql):
        """{name: [durations]} of one side by brute force, and its step count."""
        con = connect(path)
        groups = defaultdict(list)
        for name, duration in con.execute(kind_sql):
            groups[name].append(duration)
        steps = len(con.execute("SELECT * FROM rocpd_ranges WHERE name LIKE 'ProfilerStep#%'").fetchall())
        con.close()
        return groups, steps

    def check_paired(self, rows, key, ga, gb, sa, sb):
        """Every row of a paired section against compare_truth's brute force: calls, totals,
        medians, p value, verdict, impact, and the order."""
        want = expected_rows(ga, gb, sa, sb)
        self.assertEqual([r[key] for r in rows], [w[0] for w in want][:len(rows)])
        for r, w in zip(rows, want):
            self.assertEqual(r["verdict"], w[1], r)
            # Past 5,000 calls a side's test and median read a sample of 5,000 (docs/cli.md).
            capped = max(len(ga.get(w[0], [])), len(gb.get(w[0], []))) > 5000
            if capped:
                self.assertTrue(0 <= float(r["p_value"]) <= 1, r)
                continue
            self.assertTrue(same_p(r["p_value"], w[2]), (r, w))
            if w[3] is None:
                self.assertIn(r["impact_ns"], ("", None))
            else:
                self.assertAlmostEqual(float(r["impact_ns"]), w[3], delta=0.051)
        for r in rows:
            a, b = ga.get(r[key], []), gb.get(r[key], [])
            self.assertEqual((int(r["calls_a"]), int(r["calls_b"]), int(r["total_a_ns"]), int(r["total_b_ns"])),
                             (len(a), len(b), sum(a), sum(b)))
            for col, d in (("med_a_ns", a), ("med_b_ns", b)):
                value = r[col]
                if len(d) > 5000:
                    self.assertGreater(float(value), 0)
                elif not d:
                    self.assertIn(value, ("", None))
                else:
                    self.assertAlmostEqual(float(value), statistics.median(d), delta=0.051)

    def test_the_slowed_kernel_ranks_first(self):
        out, err, _ = run("compare", self.a, self.b, "-f", "csv", "--section", "kernels", "-n", ALL)
        self.assertEqual(err, "")
        header, rows = csv_blocks(out)[0]
        self.assertEqual(header, ["kernel", "calls_a", "calls_b", "calls_per_step_a", "calls_per_step_b", "total_a_ns",
                                  "total_b_ns", "med_a_ns", "med_b_ns", "med_ratio", "p_value", "verdict", "impact_ns"])
        rows = [dict(zip(header, r)) for r in rows]
        first = rows[0]
        self.assertEqual((first["kernel"], first["verdict"]), (self.shown, "slower"))
        self.assertLess(int(first["total_b_ns"]), int(first["total_a_ns"]))  # raw totals hide it
        self.assertGreater(float(first["med_ratio"]), 1.8)
        sql = "SELECT name, duration FROM rocpd_ops WHERE kind = 'kernel'"
        (ka, sa), (kb, sb) = self.durations(self.a, sql), self.durations(self.b, sql)
        self.assertEqual((sa, sb), (16, 6))
        con = connect()
        names = {n: con.execute("SELECT rocpd_display_name(?)", (n,)).fetchone()[0] for n in set(ka) | set(kb)}
        self.assertEqual(len(set(names.values())), len(names))  # no two kernels share a shown name here
        self.assertEqual(len(rows), len(names))
        self.check_paired(rows, "kernel", {names[n]: d for n, d in ka.items()}, {names[n]: d for n, d in kb.items()},
                          sa, sb)
        for r in rows:
            self.assertAlmostEqual(float(r["calls_per_step_a"]), int(r["calls_a"]) / sa, delta=0.0051)

    def test_runs_apis_copies_and_formats(self):
        out, _, _ = run("compare", self.a, self.b, "-f", "json", "--label", "base", "--label", "cand", "-n", "3")
        doc = json.loads(out)
        self.assertEqual(list(doc), ["warnings", "time", "runs", "kernels", "apis", "copies"])
        self.assertEqual(doc["warnings"], [])
        runs = {r["property"]: r for r in doc["runs"]}
        self.assertEqual((runs["members"]["a"], runs["members"]["b"]), (2, 2))
        self.assertEqual((runs["steps"]["a"], runs["steps"]["b"], runs["steps"]["differs"]), (16, 6, "*"))
        self.assertEqual((runs["GPU ops"]["a"], runs["GPU ops"]["b"]), (8000, 3000))
        self.assertIsNone(runs["formats"]["differs"])
        self.assertEqual([len(doc[k]) for k in ("kernels", "apis", "copies")], [3, 3, 3])
        # API calls (runtime calls only: the generator's are all hip*) and copies against the brute force.
        for section, key, sql in (
                ("apis", "api", "SELECT name, duration FROM rocpd_apis WHERE coalesce(domain, '') NOT IN "
                                "('marker', 'gpu_annotation', 'cuda_sync')"),
                ("copies", "name", "SELECT kind || ' ' || name, duration FROM rocpd_ops WHERE kind IN ('copy', 'fill')")):
            (ga, sa), (gb, sb) = self.durations(self.a, sql), self.durations(self.b, sql)
            self.check_paired(doc[section], key, ga, gb, sa, sb)
        table, _, _ = run("compare", self.a, self.b, "--label", "base", "--label", "cand", "-n", "3")
        self.assertTrue(table.startswith("a = base: 2 members, b = cand: 2 members\nmean step time "), table)
        self.assertIn(f"Runs: a = base ({self.a}), b = cand ({self.b})", table)
        for fmt in ("md", "html", "csv"):
            out, err, _ = run("compare", self.a, self.b, "-f", fmt, "-n", "2")
            self.assertIn(self.shown.replace("<", "&lt;") if fmt != "csv" else self.shown, out)

    def test_without_steps_ranks_per_second(self):
        a, b = os.path.join(self._tmp.name, "nosteps_a"), os.path.join(self._tmp.name, "nosteps_b")
        for out, ops in ((a, 1500), (b, 700)):
            subprocess.run([GEN, "--out", out, "--procs", "1", "--format", "rpd2", "--ops", str(ops), "--seed", "9"],
                           check=True, stdout=subprocess.DEVNULL)
        out, _, _ = run("compare", a, b, "-f", "csv", "--section", "kernels", "-n", ALL)
        header, rows = csv_blocks(out)[0]
        self.assertIn("calls_per_s_a", header)
        rows = [dict(zip(header, r)) for r in rows]
        sql = "SELECT name, duration FROM rocpd_ops WHERE kind = 'kernel'"
        (ka, _), (kb, _) = self.durations(a, sql), self.durations(b, sql)
        span = {}
        for side, path in (("a", a), ("b", b)):
            con = connect(path)
            span[side] = con.execute("SELECT (max(last_ns) - min(first_ns)) / 1e9 FROM rocpd_members").fetchone()[0]
            con.close()
        con = connect()
        shown = {n: con.execute("SELECT rocpd_display_name(?)", (n,)).fetchone()[0] for n in set(ka) | set(kb)}
        self.check_paired(rows, "kernel", {shown[n]: d for n, d in ka.items()}, {shown[n]: d for n, d in kb.items()},
                          span["a"], span["b"])
        table, _, _ = run("compare", a, b, "--section", "kernels")
        self.assertIn("ranked by the significant changes per second of capture", table)

    def test_errors(self):
        def fails(status, message, *args):
            out, err, rc = run("compare", *args, check=False)
            self.assertEqual((rc, out), (status, ""), err)
            self.assertTrue(err.startswith("rocpd-ext: " + message), err)
            self.assertEqual(err.count("\n"), 1)

        fails(2, "compare needs two sides, A and B", self.a)
        fails(2, "compare needs two sides, A and B", self.a, self.b, self.a)
        fails(1, "compare: the two sides need different labels, both are 'x'", self.a, self.b, "--label", "x",
              "--label", "x")
        fails(1, f"compare: B '{self.a}' holds no trace that A '{self.a}' does not", self.a, self.a)
        fails(2, "unknown section 'idle' (time, runs, kernels, apis, copies)", self.a, self.b, "--section", "idle")


class Warnings(unittest.TestCase):
    """Each warning of the summary from a fixture that has the trap it names (the demo job has
    none: Summary checks its stderr is empty)."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_warn_")
        cls.dir = cls._tmp.name

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def warnings(self, *paths):
        out, err, rc = run("summary", *paths, "--section", "job")
        self.assertTrue(out)
        lines = err.splitlines()
        for line in lines:
            self.assertTrue(line.startswith("rocpd-ext: warning: "), line)
        return [line[len("rocpd-ext: warning: "):] for line in lines]

    def path(self, *parts):
        p = os.path.join(self.dir, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def test_counter_collection(self):
        out = self.path("counters", "x")
        subprocess.run([GEN, "--out", os.path.dirname(out), "--procs", "1", "--format", "rocpd", "--ops", "300",
                        "--seed", "3", "--counters", "2"], check=True, stdout=subprocess.DEVNULL)
        self.assertEqual(self.warnings(os.path.dirname(out)),
                         ["rank0: its kernels carry hardware counter values: a counter-collection trace (CUPTI range "
                          "profiler, kernel serialisation): its kernel durations are those of the profiling passes, "
                          "not of a normal run"])
        # Every kernel equally long (12 kernels of 2 names, 5 us each).
        uniform = make_rpd(self.path("uniform", "u.rpd"),
                           ops=[(0, 1_000_000 + 10_000 * i, 1_005_000 + 10_000 * i, 5 if i % 2 else 6, 2)
                                for i in range(12)],
                           strings={1: "", 2: "KernelExecution", 5: "kernel_a", 6: "kernel_b"})
        self.assertEqual(self.warnings(uniform),
                         ["u: every one of its 12 kernels (2 names) lasts exactly 5.00 us: a counter-collection trace "
                          "(CUPTI range profiler, kernel serialisation): its kernel durations are those of the "
                          "profiling passes, not of a normal run"])
        real = os.path.join(DATA, "kineto_counters.json.gz")
        if os.path.exists(real):
            self.assertEqual(self.warnings(real),
                             ["kineto_counters: every one of its 77 kernels (16 names) lasts exactly 121.43 ms, and its "
                              "kernels carry hardware counter values: a counter-collection trace (CUPTI range "
                              "profiler, kernel serialisation): its kernel durations are those of the profiling "
                              "passes, not of a normal run"])

    def test_runs_that_share_no_time(self):
        early = make_rpd(self.path("disjoint", "early.rpd"), ops=[(0, 1_000_000, 2_000_000, 5, 2)])
        late = make_rpd(self.path("disjoint", "late.rpd"), ops=[(0, 9_000_000_000, 9_000_001_000, 5, 2)])
        self.assertEqual(self.warnings(early, late),
                         ["the members fall into 2 groups whose times do not overlap (early | late; up to 8.998 s "
                          "apart): different runs opened as one job? The job's span, idle time and shares count the "
                          "time between them; open each run alone, or compare two with rocpd-ext compare"])

    def test_one_trace_opened_twice(self):
        job, _ = fixture_set()
        copy = self.path("twice", "rank3.rpd")
        shutil.copy(os.path.join(job, "rank3.rpd"), copy)
        warnings = self.warnings(job, copy)
        self.assertEqual(len(warnings), 1, warnings)
        self.assertRegex(warnings[0], r"^rank3, rank3_\w+ are one trace opened 2 times \(the same content: format, "
                                      r"pids, times, ops and API calls\): every figure counts it 2 times$")

    def test_devices_world_sizes_and_no_gpu_ops(self):
        a = kineto_trace(self.path("mixed", "a.json"), world_size=2, annotation=True)
        b = kineto_trace(self.path("mixed", "b.json"), device="AMD Instinct MI300X", world_size=4, rank=1)
        c = kineto_trace(self.path("mixed", "c.json"), kernels=0)
        self.assertEqual(self.warnings(a, b, c), [
            "the members ran on different devices (b: AMD Instinct MI300X; a and c: NVIDIA A100-SXM4-80GB): they are "
            "not ranks of one job, and figures that pool them mix two setups",
            "the members ran on different world sizes (a: 2; b: 4): they are not ranks of one job, and figures that "
            "pool them mix two setups",
            "c holds no GPU op (GPU activity was not traced, or a host-only process): it counts in no GPU figure"])
        # The GPU annotation (ProfilerStep#1 on the GPU's row) is no API call.
        out, _, _ = run("summary", a, "-f", "csv", "--section", "apis")
        self.assertEqual([r[-1] for r in csv_blocks(out)[0][1]], ["cudaLaunchKernel"])
        # The human formats carry them too.
        for fmt, mark in (("md", "**warning:** "), ("html", "<strong>warning:</strong> ")):
            out, _, _ = run("summary", a, b, "-f", fmt, "--section", "job")
            self.assertIn(mark + "the members ran on different devices", out)


class QueryErrors(unittest.TestCase):
    """Errors that say what to do (issue 30 item 6)."""

    @classmethod
    def setUpClass(cls):
        cls.job, _ = fixture_set()

    def test_a_path_where_the_sql_goes(self):
        for args in ([self.job], [os.path.join(self.job, "rank0.rpd")], ["runs/*.db"]):
            out, err, rc = run("query", *args, check=False)
            self.assertEqual((rc, out), (2, ""))
            self.assertEqual(err, f"rocpd-ext: missing SQL: the last argument '{args[-1]}' is a path, and the SQL to "
                                  "run comes after the paths (rocpd-ext query PATH... SQL) (see rocpd-ext query --help)\n")

    def test_the_nearest_name(self):
        for sql, message in (("SELECT * FROM rocpd_stragler", "no such table: rocpd_stragler (did you mean "
                                                               "rocpd_stragglers?)"),
                             ("SELECT * FROM kernel_summary", "no such table: kernel_summary (did you mean "
                                                              "rocpd_kernel_summary?)"),
                             ("SELECT * FROM main.rocpd_opps", "no such table: main.rocpd_opps (did you mean rocpd_ops?)"),
                             ("SELECT demangel('x')", "no such function: demangel (did you mean demangle?)"),
                             ("SELECT * FROM nope", "no such table: nope")):
            out, err, rc = run("query", self.job, sql, check=False)
            self.assertEqual((rc, out, err), (1, "", f"rocpd-ext: {message}\n"))

    def test_completed_statements_print_before_the_error(self):
        for fmt, shown in (("table", "a\n-\n1\n"), ("csv", "a\n1\n"), ("json", '[\n {"a": 1}\n]\n'),
                           ("md", "| a |\n|---:|\n| 1 |\n")):
            out, err, rc = run("query", self.job, "SELECT 1 AS a; SELECT * FROM nope", "-f", fmt, check=False)
            self.assertEqual((rc, out), (1, shown), fmt)
            self.assertEqual(err, "rocpd-ext: no such table: nope\n")

    def test_tables_read_before_any_trace_is_open(self):
        notice = ("rocpd-ext: notice: no trace is open, so rocpd_ops and the other tables over the members answer "
                  "with no rows; name the traces before the SQL (rocpd-ext query PATH... SQL) or call rocpd_open in it\n")
        for sql in ("SELECT count(*) AS n FROM rocpd_ops", "SELECT count(*) AS n FROM rocpd_steps",
                    "SELECT count(*) AS n FROM rocpd_kernel_stacks; SELECT count(*) AS n FROM rocpd_apis"):
            out, err, _ = run("query", sql, "-f", "csv")
            self.assertEqual((out.split("\n")[:2], err), (["n", "0"], notice), sql)
        # Opened in the SQL, or as PATH, or reading no member table: no notice.
        for args in ([f"SELECT rocpd_open('{self.job}') AS n; SELECT count(*) AS n FROM rocpd_ops"],
                     [self.job, "SELECT count(*) AS n FROM rocpd_ops"], ["SELECT demangle('_Z1fv') AS n"],
                     ["SELECT count(*) AS n FROM rocpd_members"]):
            _, err, _ = run("query", *args)
            self.assertEqual(err, "", args)
        # The views and the analyses over them refuse to answer (docs/federation.md's one rule).
        for sql in ("SELECT * FROM rocpd_busy", "SELECT * FROM rocpd_stragglers"):
            _, err, rc = run("query", sql, check=False)
            self.assertEqual(rc, 1, sql)
            self.assertIn("no trace is open", err, sql)


class WritesNoFile(unittest.TestCase):
    """Issue 31 item 12: the query command's connection writes no file."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_ro_")
        self.dir = self._tmp.name
        job, _ = fixture_set()
        self.member = os.path.join(self.dir, "m.rpd")
        shutil.copy(os.path.join(job, "rank0.rpd"), self.member)

    def tearDown(self):
        self._tmp.cleanup()

    def content(self):
        with open(self.member, "rb") as f:
            return f.read()

    def test_attach_is_read_only(self):
        before = self.content()
        for sql in (f"ATTACH '{self.member}' AS a; DELETE FROM a.rocpd_op",
                    f"ATTACH '{self.member}' AS a; DROP TABLE a.rocpd_op",
                    f"ATTACH '{self.member}' AS a; PRAGMA a.user_version = 7",
                    "CREATE TABLE t(x)"):
            out, err, rc = run("query", sql, check=False)
            self.assertEqual((rc, out), (1, ""), sql)
            self.assertEqual(err, "rocpd-ext: attempt to write a readonly database (this connection writes no file, "
                                  "docs/cli.md: scratch tables go in TEMP, e.g. CREATE TEMP TABLE; rocpd-ext query "
                                  "--allow-write lifts this)\n", sql)
        self.assertEqual(self.content(), before)
        # Reading an attached file works, and so do TEMP tables.
        out, _, _ = run("query", f"ATTACH '{self.member}' AS a; CREATE TEMP TABLE t AS SELECT count(*) AS n FROM "
                                 "a.rocpd_op; SELECT n FROM t", "-f", "csv")
        self.assertEqual(out, "n\n2000\n")

    def test_no_file_is_created(self):
        missing = os.path.join(self.dir, "typo.rpd")
        for sql, message in (
                (f"ATTACH '{missing}' AS a", f"ATTACH '{missing}': no such file (the connection is read-only: ATTACH "
                                             "opens existing databases, read-only)"),
                (f"ATTACH 'file:{missing}?mode=rwc' AS a", "access mode not allowed: rwc"),
                (f"VACUUM INTO '{missing}'", f"VACUUM INTO '{missing}' writes a file, and this connection writes "
                                             "none (docs/cli.md); use rocpd-ext query --allow-write"),
                (f"SELECT rocpd_import('{self.member}', '{missing}')",
                 "rocpd_import() writes a file, and this connection writes none (docs/cli.md); use rocpd-ext query "
                 "--allow-write to call it"),
                (f"SELECT rocpd_export_trace('{missing}.json')",
                 "rocpd_export_trace() writes a file, and this connection writes none (docs/cli.md); use rocpd-ext "
                 "export, or rocpd-ext query --allow-write to call it")):
            out, err, rc = run("query", self.member, sql, check=False)
            self.assertEqual((rc, out, err), (1, "", f"rocpd-ext: {message}\n"), sql)
        self.assertEqual(sorted(os.listdir(self.dir)), ["m.rpd"])

    def test_allow_write(self):
        copy = os.path.join(self.dir, "copy.db")
        run("query", "--allow-write", f"ATTACH '{self.member}' AS a; VACUUM a INTO '{copy}'")
        out, _, _ = run("query", copy, "SELECT count(*) AS n FROM rocpd_ops", "-f", "csv")
        self.assertEqual(out, "n\n2000\n")


class OutputHygiene(unittest.TestCase):
    """Issue 31 item 15: what the formats print is text a terminal, a Markdown renderer and a JSON
    parser take as it is meant."""

    def test_markdown_escapes(self):
        out, _, _ = run("query", "SELECT 'a\\|b' AS x, '<script>alert(1)</script>' AS y, 'c & d' AS z", "-f", "md")
        self.assertEqual(out, "| x | y | z |\n|---|---|---|\n| a\\\\\\|b | &lt;script&gt;alert(1)&lt;/script&gt; | "
                              "c &amp; d |\n")
        # GFM splits a row at a pipe not preceded by an odd number of backslashes: three cells.
        row = out.splitlines()[2]
        cells = re.split(r"(?<!\\)((?:\\\\)*)\|", row.strip("|"))
        self.assertEqual(len([c for c in cells[::2]]), 3, cells)

    def test_control_characters(self):
        out, _, _ = run("query", "SELECT char(27) || '[31mred' || char(155) || 'x' AS z, 'a' || char(9) || 'b' AS t")
        self.assertNotIn("\x1b", out)
        self.assertNotIn("\x9b", out)
        self.assertEqual(out.splitlines()[2].split(), ["\\x1b[31mred\\u009bx", "a", "b"])

    def test_file_names_that_are_not_utf8(self):
        with tempfile.TemporaryDirectory(prefix="rocpd_cli_bytes_") as tmp:
            job, _ = fixture_set()
            name = os.path.join(os.fsencode(tmp), b"r\xff\xfe.rpd")
            shutil.copy(os.path.join(job, "rank0.rpd"), name)
            for fmt in ("json", "csv", "table", "md", "html"):
                p = subprocess.run([CLI, "query", tmp, "SELECT db, path FROM rocpd_members", "-f", fmt],
                                   capture_output=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stderr)
                text = p.stdout.decode("utf-8")  # strict: fails on any byte that is not UTF-8
                self.assertIn("r\ufffd\ufffd", text)
            doc = json.loads(subprocess.run([CLI, "query", tmp, "SELECT db FROM rocpd_members", "-f", "json"],
                                            capture_output=True).stdout.decode("utf-8"))
            self.assertEqual(doc, [{"db": "r\ufffd\ufffd"}])

    def test_a_full_output_device_fails(self):
        for args in (["--help"], ["summary", "--help"], ["--version"], ["query", "SELECT 1"]):
            with open("/dev/full", "w") as full:
                p = subprocess.run([CLI, *args], stdout=full, stderr=subprocess.PIPE, text=True)
            self.assertEqual((p.returncode, p.stderr), (1, "rocpd-ext: cannot write the output\n"), args)

    def test_table_output_is_streamed(self):
        # 300k rows of 6 columns: held whole, the table once took ~1.5 kB a row (450 MB here).
        sql = ("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) "
               "SELECT i, i * 2 AS j, 'name_' || i AS n, i * 0.5 AS r, hex(i) AS h, NULL AS z FROM c")
        rc, small = peak_rss_kb(["query", "SELECT 1"])
        self.assertEqual(rc, 0)
        for fmt in ("table", "md", "html", "csv"):
            rc, peak = peak_rss_kb(["query", sql, "-f", fmt])
            self.assertEqual(rc, 0)
            self.assertLess(peak - small, 40_000, f"{fmt}: peak {peak} kB, a trivial query {small} kB")
        # Sized by the first 1000 rows: a wider cell after them widens its own line only.
        out, _, _ = run("query", "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500) "
                                 "SELECT i, CASE i WHEN 1200 THEN 'a much longer text' ELSE 'x' END AS t FROM c")
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 1500)
        self.assertEqual(lines[2 + 1199].split(), ["1200", "a", "much", "longer", "text"])
        self.assertEqual(len(lines[2 + 1199]), len(lines[2 + 1198]) + len("a much longer text") - 1)


class SummaryLimits(unittest.TestCase):
    def test_a_span_beyond_an_int64(self):
        # Issue 31 item 9: the heatmap once failed "buckets must be a positive count, got -1".
        with tempfile.TemporaryDirectory(prefix="rocpd_cli_span_") as tmp:
            trace = make_rpd(os.path.join(tmp, "wide.rpd"),
                             ops=[(0, -5 * 10**18, -5 * 10**18 + 1000, 5, 2), (0, 5 * 10**18, 5 * 10**18 + 1000, 5, 2)])
            page, err, _ = run("summary", trace, "-f", "html", "--section", "busy")
            self.assertIn("<p class=\"note\">no utilization heatmap: the job&#39;s timestamps run from "
                          "-5000000000000000000 to 5000000000000001000 ns, more ns apart than an int64 holds", page)
            self.assertNotIn("<svg id=\"heatmap\"", page)


if __name__ == "__main__":
    require()
    unittest.main(verbosity=2)
