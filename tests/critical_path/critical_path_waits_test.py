"""Waiting for the GPU on the critical path (docs/critical_path.md, "Waiting for the GPU" and "Waits
between streams") on generated jobs whose path is known by construction (rocpd_gen --critical-path
queue, event, event_untraced, copy, hostbound: docs/generator.md; the truth comes from the
generator's formulas, never from this extension):

- queue: launches that found the launch queue full are bound by the GEMM whose end released them
  (`gpu_wait`, inferred: as many inferred edges per step as launches blocked, by construction), and
  the what-if of the GEMMs at 0.5 predicts the job generated with GEMMs half as long (within 5 %);
  the launches at 0.5 change almost nothing;
- event / event_untraced: an all-reduce on a second queue that waits for the GEMMs through an event
  is bound by the last GEMM (`stream_wait`), recorded from the event calls or inferred from the
  timing; the same in the Nsight Systems file of the job (its synchronization records);
- copy: a synchronous hipMemcpy waits for its copy (`gpu_wait`, recorded);
- hostbound and the older shapes: nothing is inferred (slow calls while the GPU idles, a late kernel
  with no op ending near it);
- predictions are monotone in the factor.
"""
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import connect, generate, main  # noqa: E402

TMP = None
JOBS = {}
STEPS = 3


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="critical_path_waits_")
    for key, shape, ops, fmt, extra in (
            ("queue", "queue", 64, "rpd3", ()), ("queue_half", "queue", 64, "rpd3", ("--gemm", 100000)),
            ("event", "event", 16, "rpd3", ()), ("event_half", "event", 16, "rpd3", ("--gemm", 100000)),
            ("event_untraced", "event_untraced", 16, "rpd3", ()),
            ("event_untraced_half", "event_untraced", 16, "rpd3", ("--gemm", 100000)),
            ("event_nsys", "event", 16, "nsys", ()),
            ("copy", "copy", 8, "rpd3", ()), ("copy_half", "copy", 8, "rpd3", ("--gemm", 100000)),
            ("hostbound", "hostbound", 10, "rocpd", ()),
            ("cpu", "cpu", 10, "rpd3", ()), ("gpu", "gpu", 10, "rpd3", ()), ("sync", "sync", 10, "rpd3", ())):
        out = os.path.join(TMP, key)
        JOBS[key] = (out, generate(out, 1, fmt, ops * STEPS, 7, "--steps", STEPS, "--critical-path", shape, *extra))


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def opened(key):
    con = connect()
    con.execute("SELECT rocpd_open(?)", (JOBS[key][0],))
    return con


def truth(key):
    return JOBS[key][1]["files"][0]["critical_path"]


def rows(con):
    cur = con.execute("SELECT kind, name, waited_for, inferred, step, start, \"end\", duration, step_inferred_edges "
                      "FROM rocpd_critical_path ORDER BY step, start")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur]


def per(rows_, step, field):
    out = {}
    for r in rows_:
        if r["step"] != step or r[field] is None:
            continue
        key = "ProfilerStep#" if field == "name" and r["name"].startswith("ProfilerStep#") else r[field]
        out[key] = out.get(key, 0) + r["duration"]
    return out


