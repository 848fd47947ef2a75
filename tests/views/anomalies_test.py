"""rocpd_anomalies and rocpd_findings (docs/anomalies.md) on generated jobs with planted anomalies:
a kernel instance 10x its peers, a slow step, a rank that arrives last (the generator's
--straggler, in 50 % and in 70 % of the steps), a GPU idle far more than the others, a launch
storm of tiny kernels. Each plant is found and ranked first in its
kind; the same job without the plant gives no anomaly and no high-severity finding. The planted
kernel's score is also computed here, independently (median and MAD in Python)."""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from duration_text import duration_text  # noqa: E402

EXT = os.environ["ROCPD_EXT"]
GEN = os.environ["ROCPD_GEN"]
JOB = "--procs 8 --format rpd3 --ops 1000 --seed 1 --steps 8 --gpus 1".split()
TMP = tempfile.mkdtemp(prefix="anomalies_")


def generate(name, *extra):
    out = os.path.join(TMP, name)
    subprocess.run([GEN, "--out", out] + JOB + list(extra), check=True, stdout=subprocess.DEVNULL)
    return out


def planted_copy(name, rank, sql):
    out = os.path.join(TMP, name)
    shutil.copytree(CLEAN, out)
    with sqlite3.connect(os.path.join(out, f"rank{rank}.rpd")) as db:
        db.executescript(sql)
    return out


def query(job, sql):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.row_factory = sqlite3.Row
    con.execute("SELECT rocpd_open(?)", (os.path.join(job, "rank*.rpd"),))
    return [dict(r) for r in con.execute(sql)]


def first(job, kind):
    got = query(job, f"SELECT * FROM rocpd_anomalies WHERE kind = '{kind}' ORDER BY score DESC LIMIT 1")
    return got[0] if got else None


def findings(job):
    return {r["rule"]: r for r in query(job, "SELECT * FROM rocpd_findings")}


CLEAN = generate("clean")
KERNEL_SQL = """
CREATE TEMP TABLE pick AS
SELECT o.id, o.start, o."end" FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
WHERE t.string = 'KernelExecution' AND o.description_id IN (
  SELECT description_id FROM rocpd_op GROUP BY description_id HAVING count(*) >= 20)
ORDER BY o.id LIMIT 1 OFFSET 50;
UPDATE rocpd_op SET "end" = start + 10 * ("end" - start) WHERE id = (SELECT id FROM pick);
"""
STEP_SQL = """
UPDATE rocpd_api SET "end" = "end" + 3 * ("end" - start)
WHERE args_id IN (SELECT id FROM rocpd_ustring WHERE string = 'ProfilerStep#4');
"""
# The second half of rank5's ops moved later by twice the GPU's span: a gap of two spans.
IDLE_SQL = """
CREATE TEMP TABLE span AS SELECT min(start) AS lo, max("end") AS hi FROM rocpd_op;
UPDATE rocpd_op SET start = start + 2 * (SELECT hi - lo FROM span), "end" = "end" + 2 * (SELECT hi - lo FROM span)
WHERE start > (SELECT (lo + hi) / 2 FROM span);
"""

# One kernel of rank0 started 20 ms later than it did (its end with it): a launch delay 20 ms longer.
LAUNCH_SQL = """
CREATE TEMP TABLE pick AS
SELECT o.id FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id JOIN rocpd_api_ops ao ON ao.op_id = o.id
WHERE t.string = 'KernelExecution' ORDER BY o.id LIMIT 1 OFFSET 300;
UPDATE rocpd_op SET start = start + 20000000, "end" = "end" + 20000000 WHERE id = (SELECT id FROM pick);
"""
# rank5's ops after the middle of its span moved 20 ms later: one idle gap of 20 ms or more.
GAP_SQL = """
CREATE TEMP TABLE span AS SELECT min(start) AS lo, max("end") AS hi FROM rocpd_op;
UPDATE rocpd_op SET start = start + 20000000, "end" = "end" + 20000000 WHERE start > (SELECT (lo + hi) / 2 FROM span);
"""


# A launch storm: 4000 kernels of 3 us on rank0's gpu, one every 20 us from its first op on.
STORM_SQL = """
CREATE TEMP TABLE span AS SELECT min(start) AS lo FROM rocpd_op;
INSERT INTO rocpd_string (string) VALUES ('tiny_storm_kernel');
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 3999)
INSERT INTO rocpd_op (gpuId, queueId, sequenceId, start, "end", description_id, opType_id)
SELECT 0, 0, 0, (SELECT lo FROM span) + 20000 * n, (SELECT lo FROM span) + 20000 * n + 3000,
       (SELECT id FROM rocpd_string WHERE string = 'tiny_storm_kernel'),
       (SELECT id FROM rocpd_string WHERE string = 'KernelExecution')
FROM i;
"""


