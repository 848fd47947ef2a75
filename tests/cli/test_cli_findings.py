"""rocpd-ext summary's findings block (docs/cli.md, docs/anomalies.md): right after the headline,
the rows of rocpd_findings worst first, one line each with its evidence; the same rows in json and
md, in html with links to sections that are on the page. A generated job with a planted idle GPU
and a planted slow step are named (the step first); the same job without a plant has no
high-severity finding."""
import html.parser
import json
import statistics
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from clitest import GEN, connect, require, run  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from duration_text import duration_text  # noqa: E402

JOB = "--procs 8 --format rpd3 --ops 1000 --seed 1 --steps 8 --gpus 1".split()
# rank5's second half of ops moved four spans later: idle four fifths of its span.
IDLE_SQL = """
CREATE TEMP TABLE span AS SELECT min(start) AS lo, max("end") AS hi FROM rocpd_op;
UPDATE rocpd_op SET start = start + 4 * (SELECT hi - lo FROM span), "end" = "end" + 4 * (SELECT hi - lo FROM span)
WHERE start > (SELECT (lo + hi) / 2 FROM span);
"""
# rank2's ProfilerStep#4 made four times as long.
STEP_SQL = """
UPDATE rocpd_api SET "end" = "end" + 3 * ("end" - start)
WHERE args_id IN (SELECT id FROM rocpd_ustring WHERE string = 'ProfilerStep#4');
"""


def plant_syncs(job):
    """In every rank, a hipDeviceSynchronize call on the main thread blocked from 5 us before each
    gap of its gpu (20 us or more) and returning half-way through it."""
    for f in sorted(os.listdir(job)):
        if not f.endswith(".rpd"):
            continue
        with sqlite3.connect(os.path.join(job, f)) as db:
            ops = sorted(db.execute('SELECT start, "end" FROM rocpd_op WHERE "end" > start'))
            gaps, reach = [], ops[0][1]
            for start, end in ops[1:]:
                if start - reach >= 20000:
                    gaps.append((reach, start))
                reach = max(reach, end)
            pid, tid, cat, dom, args = db.execute(
                "SELECT pid, tid, category_id, domain_id, args_id FROM rocpd_api a JOIN rocpd_string s "
                "ON s.id = a.apiName_id WHERE s.string = 'hipLaunchKernel' LIMIT 1").fetchone()
            name = db.execute("SELECT id FROM rocpd_string WHERE string = 'hipDeviceSynchronize'").fetchone()[0]
            db.executemany('INSERT INTO rocpd_api (pid, tid, start, "end", apiName_id, category_id, domain_id, args_id) '
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(pid, tid, a - 5000, (a + b) // 2, name, cat, dom, args)
                                                               for a, b in gaps])