class Shapes(unittest.TestCase):
    def check(self, key, inferred_edges, name_kinds=True):
        """Per step: the time by kind and by name is the truth's, the segments tile the step, the waits
        name the op the truth says they waited for, and `inferred_edges` edges were inferred."""
        con = opened(key)
        t = truth(key)
        got = rows(con)
        self.assertEqual(sorted({r["step"] for r in got}), list(range(STEPS)))
        for k in range(STEPS):
            segs = [r for r in got if r["step"] == k]
            self.assertEqual(per(got, k, "kind"), t["path_kinds"], "%s step %d by kind" % (key, k))
            if name_kinds:
                self.assertEqual(per(got, k, "name"), t["path_names"], "%s step %d by name" % (key, k))
            for a, b in zip(segs, segs[1:]):
                self.assertEqual(a["end"], b["start"])
            self.assertEqual(sum(s["duration"] for s in segs), t["job_step_ns"])
            for s in segs:
                if s["kind"] in t["path_waited_for"]:
                    self.assertEqual(s["waited_for"], t["path_waited_for"][s["kind"]], (key, s))
            self.assertEqual({s["step_inferred_edges"] for s in segs}, {inferred_edges}, key)
        self.assertEqual([r[0] for r in con.execute("SELECT inferred_edges FROM rocpd_what_if(NULL, 'x', 1)")],
                         [inferred_edges] * STEPS)
        return con, got

    def test_queue_back_pressure(self):
        t = truth("queue")
        self.assertEqual(t["blocked_launches"], 64 - 8)
        con, got = self.check("queue", t["blocked_launches"])
        waits = [r for r in got if r["kind"] == "gpu_wait"]
        self.assertEqual(len(waits), STEPS)
        for w in waits:
            self.assertEqual((w["name"], w["inferred"]), ("hipLaunchKernel", 1))
        # Never `launch` beyond the first launch and its latency: the blocked time is not the call's.
        self.assertEqual({r["duration"] for r in got if r["kind"] == "launch"}, {8000})

    def test_event_wait_recorded_or_inferred(self):
        for key, inferred in (("event", 0), ("event_untraced", 1)):
            with self.subTest(key=key):
                self.assertEqual(truth(key)["stream_waits"], 1)
                _, got = self.check(key, inferred)
                waits = [r for r in got if r["kind"] == "stream_wait"]
                self.assertEqual([w["inferred"] for w in waits], [inferred] * STEPS)
                self.assertTrue(all(w["name"].startswith("ncclDevKernel_AllReduce") for w in waits))
        # The Nsight Systems file of the job: its 'Stream Wait Event' records name the waiting
        # stream; its calls are CUDA's (the kinds agree, not the names).
        self.check("event_nsys", 0, name_kinds=False)

    def test_synchronous_copy(self):
        _, got = self.check("copy", 0)
        self.assertEqual({(r["name"], r["inferred"]) for r in got if r["kind"] == "gpu_wait"}, {("hipMemcpy", 0)})

    def test_nothing_inferred_where_nothing_waited(self):
        for key in ("hostbound", "cpu", "gpu", "sync"):
            with self.subTest(key=key):
                _, got = self.check(key, 0)
                self.assertFalse([r for r in got if r["kind"] in ("gpu_wait", "stream_wait")])


class BoundBy(unittest.TestCase):
    """rocpd_critical_path_summary.bound_by against the truth's kinds and names (shares to 0.1 %)."""

    def check(self, text, pattern, *numbers_and_names):
        m = re.fullmatch(pattern, text)
        self.assertIsNotNone(m, text)
        for got, want in zip(m.groups(), numbers_and_names):
            if isinstance(want, float):
                self.assertAlmostEqual(float(got), want, delta=0.051, msg=text)
            else:
                self.assertEqual(got, want, text)

    def test_gpu_bound(self):
        t = truth("queue")
        con = opened("queue")
        gemm = [n for n in t["path_names"] if n.startswith("Cijk_")][0]
        shown = con.execute("SELECT rocpd_display_name(?)", (gemm,)).fetchone()[0]
        for (text,) in con.execute("SELECT bound_by FROM rocpd_critical_path_summary"):
            self.check(text, r"GPU-bound: kernels ([\d.]+) % of the path \((.+) ([\d.]+) %\)",
                       100.0 * t["path_kinds"]["kernel"] / t["job_step_ns"], shown,
                       100.0 * t["path_names"][gemm] / t["job_step_ns"])

    def test_cpu_bound(self):
        t = truth("hostbound")
        con = opened("hostbound")
        cpu = t["job_step_ns"] - t["path_kinds"]["kernel"]
        for (text,) in con.execute("SELECT bound_by FROM rocpd_critical_path_summary"):
            self.check(text, r"CPU-bound: CPU ([\d.]+) % of the path \(cpu_op (aten::addmm) ([\d.]+) %\)",
                       100.0 * cpu / t["job_step_ns"], "aten::addmm",
                       100.0 * t["path_names"]["aten::addmm"] / t["job_step_ns"])