def kernel_durations(job):
    """Every kernel's duration in a job's rpd files, read from the raw tables."""
    out = []
    for f in sorted(os.listdir(job)):
        if f.endswith(".rpd"):
            with sqlite3.connect(os.path.join(job, f)) as db:
                out += [r[0] for r in db.execute(
                    'SELECT o."end" - o.start FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id '
                    "WHERE t.string = 'KernelExecution'")]
    return out


def gap_intervals(path):
    """The gaps (start, end) between the union of a file's op intervals, brute force."""
    with sqlite3.connect(path) as db:
        ops = sorted(db.execute('SELECT start, "end" FROM rocpd_op WHERE "end" > start'))
    gaps, reach = [], ops[0][1]
    for start, end in ops[1:]:
        if start > reach:
            gaps.append((reach, start))
        reach = max(reach, end)
    return gaps


def all_gaps(path):
    """The gaps' lengths."""
    return [end - start for start, end in gap_intervals(path)]


def sync_gaps(path):
    """The gaps a synchronize call began before and ended within (the last gap starting at or before
    the call's end), brute force over the raw file: (count, total length)."""
    with sqlite3.connect(path) as db:
        calls = db.execute("SELECT a.start, a.\"end\" FROM rocpd_api a JOIN rocpd_string s ON s.id = a.apiName_id "
                           "WHERE s.string LIKE '%Synchronize%' AND a.start < a.\"end\"").fetchall()
    gaps = gap_intervals(path)
    hit = set()
    for c_start, c_end in calls:
        before = [g for g in gaps if g[0] <= c_end]
        if before and c_start < before[-1][0] and c_end <= before[-1][1]:
            hit.add(before[-1])
    return len(hit), sum(e - s for s, e in hit)


def largest_gap(path):
    """The longest gap between the union of a file's op intervals (the first of equals): (start, length)."""
    start, end = max(gap_intervals(path), key=lambda g: g[1] - g[0])
    return start, end - start