DATA = os.environ.get("ROCPD_SHARED_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                           "..", "shared", "data")
COLUMNS = ["rule", "severity", "figures", "at_stake_ns", "at_stake_pct", "next", "evidence"]


def block(text):
    """The lines of the table format's findings block (after its title, up to the empty line)."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Findings: "))
    out = []
    for line in lines[at + 1:]:
        if not line.strip():
            break
        out.append(line.strip())
    return lines[:at], out


class FindingsBlock(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require()
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_findings_")
        cls.clean = os.path.join(cls._tmp.name, "clean")
        subprocess.run([GEN, "--out", cls.clean] + JOB, check=True, stdout=subprocess.DEVNULL)
        cls.idle = os.path.join(cls._tmp.name, "idle")
        shutil.copytree(cls.clean, cls.idle)
        with sqlite3.connect(os.path.join(cls.idle, "rank5.rpd")) as db:
            db.executescript(IDLE_SQL)
        cls.step = os.path.join(cls._tmp.name, "step")
        shutil.copytree(cls.clean, cls.step)
        with sqlite3.connect(os.path.join(cls.step, "rank2.rpd")) as db:
            db.executescript(STEP_SQL)
            cls.step_ns = db.execute("SELECT a.\"end\" - a.start FROM rocpd_api a JOIN rocpd_ustring u ON u.id = a.args_id "
                                     "WHERE u.string = 'ProfilerStep#4'").fetchone()[0]

        cls.sync = os.path.join(cls._tmp.name, "sync")
        shutil.copytree(cls.clean, cls.sync)
        plant_syncs(cls.sync)
        cls.counters = os.path.join(cls._tmp.name, "counters")
        subprocess.run([GEN, "--out", cls.counters] + "--procs 2 --format rpd3 --ops 300 --seed 3 --gpus 1 "
                       "--rpd-counters 2".split(), check=True, stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_sync_idle_and_counter_replay(self):
        # The rules of docs/anomalies.md over the summary's tables give the view's rows; in html
        # sync_idle links to the idle section, counter_replay to none (no roofline section: the
        # generated counters map to no FLOPs).
        for job, rule in ((self.sync, "sync_idle"), (self.counters, "counter_replay")):
            doc = json.loads(run("summary", job, "-f", "json", "-n", "100")[0])
            con = connect(job)
            cur = con.execute("SELECT * FROM rocpd_findings")
            self.assertEqual(doc["findings"], [dict(zip(COLUMNS, r)) for r in cur.fetchall()])
            con.close()
            self.assertIn(rule, [r["rule"] for r in doc["findings"]])
            self.assertNotIn("sync_idle" if rule == "counter_replay" else "counter_replay",
                             [r["rule"] for r in doc["findings"]])
        page, _, _ = run("summary", self.sync, "-f", "html")
        item = page[page.index("sync_idle: "):]
        self.assertIn('see <a href="#section-idle">idle</a>', item[:item.index("</li>")])
        page, _, _ = run("summary", self.counters, "-f", "html")
        item = page[page.index("counter_replay: "):]
        self.assertNotIn("<a href", item[:item.index("</li>")])

    def test_planted_slow_step_is_named_first(self):
        out, _, _ = run("summary", self.step)
        head, lines = block(out)
        self.assertTrue(head[0].startswith("GPU time ("), head)  # the headline comes before the block
        self.assertTrue(lines[0].startswith("[high] slow_steps: 1 steps slower than the typical "), lines)
        self.assertIn(f"(worst: step 4, {duration_text(self.step_ns)}, score ", lines[0])
        self.assertIn("evidence: SELECT * FROM rocpd_anomalies WHERE kind = 'job_step'", lines[0])

    def test_planted_idle_gpu_is_named(self):
        # Moving rank5's ops later also makes it the straggler and leaves one long gap: all named.
        out, _, _ = run("summary", self.idle)
        _, lines = block(out)
        line = next(line for line in lines if " idle_gpu: " in line)
        self.assertTrue(line.startswith("[medium] idle_gpu: rank5 gpu 0 idle "), line)
        self.assertTrue(lines[0].startswith("[high] straggler: rank5 (gpu 0) "), lines[0])
        self.assertTrue(lines[1].startswith("[high] idle_gaps: 1 idle gaps far longer than their gpu's others "
                                            "(worst rank5 gpu 0, "), lines[1])
        self.assertIn("evidence: SELECT * FROM rocpd_time_breakdown WHERE db = 'rank5' AND gpu = 0", line)
        # Its share of the span, brute force from the trace: two op intervals' union over the span.
        with sqlite3.connect(os.path.join(self.idle, "rank5.rpd")) as db:
            ops = sorted(db.execute('SELECT start, "end" FROM rocpd_op WHERE "end" > start'))
        busy, reach = 0, ops[0][0]
        for start, end in ops:
            busy += max(0, end - max(start, reach))
            reach = max(reach, end)
        idle_pct = 100.0 * (1 - busy / (reach - ops[0][0]))
        self.assertIn(f"idle {idle_pct:.1f} % of its span", line)
        self.assertGreater(idle_pct, 75)

    def test_clean_job_has_no_high_finding(self):
        out, _, _ = run("summary", self.clean)
        _, lines = block(out)
        self.assertIn(lines[0], ("no finding", "no high-severity finding; the others:"))
        self.assertFalse([line for line in lines if line.startswith("[high]")], lines)
        self.assertNotIn("idle_gpu", out)

    def test_json_rows_are_the_views(self):
        # The block reads the views over the summary's own tables: the same rows as the view.
        for job in (self.clean, self.step, self.idle):
            doc = json.loads(run("summary", job, "-f", "json", "-n", "100")[0])
            self.assertEqual(list(doc)[0], "findings")
            con = connect(job)
            cur = con.execute("SELECT * FROM rocpd_findings")
            self.assertEqual([d[0] for d in cur.description], COLUMNS)
            want = [dict(zip(COLUMNS, r)) for r in cur.fetchall()]
            self.assertEqual(doc["findings"], want)
            con.close()
        self.assertIn("idle_gpu", [r["rule"] for r in doc["findings"]])

    def test_derived_screen_reads_nothing_ahead(self):
        # The summary derives its rocpd_anomalies from the view's text with the screen's pattern
        # left out (it has read the steps and stragglers already, findings_section.cpp): the text
        # it replaces must be the view's. Were it not, the summary would read the views themselves.
        con = connect(self.clean)
        sql = con.execute("SELECT sql FROM sqlite_temp_master WHERE name = 'rocpd_anomalies'").fetchone()[0]
        self.assertEqual(sql.count("temp.rocpd_gpu_screen(rocpd_step_pattern())"), 1)
        con.close()

    def test_top_cuts_the_block(self):
        out, _, _ = run("summary", self.idle, "-n", "1", "--section", "findings")
        _, lines = block(out)
        self.assertEqual(len(lines), 2, lines)
        self.assertEqual(lines[1], "(the first 1 findings; -n/--top shows more)")

    def test_markdown_and_html(self):
        md, _, _ = run("summary", self.idle, "-f", "md")
        self.assertIn("\n## Findings: ", md)
        self.assertIn("\n- [medium] idle_gpu: rank5 gpu 0 idle ", md)
        self.assertIn("evidence: `SELECT * FROM rocpd_time_breakdown WHERE db = 'rank5'", md)
        page, _, _ = run("summary", self.idle, "-f", "html")

        class Scan(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.ids, self.hrefs, self.items, self.h2 = [], [], [], []

            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if "id" in a:
                    self.ids.append(a["id"])
                if tag == "a":
                    self.hrefs.append(a["href"])
                if tag == "li":
                    self.items.append("")
                if tag == "h2":
                    self.h2.append(a.get("id"))

            def handle_data(self, data):
                if self.items:
                    self.items[-1] += data

        s = Scan()
        s.feed(page)
        self.assertEqual(s.h2[0], "section-findings")  # before the charts and tables
        self.assertTrue(s.items[0].startswith("[high] straggler: rank5 (gpu 0)"), s.items[0])
        self.assertTrue(any(i.startswith("[medium] idle_gpu: rank5 gpu 0") for i in s.items), s.items)
        self.assertEqual(s.hrefs[0], "#section-stragglers")
        self.assertIn("#section-idle", s.hrefs)
        for href in s.hrefs:  # every link is to a section on the page
            self.assertTrue(href.startswith("#") and href[1:] in s.ids, href)
        # Without the idle section on the page there is no link to it.
        page, _, _ = run("summary", self.idle, "-f", "html", "--section", "findings", "--section", "job")
        self.assertNotIn("#section-idle", page)
        self.assertIn("rank5 gpu 0", page)

    def test_csv_has_only_the_tables(self):
        out, _, _ = run("summary", self.idle, "-f", "csv", "--section", "findings", "--section", "job")
        self.assertTrue(out.startswith("members,first_ns"), out[:80])
        self.assertNotIn("idle_gpu", out)


@unittest.skipUnless(os.path.isdir(DATA), f"{DATA} absent (the real traces are not part of the project)")
class RealTraces(unittest.TestCase):
    def test_kineto_idle_gaps(self):
        # Two PyTorch ranks whose rank0 GPU pauses twice for over 50 ms: its gaps (brute force over
        # rocpd_ops, the raw ops) and their score; integer medians and percentiles, real scores.
        paths = [os.path.join(DATA, f"kineto_rank{r}.json.gz") for r in (0, 1)]
        con = connect(*paths)
        iv = sorted(con.execute("SELECT start, \"end\" FROM rocpd_ops WHERE db = 'kineto_rank0' AND gpu = 0 "
                                "AND \"end\" > start"))
        gaps, reach = [], iv[0][1]
        for start, end in iv[1:]:
            if start > reach:
                gaps.append(start - reach)
            reach = max(reach, end)
        med = statistics.median(gaps)
        mad = statistics.median(abs(g - med) for g in gaps)
        p99 = statistics.quantiles(gaps, n=100, method="inclusive")[98]
        want = sorted((round((g - med) / max(1.4826 * max(mad, 0.1 * med, 1000), p99 - med), 1), g) for g in gaps
                      if g >= 1000000 and (g - med) / max(1.4826 * max(mad, 0.1 * med, 1000), p99 - med) >= 5)
        got = sorted((r[1], r[0]) for r in con.execute("SELECT value, score FROM rocpd_anomalies WHERE kind = 'idle_gap'"))
        self.assertEqual(got, want)
        self.assertEqual(len(want), 2)
        out, _, _ = run("summary", *paths, "--section", "findings")
        self.assertIn("idle_gaps: 2 idle gaps far longer than their gpu's others (worst kineto_rank0 gpu 0, "
                      f"{duration_text(want[-1][1])}, typical {duration_text(med)})", out)


if __name__ == "__main__":
    unittest.main()