class WhatIf(unittest.TestCase):
    def measured(self, key):
        return {k: ns for k, ns in opened(key).execute("SELECT step, sum(duration) FROM rocpd_critical_path GROUP BY step")}

    def test_gemms_at_half_predict_the_regenerated_job(self):
        for key in ("queue", "event", "event_untraced", "copy"):
            with self.subTest(key=key):
                half = self.measured(key + "_half")
                self.assertEqual(set(half.values()), {truth(key + "_half")["job_step_ns"]})
                got = opened(key).execute(
                    "SELECT step, measured_ns, predicted_ns FROM rocpd_what_if(NULL, 'Cijk%', 0.5)").fetchall()
                self.assertEqual(len(got), STEPS)
                for step, measured, predicted in got:
                    self.assertEqual(measured, truth(key)["job_step_ns"])
                    self.assertLessEqual(abs(predicted - half[step]), 0.05 * half[step], (key, step, predicted, half[step]))

    def test_launches_at_half_change_almost_nothing(self):
        for key in ("queue", "event"):
            with self.subTest(key=key):
                for _, measured, predicted in opened(key).execute(
                        "SELECT step, measured_ns, predicted_ns FROM rocpd_what_if(NULL, 'hipLaunchKernel', 0.5)"):
                    self.assertLess(measured - predicted, 0.01 * measured)
                    self.assertGreaterEqual(measured, predicted)

    def test_long_ops_saturate_or_are_refused(self):
        # A copy of a one-step event job whose all-reduce (and the calls waiting for it) last 10^13 ns
        # longer: x1000 still predicts (no wrap-around: longer than measured, by 999 times the
        # all-reduce's work); x10^6 would pass 2^62 ns and is refused by name.
        out = os.path.join(TMP, "long")
        generate(out, 1, "rpd3", 8, 7, "--steps", 1, "--critical-path", "event")
        path = os.path.join(out, "rank0.rpd")
        db = sqlite3.connect(path)
        db.executescript(
            "CREATE TEMP TABLE ar AS SELECT o.id, o.\"end\" AS e FROM rocpd_op o JOIN rocpd_string s "
            "ON s.id = o.description_id WHERE s.string LIKE 'nccl%';"
            "UPDATE rocpd_api SET \"end\" = \"end\" + 10000000000000 WHERE \"end\" >= (SELECT e FROM ar);"
            "UPDATE rocpd_op SET \"end\" = \"end\" + 10000000000000 WHERE id IN (SELECT id FROM ar);")
        db.commit()
        db.close()
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        work = 100_000 + 10_000_000_000_000
        (measured, predicted), = con.execute("SELECT measured_ns, predicted_ns FROM rocpd_what_if(NULL, 'nccl%', 1000)")
        self.assertEqual(predicted - measured, 999 * work)
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT * FROM rocpd_what_if(NULL, 'nccl%', 1e6)").fetchall()
        self.assertIn("rocpd_what_if: step 0: the predicted step end lies beyond 2^62 ns (146 years): factor 1000000 "
                      "makes the ops, ranges or calls matching 'nccl%' too long to predict", str(cm.exception))

    def test_monotone_in_the_factor(self):
        for key in ("queue", "event_untraced", "copy", "hostbound"):
            con = opened(key)
            for pattern in ("Cijk%", "hipLaunchKernel", "%"):
                last = None
                for factor in (0, 0.1, 0.25, 0.5, 1, 1.5, 2, 8, 1000):
                    got = [p for (p,) in con.execute(
                        "SELECT predicted_ns FROM rocpd_what_if(NULL, ?, ?) ORDER BY step", (pattern, factor))]
                    if last is not None:
                        for a, b in zip(last, got):
                            self.assertLessEqual(a, b, (key, pattern, factor))
                    last = got


if __name__ == "__main__":
    main()
