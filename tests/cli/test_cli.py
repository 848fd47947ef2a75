"""rocpd-ext (docs/cli.md) on the README's demo job: every format of `summary` parses and equals
both the generator's ground truth (truth.json) and the views it reads; `query` and `export`
likewise; stdout holds only the result; every error is one line on stderr with a non-zero status."""
import csv
import html.parser
import io
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from collections import defaultdict

from clitest import CLI, connect, demo_job, fixture_set, require, run

SECTIONS = ["job", "members", "busy", "kernels", "apis", "idle"]


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


class Summary(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.job, cls.truth, cls._tmp = demo_job()
        cls.con = connect(cls.job)
        cls.out = {}
        for fmt in ("table", "csv", "json", "md", "html"):
            stdout, stderr, _ = run("summary", cls.job, "--format", fmt)
            cls.out[fmt] = stdout
            assert stderr == "", stderr
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

    def test_csv_has_the_six_sections_and_nothing_else(self):
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
        self.assert_block_equals_view("busy", "SELECT db, gpu, busy_ns, span_ns, busy_pct, ops FROM rocpd_busy")

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
        top = sorted(kernels.items(), key=lambda kv: (-kv[1][1], kv[0]))[:10]
        header, rows = self.blocks["kernels"]
        self.assertEqual(len(rows), 10)
        for row, (name, (calls, ns, lo, hi)) in zip(rows, top):
            r = dict(zip(header, row))
            shown, = self.con.execute("SELECT rocpd_display_name(?)", (name,)).fetchone()
            self.assertEqual(r["kernel"], shown)
            self.assertEqual((int(r["instances"]), int(r["total_ns"]), int(r["min_ns"]), int(r["max_ns"])),
                             (calls, ns, lo, hi))
            self.assertEqual(float(r["time_pct"]), round(100.0 * ns / total, 2))
        self.assert_block_equals_view("kernels", "SELECT * FROM rocpd_kernel_summary LIMIT 10")

    def test_top_apis_are_the_ground_truth(self):
        apis = defaultdict(lambda: [0, 0])
        for f in self.truth["files"]:
            for a in f["api_top"]:
                apis[a["name"]][0] += a["calls"]
                apis[a["name"]][1] += a["total_ns"]
        total = sum(ns for _, ns in apis.values())
        top = sorted(apis.items(), key=lambda kv: (-kv[1][1], kv[0]))[:10]
        header, rows = self.blocks["apis"]
        self.assertEqual(header, ["time_pct", "total_ns", "calls", "avg_ns", "api"])
        self.assertEqual([(r[4], int(r[2]), int(r[1])) for r in rows], [(n, c, ns) for n, (c, ns) in top])
        for r, (_, (calls, ns)) in zip(rows, top):
            self.assertEqual(float(r[0]), round(100.0 * ns / total, 2))
            self.assertEqual(float(r[3]), round(ns / calls, 1))

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
                    "FROM rocpd_idle_breakdown WHERE level = 'gpu'")

    def test_json_holds_the_same_rows(self):
        doc = json.loads(self.out["json"])
        self.assertEqual(list(doc), SECTIONS)
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
        columns, rows = self.view("SELECT * FROM rocpd_kernel_summary LIMIT 10")
        self.assertEqual(doc["kernels"], [dict(zip(columns, r)) for r in rows])
        columns, rows = self.view("SELECT db, format, version, hostname, ops, apis, last_ns - first_ns AS span_ns, path "
                                  "FROM rocpd_members")
        self.assertEqual(doc["members"], [dict(zip(columns, r)) for r in rows])

    def test_table_and_markdown_show_every_section(self):
        table, md = self.out["table"], self.out["md"]
        job = dict(zip(*[self.blocks["job"][0], self.blocks["job"][1][0]]))
        headline = table.splitlines()[0]
        self.assertTrue(headline.startswith(f"{job['members']} members, {job['ops']} GPU ops, {job['apis']} API calls"),
                        headline)
        self.assertIn(f"busy {job['gpu_busy_pct']} % of the span", headline)
        self.assertIn(headline, md)
        for name in SECTIONS:
            header, rows = self.blocks[name]
            # md: one table line per row, plus the header and the rule.
            self.assertIn("| " + " | ".join(header) + " |", md)
            # table: the header's names in order on one line, and every row's first and last cell.
            self.assertTrue(any(line.split() == header for line in table.splitlines()), name)
            for row in rows:
                self.assertIn(row[-1].replace("|", "\\|"), md)
        md_lines = [line for line in md.splitlines() if line.startswith("|")]
        self.assertEqual(len(md_lines), sum(len(rows) + 2 for _, rows in self.blocks.values()))

    def test_html_is_self_contained(self):
        page = self.out["html"]

        class Scan(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.tags, self.refs, self.svgs, self.rects = defaultdict(int), [], [], 0

            def handle_starttag(self, tag, attrs):
                self.tags[tag] += 1
                a = dict(attrs)
                self.refs += [v for k, v in attrs if k in ("src", "href", "xlink:href") and v]
                if tag == "svg":
                    self.svgs.append(a.get("id"))
                if tag == "rect" and a.get("class") != "legend" and self.svgs[-1] == "heatmap":
                    self.rects += 1

        s = Scan()
        s.feed(page)
        self.assertEqual(s.refs, [])
        self.assertEqual(s.tags["script"], 0)
        self.assertEqual(s.tags["link"], 0)
        self.assertNotIn("url(", page)
        self.assertEqual(s.svgs, ["heatmap", "kernel-bars"])
        self.assertEqual(s.tags["table"], len(SECTIONS))
        self.assertGreaterEqual(s.rects, len(self.blocks["busy"][1]))  # at least one run of cells per GPU
        self.assertIn(self.out["table"].splitlines()[0], page)

    def test_top_and_section(self):
        out, _, _ = run("summary", self.job, "--format", "csv", "--top", "3", "--section", "apis", "--section", "kernels")
        blocks = csv_blocks(out)
        # Printed in the summary's order, whatever the order asked.
        self.assertEqual([b[0][-1] for b in blocks], ["kernel", "api"])
        self.assertEqual([len(b[1]) for b in blocks], [3, 3])
        self.assertEqual(blocks[0][1], self.blocks["kernels"][1][:3])

    def test_progress_goes_to_stderr(self):
        out, _, _ = run("summary", self.job, "--format", "csv", "--progress", "--section", "busy")
        self.assertEqual(csv_blocks(out), [self.blocks["busy"]])


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
            (["--start", "nope"], "'nope': neither a time (12000000, 12ms, 1.5s, 25%, @1000079750000000) nor the name "
                                  "of a CPU range (rocpd_ranges); list the names with: rocpd-ext query PATH... "),
            (["--range", "nope"], "'nope': no CPU range (rocpd_ranges) is named 'nope'"),
            (["--start", "range:5ms"], "'range:5ms': no CPU range (rocpd_ranges) is named '5ms'"),
            (["--start", "150%"], "'150%': a share of the job is a number from 0 to 100 followed by %"),
            (["--start", "@12x"], "'@12x': an absolute time is @ followed by an integer ns"),
        ]:
            out, err, rc = run("export", self.job, path, *args, check=False)
            self.assertEqual((rc, out), (1, ""), args)
            self.assertTrue(err.startswith("rocpd-ext: " + message), err)
            self.assertEqual(err.count("\n"), 1)
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
        self.fails(2, "a command is needed: summary, query or export")
        self.fails(2, "unknown command 'sumary' (commands: summary, query, export)", "sumary", self.job)
        self.fails(2, "unknown format 'xml' (table, csv, json, md or html) (see rocpd-ext summary --help)",
                   "summary", self.job, "--format", "xml")
        self.fails(2, "--top needs a positive integer, got '0'", "summary", self.job, "--top", "0")
        self.fails(2, "unknown section 'gpus' (job, members, busy, kernels, apis, idle)", "summary", self.job, "--section", "gpus")
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


if __name__ == "__main__":
    require()
    unittest.main(verbosity=2)