def plant_syncs(job):
    """In every rank, a hipDeviceSynchronize call on the main thread blocked from 5 us before each
    gap of 20 us or more and returning half-way through it."""
    for f in sorted(os.listdir(job)):
        if not f.endswith(".rpd"):
            continue
        path = os.path.join(job, f)
        gaps = [(a, b) for a, b in gap_intervals(path) if b - a >= 20000]
        with sqlite3.connect(path) as db:
            pid, tid, cat, dom, args = db.execute(
                "SELECT pid, tid, category_id, domain_id, args_id FROM rocpd_api a JOIN rocpd_string s "
                "ON s.id = a.apiName_id WHERE s.string = 'hipLaunchKernel' LIMIT 1").fetchone()
            name = db.execute("SELECT id FROM rocpd_string WHERE string = 'hipDeviceSynchronize'").fetchone()[0]
            db.executemany("INSERT INTO rocpd_api (pid, tid, start, \"end\", apiName_id, category_id, domain_id, "
                           "args_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [(pid, tid, a - 5000, (a + b) // 2, name, cat, dom, args) for a, b in gaps])


def sync_truth(job):
    """The gaps a synchronize call was blocked in when they began (it started before) and returned
    within, brute force over the raw tables: (count, their ns, all gaps' ns, the GPUs' summed spans)."""
    n = ns = idle = span = 0
    for f in sorted(os.listdir(job)):
        if not f.endswith(".rpd"):
            continue
        path = os.path.join(job, f)
        with sqlite3.connect(path) as db:
            syncs = db.execute("SELECT a.start, a.\"end\" FROM rocpd_api a JOIN rocpd_string s ON s.id = a.apiName_id "
                               "WHERE s.string LIKE '%Synchronize%' AND a.start < a.\"end\"").fetchall()
            lo, hi = db.execute('SELECT min(start), max("end") FROM rocpd_op').fetchone()
        span += hi - lo
        for a, b in gap_intervals(path):
            idle += b - a
            if any(s < a <= e <= b for s, e in syncs):
                n, ns = n + 1, ns + b - a
    return n, ns, idle, span


def severity(ns, of):
    return "high" if ns >= 0.25 * of else "medium" if ns >= 0.1 * of else "low"


class Anomalies(unittest.TestCase):
    def assert_gap_percentiles(self, med, p99, long_med, gaps):
        """A gpu's gaps' median and 99th percentile, and its long gaps' median, against Python's."""
        longs = [g for g in gaps if g >= 1000000]
        self.assertAlmostEqual(med, statistics.median(gaps), places=6)
        self.assertAlmostEqual(p99, statistics.quantiles(gaps, n=100, method="inclusive")[98], delta=1e-6 * max(gaps))
        if longs:
            self.assertAlmostEqual(long_med, statistics.median(longs), places=6)
        else:
            self.assertIsNone(long_med)

    def test_clean_job_has_no_anomaly_and_no_high_finding(self):
        self.assertEqual(query(CLEAN, "SELECT * FROM rocpd_anomalies"), [])
        self.assertEqual([r for r in findings(CLEAN).values() if r["severity"] == "high"], [])

    def test_demo_job_has_no_anomaly_and_no_high_finding(self):
        # The README's demo job (random collectives: their arrivals do not match across ranks).
        demo = os.path.join(TMP, "demo")
        subprocess.run([GEN, "--out", demo] + "--procs 8 --format mixed --ops 20000 --seed 42".split(),
                       check=True, stdout=subprocess.DEVNULL)
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        con.load_extension(EXT)
        con.execute("SELECT rocpd_open(?)", (demo,))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_anomalies").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT rule FROM rocpd_findings WHERE severity = 'high'").fetchall(), [])

    def test_kernel_ten_times_its_peers(self):
        job = planted_copy("kernel", 0, KERNEL_SQL)
        with sqlite3.connect(os.path.join(job, "rank0.rpd")) as db:
            op_id, desc, dur = db.execute(
                "SELECT o.id, o.description_id, o.\"end\" - o.start FROM rocpd_op o JOIN rocpd_string t ON "
                "t.id = o.opType_id WHERE t.string = 'KernelExecution' AND o.description_id IN (SELECT description_id "
                "FROM rocpd_op GROUP BY description_id HAVING count(*) >= 20) ORDER BY o.id LIMIT 1 OFFSET 50").fetchone()
            peers = [r[0] for r in db.execute(
                "SELECT \"end\" - start FROM rocpd_op WHERE description_id = ? AND gpuId = "
                "(SELECT gpuId FROM rocpd_op WHERE id = ?)", (desc, op_id))]
        med = statistics.median(peers)
        mad = statistics.median(abs(p - med) for p in peers)
        score = (dur - med) / (1.4826 * max(mad, 0.1 * med, 1000))
        top = first(job, "kernel")
        self.assertEqual((top["db"], top["value"]), ("rank0", dur))
        self.assertIn(f"op_id = {op_id}", top["evidence"])
        self.assertAlmostEqual(top["score"], score, delta=0.051)
        self.assertGreaterEqual(top["score"], 5)
        self.assertIn(f"{duration_text(dur)}, typical {duration_text(med)})", findings(job)["kernel_outliers"]["figures"])

    def test_slow_step(self):
        job = planted_copy("step", 2, STEP_SQL)
        top = first(job, "rank_step")
        self.assertEqual((top["db"], top["step"]), ("rank2", 4))
        self.assertEqual(first(job, "job_step")["step"], 4)
        self.assertEqual(len(query(job, "SELECT * FROM rocpd_anomalies WHERE kind = 'job_step'")), 1)
        self.assertIn("(worst: step 4,", findings(job)["slow_steps"]["figures"])

    def test_straggler(self):
        job = generate("straggler", "--straggler", "3:2000000")
        self.assertEqual(first(job, "straggler")["db"], "rank3")
        self.assertEqual(findings(job)["straggler"]["severity"], "high")

    def test_screen_reads_steps_and_collectives_ahead(self):
        # rocpd_gpu_screen(pattern) leaves each member's step ranges and collectives to the
        # rocpd_steps(pattern) and rocpd_collectives passes that follow: their rows are those of a
        # pass of their own, taken once, and only while the file and the clock offset are as they
        # were when the screen read them.
        job = generate("read_ahead", "--straggler", "3:2000000")
        rank3 = os.path.join(job, "rank3.rpd")

        def connect():
            con = sqlite3.connect(":memory:")
            con.enable_load_extension(True)
            con.load_extension(EXT)
            con.execute("SELECT rocpd_open(?)", (os.path.join(job, "rank*.rpd"),))
            return con

        def rows(con, sql):
            return con.execute(sql).fetchall()

        screen = "SELECT count(*) FROM rocpd_gpu_screen(rocpd_step_pattern())"
        ranges = "SELECT db, pid, tid, step, name, start, \"end\", duration FROM rocpd_steps ORDER BY db, pid, step"
        stragglers = "SELECT * FROM rocpd_stragglers ORDER BY db, pid, gpu"
        base = connect()
        want_ranges, want_stragglers = rows(base, ranges), rows(base, stragglers)
        self.assertEqual(len(want_ranges), 8 * 8)
        self.assertEqual(max(want_stragglers, key=lambda r: r[4])[0], "rank3")  # times_last: the plant

        con = connect()
        rows(con, screen)
        self.assertEqual(rows(con, ranges), want_ranges)
        self.assertEqual(rows(con, stragglers), want_stragglers)

        def rename_collectives(old, new, keep_mtime):
            # Names of the same length: the file keeps its size.
            st = os.stat(rank3)
            with sqlite3.connect(rank3) as db:
                db.execute("UPDATE rocpd_string SET string = replace(string, ?, ?)", (old, new))
            db.close()
            if keep_mtime:
                os.utime(rank3, ns=(st.st_atime_ns, st.st_mtime_ns))
            else:
                os.utime(rank3, ns=(st.st_atime_ns, st.st_mtime_ns + 1000000000))
            self.assertEqual(os.stat(rank3).st_size, st.st_size)

        # The stash is what answers: rank3's collectives renamed behind an unchanged size and
        # mtime are still its collectives in the pass that takes them, and gone in the next.
        rows(con, screen)
        rename_collectives("nccl", "xxxx", keep_mtime=True)
        self.assertEqual(rows(con, stragglers), want_stragglers)
        renamed = rows(con, stragglers)
        self.assertNotIn("rank3", [r[0] for r in renamed])
        self.assertEqual(renamed, rows(connect(), stragglers))

        # A file changed since the screen read it (its mtime moved) is read again.
        rows(con, screen)
        rename_collectives("xxxx", "nccl", keep_mtime=False)
        self.assertEqual(rows(con, stragglers), want_stragglers)
        rows(con, screen)
        rename_collectives("nccl", "xxxx", keep_mtime=False)
        self.assertEqual(rows(con, stragglers), renamed)
        rename_collectives("xxxx", "nccl", keep_mtime=False)

        # A clock offset set since then: the collectives are read again with it.
        rows(con, screen)
        con.execute("SELECT rocpd_clock_offset('rank5', 700000)")
        shifted = connect()
        shifted.execute("SELECT rocpd_clock_offset('rank5', 700000)")
        want_shifted = rows(shifted, stragglers)
        self.assertNotEqual(want_shifted, want_stragglers)
        self.assertEqual(rows(con, stragglers), want_shifted)
        con.execute("SELECT rocpd_clock_offset('rank5', 0)")

        # Another pattern's ranges are not those of the default one.
        rows(con, "SELECT count(*) FROM rocpd_gpu_screen('no step%')")
        self.assertEqual(rows(con, ranges), want_ranges)
        self.assertEqual(rows(con, "SELECT DISTINCT pattern FROM rocpd_gpu_screen('no step%')"), [("no step%",)])
        self.assertEqual(rows(con, "SELECT DISTINCT pattern FROM rocpd_gpu_screen"), [(None,)])
        with self.assertRaisesRegex(sqlite3.OperationalError, r"^rocpd_gpu_screen: pattern must be text"):
            rows(con, "SELECT count(*) FROM rocpd_gpu_screen(1)")

    def test_straggler_last_in_70_percent(self):
        # rank6 starts its collectives 2 ms late in 7 of the 10 steps: last in about 70 % of them.
        job = os.path.join(TMP, "straggler70")
        args = "--procs 8 --format rpd3 --ops 1000 --seed 1 --steps 10 --gpus 1 --straggler 6:2000000:70".split()
        subprocess.run([GEN, "--out", job] + args, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(job, "truth.json")) as f:
            truth = {t["db"]: t["steps"] for t in json.load(f)["files"]}
        self.assertEqual(len(truth["rank6"]["straggled_steps"]), 7)
        share = truth["rank6"]["times_last"] / truth["rank6"]["collectives"]
        self.assertGreaterEqual(share, 0.7)
        top = first(job, "straggler")
        self.assertEqual((top["db"], top["value"]), ("rank6", truth["rank6"]["times_last"]))
        # The typical count: the median of the ranks' counts from the generator's truth.
        self.assertEqual(top["typical"], statistics.median(t["times_last"] for t in truth.values()))
        got = query(job, "SELECT collectives, times_last FROM rocpd_stragglers WHERE db = 'rank6'")[0]
        self.assertAlmostEqual(got["times_last"] / got["collectives"], share)
        row = findings(job)["straggler"]
        self.assertIn(f"rank6 (gpu 0) arrived last at {truth['rank6']['times_last']} collectives", row["figures"])
        self.assertEqual(row["severity"], "high")
        # The job without the plant: no straggler anomaly.
        clean = os.path.join(TMP, "straggler70_clean")
        subprocess.run([GEN, "--out", clean] + args[:-2], check=True, stdout=subprocess.DEVNULL)
        self.assertEqual(query(clean, "SELECT * FROM rocpd_anomalies WHERE kind = 'straggler'"), [])
        self.assertNotIn("straggler", findings(clean))

    def test_launch_storm_of_tiny_kernels(self):
        # A job without steps: its kernels are mostly over 10 us (no tiny_kernels finding) until
        # rank0 gets a storm of 4000 kernels of 3 us.
        clean = os.path.join(TMP, "storm_clean")
        subprocess.run([GEN, "--out", clean] + "--procs 4 --format rpd3 --ops 2000 --seed 42 --gpus 1".split(),
                       check=True, stdout=subprocess.DEVNULL)
        durations = kernel_durations(clean)
        self.assertLess(2 * sum(d < 10000 for d in durations), len(durations))
        self.assertNotIn("tiny_kernels", findings(clean))
        job = os.path.join(TMP, "storm")
        shutil.copytree(clean, job)
        with sqlite3.connect(os.path.join(job, "rank0.rpd")) as db:
            db.executescript(STORM_SQL)
        durations = kernel_durations(job)
        tiny = [d for d in durations if d < 10000]
        self.assertEqual(len(durations), len(kernel_durations(clean)) + 4000)
        row = findings(job)["tiny_kernels"]
        self.assertEqual(row["figures"], f"{len(tiny)} of {len(durations)} kernels run under 10 us "
                                         f"({100 * len(tiny) / len(durations):.1f} %)")
        self.assertEqual(row["at_stake_ns"], sum(tiny))
        # Its evidence query names the storm's kernel first, with its 4000 instances.
        self.assertEqual(query(job, row["evidence"])[0]["n"], 4000)

    def test_idle_gpu(self):
        job = planted_copy("idle", 5, IDLE_SQL)
        top = first(job, "gpu_idle")
        self.assertEqual(top["db"], "rank5")
        self.assertGreater(top["value"], 60)  # two spans idle of three
        self.assertIn("idle_gpu", findings(job))

    def test_launch_delay(self):
        job = planted_copy("launch", 0, LAUNCH_SQL)
        with sqlite3.connect(os.path.join(job, "rank0.rpd")) as db:
            op_id, delay = db.execute(
                "SELECT o.id, o.start - a.\"end\" FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id "
                "JOIN rocpd_api_ops ao ON ao.op_id = o.id JOIN rocpd_api a ON a.id = ao.api_id "
                "WHERE t.string = 'KernelExecution' ORDER BY o.id LIMIT 1 OFFSET 300").fetchone()
        top = first(job, "launch_delay")
        self.assertEqual((top["db"], top["value"]), ("rank0", delay))
        self.assertIn(f"op_id = {op_id}", top["evidence"])
        self.assertGreaterEqual(delay, 20000000)
        # Its score, independently: every launched kernel's delay on that gpu (the file has one).
        with sqlite3.connect(os.path.join(job, "rank0.rpd")) as db:
            delays = [r[0] for r in db.execute(
                "SELECT o.start - a.\"end\" FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id "
                "JOIN rocpd_api_ops ao ON ao.op_id = o.id JOIN rocpd_api a ON a.id = ao.api_id "
                "WHERE t.string = 'KernelExecution'")]
        med = statistics.median(delays)
        mad = statistics.median(abs(d - med) for d in delays)
        p99 = statistics.quantiles(delays, n=100, method="inclusive")[98]
        score = (delay - med) / max(1.4826 * max(mad, 0.1 * abs(med), 10000), p99 - med)
        self.assertAlmostEqual(top["score"], score, delta=0.051)
        self.assertIn("launch_delays", findings(job))
        self.assertEqual(query(CLEAN, "SELECT * FROM rocpd_anomalies WHERE kind = 'launch_delay'"), [])

    def test_launch_delay_groups_answer_as_the_sql(self):
        # The per-gpu figures rocpd_anomalies filters members with, against the plain SQL over
        # rocpd_op_launches, on the clean job and on the job with the planted delay.
        sql = ("SELECT db, gpu, count(*) AS delays, percentile(v, 50) AS med_ns, percentile(v, 99) AS p99_ns, "
               "max(v) AS max_ns, 0 AS inexact FROM (SELECT db, gpu, start - launch_end AS v FROM rocpd_op_launches "
               "WHERE kind = 'kernel' AND start IS NOT NULL AND launch_end IS NOT NULL) GROUP BY db, gpu ORDER BY db, gpu")
        for job in (CLEAN, planted_copy("launch_groups", 0, LAUNCH_SQL)):
            got = query(job, "SELECT db, gpu, delays, med_ns, p99_ns, max_ns, inexact FROM rocpd_launch_delay_groups "
                             "ORDER BY db, gpu")
            self.assertEqual(len(got), 8)
            self.assertEqual(got, query(job, sql))
        self.assertEqual(query(CLEAN, "SELECT count(*) AS n FROM rocpd_launch_delay_groups WHERE db = 'rank2'"),
                         [{"n": 1}])

    def test_gap_groups_answer_as_brute_force(self):
        # The per-gpu figures rocpd_anomalies filters members with, against the files' own gaps
        # (brute force over the raw op table), on the clean job and on the job with the planted gap.
        for job in (CLEAN, planted_copy("gap_groups", 3, GAP_SQL)):
            got = query(job, "SELECT db, gpu, gaps, med_ns, p99_ns, max_ns, long_gaps, long_med_ns, sync_gaps, sync_ns, inexact "
                             "FROM rocpd_gap_groups ORDER BY db")
            self.assertEqual(len(got), 8)
            for row in got:
                gaps = all_gaps(os.path.join(job, row["db"] + ".rpd"))
                longs = [g for g in gaps if g >= 1000000]
                self.assertEqual((row["gpu"], row["gaps"], row["max_ns"], row["long_gaps"], row["inexact"]),
                                 (0, len(gaps), max(gaps), len(longs), 0))
                self.assert_gap_percentiles(row["med_ns"], row["p99_ns"], row["long_med_ns"], gaps)
                self.assertEqual((row["sync_gaps"], row["sync_ns"]), sync_gaps(os.path.join(job, row["db"] + ".rpd")))
        self.assertEqual(query(CLEAN, "SELECT count(*) AS n FROM rocpd_gap_groups WHERE db = 'rank2'"), [{"n": 1}])

    def test_gpu_screen_answers_as_brute_force(self):
        # The one visit of each member rocpd_anomalies starts from, against the raw files: busy time
        # (the union of the ops' intervals) and span, the gaps' figures, the launch delays' figures
        # (the plain SQL over rocpd_op_launches) and the kernel groups that can hold an outlier
        # (median in Python; the view's own test, 0.999 * 5 * 1.4826 * max(10 % of it, 1000 ns)).
        delay_sql = ("SELECT db, gpu, count(*) AS delays, percentile(v, 50) AS delay_med_ns, "
                     "percentile(v, 99) AS delay_p99_ns, max(v) AS delay_max_ns FROM (SELECT db, gpu, "
                     "start - launch_end AS v FROM rocpd_op_launches WHERE kind = 'kernel' AND start IS NOT NULL "
                     "AND launch_end IS NOT NULL) GROUP BY db, gpu ORDER BY db, gpu")
        jobs = (CLEAN, planted_copy("screen_gap", 3, GAP_SQL), planted_copy("screen_launch", 0, LAUNCH_SQL),
                planted_copy("screen_kernel", 6, KERNEL_SQL))
        candidates = 0
        for job in jobs:
            got = query(job, "SELECT * FROM rocpd_gpu_screen ORDER BY db")
            self.assertEqual(len(got), 8)
            self.assertEqual([{k: r[k] for k in ("db", "gpu", "delays", "delay_med_ns", "delay_p99_ns", "delay_max_ns")}
                              for r in got], query(job, delay_sql))
            for row in got:
                path = os.path.join(job, row["db"] + ".rpd")
                with sqlite3.connect(path) as db:
                    ops = db.execute('SELECT start, "end" FROM rocpd_op WHERE "end" > start').fetchall()
                    lo, hi = db.execute('SELECT min(start), max("end") FROM rocpd_op WHERE "end" >= start').fetchone()
                    kernels = {}
                    for name, d in db.execute(
                            'SELECT o.description_id, o."end" - o.start FROM rocpd_op o JOIN rocpd_string t '
                            "ON t.id = o.opType_id WHERE t.string = 'KernelExecution' AND o.gpuId = 0"):
                        kernels.setdefault(name, []).append(d)
                busy, reach_start, reach_end = 0, None, None
                for start, end in sorted(ops):
                    if reach_end is None or start > reach_end:
                        busy += 0 if reach_end is None else reach_end - reach_start
                        reach_start, reach_end = start, end
                    else:
                        reach_end = max(reach_end, end)
                busy += reach_end - reach_start
                want = 0
                for ds in kernels.values():
                    med = statistics.median(ds)
                    if len(ds) >= 5 and max(ds) - med >= 0.999 * 5 * 1.4826 * max(0.1 * abs(med), 1000):
                        want += 1
                candidates += want
                gaps = all_gaps(path)
                longs = [g for g in gaps if g >= 1000000]
                self.assertEqual((row["gpu"], row["busy_ns"], row["span_ns"], row["gaps"], row["gap_max_ns"],
                                  row["long_gaps"], row["kernel_candidates"], row["busy_inexact"],
                                  row["delay_inexact"], row["kernel_inexact"]),
                                 (0, busy, hi - lo, len(gaps), max(gaps), len(longs), want, 0, 0, 0), row["db"])
                self.assert_gap_percentiles(row["gap_med_ns"], row["gap_p99_ns"], row["long_gap_med_ns"], gaps)
        self.assertGreater(candidates, 0)  # the planted kernel is one
        self.assertEqual(query(CLEAN, "SELECT count(*) AS n FROM rocpd_gpu_screen WHERE db = 'rank2'"), [{"n": 1}])

    def test_member_the_screen_cannot_read_is_read_through_sql(self):
        # An op whose gpu is text: the summary engine does not read the member, the view reads its
        # figures through SQL (rocpd_busy), and the idle gpu planted there is still found.
        job = planted_copy("screen_text_gpu", 5, IDLE_SQL + "UPDATE rocpd_op SET gpuId = 'gpu-x' "
                                                            "WHERE id = (SELECT min(id) FROM rocpd_op);")
        flags = query(job, "SELECT db, max(busy_inexact) AS busy, max(kernel_inexact) AS kernel "
                           "FROM rocpd_gpu_screen GROUP BY db ORDER BY db")
        self.assertEqual([(r["db"], r["busy"], r["kernel"]) for r in flags],
                         [(f"rank{i}", int(i == 5), int(i == 5)) for i in range(8)])
        idle = query(job, "SELECT db, value FROM rocpd_anomalies WHERE kind = 'gpu_idle'")
        self.assertEqual([r["db"] for r in idle], ["rank5"])
        busy = query(job, "SELECT round(100.0 * (span_ns - busy_ns) / span_ns, 2) AS v FROM rocpd_busy "
                          "WHERE db = 'rank5' AND gpu = 0")
        self.assertEqual(idle[0]["value"], busy[0]["v"])

    def test_member_whose_kernels_the_screen_cannot_group(self):
        # A kernel name that is a blob: the screen's busy figures stand, its kernel groups do not
        # (kernel_inexact), and the kernel planted in that member is still found through SQL.
        job = planted_copy("screen_blob_name", 0, KERNEL_SQL + (
            "UPDATE rocpd_string SET string = CAST(string AS BLOB) WHERE id = (SELECT description_id FROM rocpd_op "
            "WHERE description_id NOT IN (SELECT o.description_id FROM rocpd_op o JOIN pick ON pick.id = o.id) "
            "AND opType_id = (SELECT id FROM rocpd_string WHERE string = 'KernelExecution') "
            "GROUP BY description_id ORDER BY count(*), description_id LIMIT 1);"))
        flags = query(job, "SELECT db, max(busy_inexact) AS busy, max(kernel_inexact) AS kernel, "
                           "sum(kernel_candidates) AS candidates FROM rocpd_gpu_screen GROUP BY db ORDER BY db")
        self.assertEqual([(r["db"], r["busy"], r["kernel"]) for r in flags],
                         [(f"rank{i}", 0, int(i == 0)) for i in range(8)])
        self.assertEqual(flags[0]["candidates"], 0)
        blobs = query(job, "SELECT count(*) AS n FROM rocpd_ops WHERE db = 'rank0' AND typeof(name) = 'blob'")
        self.assertGreater(blobs[0]["n"], 0)
        self.assertEqual(first(job, "kernel")["db"], "rank0")

    def test_idle_gap(self):
        job = planted_copy("gap", 5, GAP_SQL)
        start, length = largest_gap(os.path.join(job, "rank5.rpd"))
        top = first(job, "idle_gap")
        self.assertEqual((top["db"], top["gpu"], top["value"]), ("rank5", 0, length))
        self.assertIn(f"start = {start}", top["evidence"])
        self.assertEqual(query(job, top["evidence"])[0]["duration"], length)
        # Its score, independently: the gpu's gaps (brute force), their median, MAD and 99th percentile.
        gaps = all_gaps(os.path.join(job, "rank5.rpd"))
        med = statistics.median(gaps)
        mad = statistics.median(abs(g - med) for g in gaps)
        p99 = statistics.quantiles(gaps, n=100, method="inclusive")[98]
        score = (length - med) / max(1.4826 * max(mad, 0.1 * med, 1000), p99 - med)
        longs = [g for g in gaps if g >= 1000000]
        if len(longs) >= 3:  # the host's pauses between steps: the gap also stands apart from them
            long_med = statistics.median(longs)
            long_mad = statistics.median(abs(g - long_med) for g in longs)
            score = min(score, (length - long_med) / (1.4826 * max(long_mad, 0.1 * long_med, 1000)))
        self.assertAlmostEqual(top["score"], score, delta=0.051)
        self.assertIn("idle_gaps", findings(job))
        self.assertEqual(query(CLEAN, "SELECT * FROM rocpd_anomalies WHERE kind = 'idle_gap'"), [])

    def test_recurring_long_gaps(self):
        # The host's pause between steps recurs on every rank of a healthy stepped job: gaps of 1 ms
        # or more that stand far above the gpu's typical 2 us gap (scores over 5 against all the
        # gaps, brute force below, so the test fails if the long gaps were not compared among
        # themselves), but not apart from each other.
        job = generate("stepped", "--ops", "2000", "--seed", "42", "--steps", "10")
        flagged_alone = 0
        for rank in range(8):
            gaps = all_gaps(os.path.join(job, f"rank{rank}.rpd"))
            med = statistics.median(gaps)
            mad = statistics.median(abs(g - med) for g in gaps)
            p99 = statistics.quantiles(gaps, n=100, method="inclusive")[98]
            spread = max(1.4826 * max(mad, 0.1 * med, 1000), p99 - med)
            flagged_alone += sum(1 for g in gaps if g >= 1000000 and (g - med) / spread >= 5)
            self.assertGreaterEqual(sum(1 for g in gaps if g >= 1000000), 3)
        self.assertGreater(flagged_alone, 0)
        self.assertEqual(query(job, "SELECT * FROM rocpd_anomalies WHERE kind = 'idle_gap'"), [])
        self.assertNotIn("idle_gaps", findings(job))

    def test_sync_idle(self):
        # Without the plant, synchronize calls begin too few of the clean job's gaps.
        n, ns, idle, _ = sync_truth(CLEAN)
        self.assertLess(ns, 0.5 * idle)
        self.assertNotIn("sync_idle", findings(CLEAN))
        job = os.path.join(TMP, "sync")
        shutil.copytree(CLEAN, job)
        plant_syncs(job)
        n, ns, idle, span = sync_truth(job)
        self.assertGreaterEqual(ns, 0.5 * idle)
        row = findings(job)["sync_idle"]
        self.assertTrue(row["figures"].startswith(
            f"{n} idle gaps began while the host was blocked in a synchronize call: {100 * ns / idle:.1f} % of the "
            f"GPUs' idle time (idle "), row["figures"])
        self.assertEqual(row["at_stake_ns"], ns)
        self.assertEqual(row["severity"], severity(ns, span))
        self.assertEqual(row["at_stake_pct"], round(100 * ns / span, 1))

    def test_counter_replay(self):
        # Counters on every kernel of rank0 and on the kernels of rank1 with an even op id.
        job = os.path.join(TMP, "counters")
        subprocess.run([GEN, "--out", job] + "--procs 2 --format rpd3 --ops 400 --seed 3 --gpus 1 --rpd-counters 2"
                       .split(), check=True, stdout=subprocess.DEVNULL)
        with sqlite3.connect(os.path.join(job, "rank1.rpd")) as db:
            db.execute("DELETE FROM rocpd_counter WHERE op_id % 2 = 1")
        counted = kernels = counted_ns = kernel_ns = 0
        for rank in range(2):
            with sqlite3.connect(os.path.join(job, f"rank{rank}.rpd")) as db:
                for op, dur in db.execute(
                        'SELECT o.id, o."end" - o.start FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id '
                        "WHERE t.string = 'KernelExecution'"):
                    has = db.execute("SELECT 1 FROM rocpd_counter WHERE op_id = ?", (op,)).fetchone() is not None
                    kernels, kernel_ns = kernels + 1, kernel_ns + dur
                    counted, counted_ns = counted + has, counted_ns + dur * has
        self.assertLess(counted, kernels)
        row = findings(job)["counter_replay"]
        self.assertTrue(row["figures"].startswith(
            f"counters on {counted} of {kernels} kernels of 2 members ({100 * counted_ns / kernel_ns:.1f} % of their "
            "kernel time)"), row["figures"])
        self.assertEqual((row["at_stake_ns"], row["severity"]), (counted_ns, severity(counted_ns, kernel_ns)))
        self.assertEqual(row["at_stake_pct"], round(100 * counted_ns / kernel_ns, 1))
        # No counters, no finding; and no low_roof: no generated counter maps to FLOPs and bytes.
        self.assertNotIn("counter_replay", findings(CLEAN))
        self.assertNotIn("low_roof", findings(job))

    def test_user_rule(self):
        rows = query(CLEAN, "SELECT 1")  # the connection below replaces the rule view
        self.assertEqual(rows, [{"1": 1}])
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        con.load_extension(EXT)
        con.execute("SELECT rocpd_open(?)", (os.path.join(CLEAN, "rank*.rpd"),))
        con.executescript("DROP VIEW rocpd_user_findings; CREATE TEMP VIEW rocpd_user_findings AS "
                          "SELECT 'many_copies' AS rule, 'low' AS severity, count(*) || ' copies' AS figures, "
                          "sum(duration) AS at_stake_ns, NULL AS at_stake_pct, 'rocpd_copy_summary' AS next, "
                          "NULL AS evidence FROM rocpd_ops WHERE kind = 'copy'")
        got = con.execute("SELECT figures, at_stake_ns FROM rocpd_findings WHERE rule = 'many_copies'").fetchall()
        n, ns = con.execute("SELECT count(*), sum(duration) FROM rocpd_ops WHERE kind = 'copy'").fetchone()
        self.assertEqual(got, [(f"{n} copies", ns)])


if __name__ == "__main__":
    try:
        unittest.main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
