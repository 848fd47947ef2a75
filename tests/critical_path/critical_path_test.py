"""The critical path (docs/critical_path.md) on generated jobs whose path is known by construction
(rocpd_gen --critical-path, docs/generator.md "Critical path shapes"; the truth comes from the
generator's formulas over the shapes' constants, never from this extension):

- (a) cpu: one rank, a long operator before each launch: the path is the operators and launch calls,
  one kernel, the final synchronize; (b) gpu: back-to-back kernels: the path is the kernels and the
  gaps between them; (c) sync: a hipStreamSynchronize in the middle of the step; per step, the time
  by kind and by name equals the truth, and the segments tile the step (contiguous, summing to it).
- (d) loader: 8 ranks, rank5's data loader delays its all-reduce: the path crosses from the rank
  ending last (rank7: collective_wait from rank5's arrival) into rank5; per member and kind, the
  truth; rocpd_critical_path_summary's shares.
- (e) rocpd_what_if of rank5's loader at 0.5x equals the step time measured on the same job
  generated with the loader half as long (within 1 %); the what-if of the cpu and gpu shapes' work
  equals the formula with the changed constant; factor 1 reproduces every measured step.
- A job of the canonical --steps workload (collectives matched across ranks, a straggler): segments
  tile every step; factor 1 reproduces it.
- The real Kineto pair (kineto_rank0/1.json.gz): the path of each ProfilerStep tiles its span.
- Errors, hidden arguments, rowids, DIRECTONLY, and the generator's option errors.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import GEN, SHARED_DATA, connect, generate, main  # noqa: E402

TMP = None
JOBS = {}
STEPS = 3


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="critical_path_test_")
    for shape, procs, extra in (("cpu", 1, ()), ("gpu", 1, ()), ("sync", 1, ()),
                                ("loader", 8, ("--loader", "5:3000000")),
                                ("loader_half", 8, ("--loader", "5:1500000"))):
        out = os.path.join(TMP, shape)
        JOBS[shape] = (out, generate(out, procs, "rpd3", 30, 7, "--steps", STEPS, "--critical-path",
                                     shape.split("_")[0], *extra))


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def opened(path):
    con = connect()
    con.execute("SELECT rocpd_open(?)", (path,))
    return con


def path_rows(con, pattern=None):
    sql = ("SELECT db, pid, tid, gpu, queue, kind, name, start, \"end\", duration, step FROM rocpd_critical_path"
           + ("(?)" if pattern is not None else "") + " ORDER BY step, start")
    cur = con.execute(sql, (pattern,) if pattern is not None else ())
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur]


def step_spans(con, pattern="ProfilerStep#%", dbs=None):
    """Per step: the first start and the last end over every member process (from rocpd_apis), of
    the members `dbs` (all by default)."""
    spans = {}
    for db, pid, start, end in con.execute(
            "SELECT db, pid, start, \"end\" FROM rocpd_apis WHERE domain = 'marker' AND \"end\" > start "
            "AND name LIKE ? ORDER BY db, pid, start", (pattern,)):
        if dbs is None or db in dbs:
            spans.setdefault((db, pid), []).append((start, end))
    out = {}
    for ranges in spans.values():
        for k, (s, e) in enumerate(ranges):
            lo, hi = out.get(k, (s, e))
            out[k] = (min(lo, s), max(hi, e))
    return out


def path_rows_with_run(con):
    cur = con.execute("SELECT run, db, kind, name, start, \"end\", duration, step FROM rocpd_critical_path "
                      "ORDER BY run, step, start")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur]


class Tiling:
    def assert_tiles(self, rows, spans):
        by_step = {}
        for r in rows:
            by_step.setdefault(r["step"], []).append(r)
        self.assertEqual(sorted(by_step), sorted(spans))
        for k, segs in by_step.items():
            lo, hi = spans[k]
            self.assertEqual(segs[0]["start"], lo, "step %d starts where its first range starts" % k)
            self.assertEqual(segs[-1]["end"], hi, "step %d ends where its last range ends" % k)
            for a, b in zip(segs, segs[1:]):
                self.assertEqual(a["end"], b["start"], "segments of step %d are contiguous" % k)
            for s in segs:
                self.assertGreater(s["duration"], 0)
                self.assertEqual(s["duration"], s["end"] - s["start"])
            self.assertEqual(sum(s["duration"] for s in segs), hi - lo)


def by_kind(rows, step, db=None):
    out = {}
    for r in rows:
        if r["step"] == step and (db is None or r["db"] == db):
            out[r["kind"]] = out.get(r["kind"], 0) + r["duration"]
    return out


def by_name(rows, step, db=None):
    out = {}
    for r in rows:
        if r["step"] == step and (db is None or r["db"] == db) and r["name"] is not None:
            name = "ProfilerStep#" if r["name"].startswith("ProfilerStep#") else r["name"]
            out[name] = out.get(name, 0) + r["duration"]
    return out


class SingleRank(unittest.TestCase, Tiling):
    def check_shape(self, shape):
        path, truth = JOBS[shape]
        f = truth["files"][0]["critical_path"]
        con = opened(path)
        rows = path_rows(con)
        self.assert_tiles(rows, step_spans(con))
        for k in range(STEPS):
            self.assertEqual(by_kind(rows, k), f["path_kinds"], "%s step %d by kind" % (shape, k))
            self.assertEqual(by_name(rows, k), f["path_names"], "%s step %d by name" % (shape, k))
            self.assertEqual(sum(by_kind(rows, k).values()), f["job_step_ns"])
        return con, rows, f

    def test_a_cpu_bound(self):
        con, rows, f = self.check_shape("cpu")
        # The GPU idles: one kernel of each step is on the path (the one the final sync waits for).
        self.assertEqual(sum(1 for r in rows if r["kind"] == "kernel"), STEPS)
        self.assertGreater(by_kind(rows, 0)["cpu_op"], 0.9 * f["job_step_ns"])
        m = f["ops_per_step"]
        what = con.execute("SELECT step, measured_ns, predicted_ns, matches FROM rocpd_what_if(NULL, 'aten::addmm', 0.5)").fetchall()
        self.assertEqual(what, [(k, f["job_step_ns"], f["job_step_ns"] - m * 100_000, m) for k in range(STEPS)])

    def test_b_gpu_bound(self):
        con, rows, f = self.check_shape("gpu")
        self.assertGreater(by_kind(rows, 0)["kernel"], 0.95 * f["job_step_ns"])
        m = f["ops_per_step"]
        what = con.execute("SELECT step, measured_ns, predicted_ns FROM rocpd_what_if('ProfilerStep%', 'Cijk%', 0.5)").fetchall()
        self.assertEqual(what, [(k, f["job_step_ns"], f["job_step_ns"] - m * 150_000) for k in range(STEPS)])
        # Launches twice as slow do not matter: the kernels bind (the first launch's call grows 5 us).
        what = con.execute("SELECT predicted_ns FROM rocpd_what_if(NULL, 'hipLaunchKernel', 2)").fetchall()
        self.assertEqual(what, [(f["job_step_ns"] + 5_000,)] * STEPS)

    def test_c_sync_in_the_middle(self):
        con, rows, f = self.check_shape("sync")
        # The path leaves the GPU through the stream synchronize, then runs on the CPU.
        seq = [r["kind"] for r in rows if r["step"] == 0]
        i = seq.index("sync_wait")
        self.assertIn("kernel", seq[:i])
        self.assertIn("cpu_op", seq[i + 1:])
        self.assertEqual([r["name"] for r in rows if r["step"] == 0 and r["kind"] == "sync_wait"],
                         ["hipStreamSynchronize", "hipDeviceSynchronize"])

    def test_back_to_back_ops(self):
        # The gpu shape with every GEMM starting exactly where the one ahead ends (2 us earlier than
        # generated): the stream edge holds for touching ops too (end <= start), so the path runs
        # through the GEMMs without a gap, their launches off it.
        path, truth = JOBS["gpu"]
        f = truth["files"][0]["critical_path"]
        out = os.path.join(TMP, "touching")
        os.makedirs(out, exist_ok=True)
        db_path = os.path.join(out, "rank0.rpd")
        shutil.copy(os.path.join(path, "rank0.rpd"), db_path)
        db = sqlite3.connect(db_path)
        changed = db.execute(
            "UPDATE rocpd_op SET start = start - 2000 WHERE EXISTS (SELECT 1 FROM rocpd_op AS a "
            "WHERE a.queueId = rocpd_op.queueId AND a.\"end\" = rocpd_op.start - 2000)").rowcount
        db.commit()
        db.close()
        m = f["ops_per_step"]
        self.assertEqual(changed, STEPS * (m - 1))
        rows = path_rows(opened(db_path))
        for k in range(STEPS):
            want = dict(f["path_kinds"])
            want["kernel"] += want.pop("idle_gap")
            self.assertEqual(by_kind(rows, k), want, "step %d" % k)
            self.assertEqual(len([r for r in rows if r["step"] == k and r["kind"] == "kernel"]), 1)

    def test_factor_one_reproduces(self):
        for shape in ("cpu", "gpu", "sync", "loader"):
            con = opened(JOBS[shape][0])
            for step, measured, predicted, change in con.execute(
                    "SELECT step, measured_ns, predicted_ns, change_ns FROM rocpd_what_if(NULL, '%', 1)"):
                self.assertEqual(measured, predicted, shape)
                self.assertEqual(change, 0)


class Ranks(unittest.TestCase, Tiling):
    def test_d_loader_crosses_ranks(self):
        path, truth = JOBS["loader"]
        con = opened(path)
        rows = path_rows(con)
        self.assert_tiles(rows, step_spans(con))
        files = {f["db"]: f["critical_path"] for f in truth["files"]}
        for k in range(STEPS):
            for db, f in files.items():
                self.assertEqual(by_kind(rows, k, db), f["path_kinds"], "step %d, %s" % (k, db))
                self.assertEqual(by_name(rows, k, db), f["path_names"], "step %d, %s" % (k, db))
            segs = [r for r in rows if r["step"] == k]
            # From rank5's step start to its arrival, then rank7 waiting in the all-reduce, then rank7's end.
            self.assertEqual(segs[0]["db"], "rank5")
            wait = [r for r in segs if r["kind"] == "collective_wait"]
            self.assertEqual(len(wait), 1)
            self.assertEqual(wait[0]["db"], "rank7")
            arrival = con.execute("SELECT start FROM rocpd_collectives WHERE db = 'rank5' AND instance = ?", (k,)).fetchone()[0]
            self.assertEqual(wait[0]["start"], arrival)
            self.assertEqual(segs[-1]["db"], "rank7")
        summary = con.execute("SELECT step, step_ns, cpu_op_pct, collective_wait_pct, members, by_member, top "
                              "FROM rocpd_critical_path_summary").fetchall()
        self.assertEqual(len(summary), STEPS)
        step_ns = files["rank0"]["job_step_ns"]
        loader = files["rank5"]["path_names"]["DataLoader.__next__"]
        for step, ns, cpu_pct, wait_pct, members, by_member, top in summary:
            self.assertEqual(ns, step_ns)
            self.assertEqual(members, 2)
            self.assertAlmostEqual(wait_pct, round(100.0 * 100_000 / step_ns, 1))
            self.assertTrue(top.startswith("%.1f %% rank5 cpu_op DataLoader.__next__" % (100.0 * loader / step_ns)), top)
        # What bounds it: rank5, most of the path, CPU work there (all but the all-reduce's work).
        rank5 = sum(files["rank5"]["path_kinds"].values())
        for (text,) in con.execute("SELECT bound_by FROM rocpd_critical_path_summary"):
            m = re.fullmatch(r"waiting for rank5 \(([\d.]+) % of the path\): CPU-bound: CPU ([\d.]+) % of the path "
                             r"\(cpu_op DataLoader.__next__ ([\d.]+) %\)", text)
            self.assertIsNotNone(m, text)
            for got, want in zip(m.groups(), (rank5, step_ns - 100_000, loader)):
                self.assertAlmostEqual(float(got), 100.0 * want / step_ns, delta=0.051)

    def test_e_what_if_loader(self):
        _, truth = JOBS["loader"]
        half_path, half_truth = JOBS["loader_half"]
        measured = {k: ns for k, ns in opened(half_path).execute(
            "SELECT step, sum(duration) FROM rocpd_critical_path GROUP BY step")}
        self.assertEqual(set(measured.values()), {half_truth["files"][0]["critical_path"]["job_step_ns"]})
        con = opened(JOBS["loader"][0])
        for step, before, predicted, matches in con.execute(
                "SELECT step, measured_ns, predicted_ns, matches FROM rocpd_what_if('ProfilerStep#%', 'DataLoader%', 0.5)"):
            self.assertEqual(before, truth["files"][0]["critical_path"]["job_step_ns"])
            self.assertLessEqual(abs(predicted - measured[step]), 0.01 * measured[step])
            self.assertEqual(matches, 8)  # every rank's loader

    def test_canonical_steps_job(self):
        out = os.path.join(TMP, "canonical")
        generate(out, 4, "mixed", 600, 5, "--steps", 4, "--straggler", "2:300000", "--gpus", 1)
        con = opened(out)
        rows = path_rows(con)
        self.assert_tiles(rows, step_spans(con))
        kinds = {r["kind"] for r in rows}
        self.assertTrue({"kernel", "launch", "cpu_op"} <= kinds, kinds)
        for _, measured, predicted in con.execute("SELECT step, measured_ns, predicted_ns FROM rocpd_what_if(NULL, '%', 1.0)"):
            self.assertEqual(measured, predicted)
        # Faster collectives never make a step longer; slower ones never shorter.
        for (_, m1, p1), (_, m2, p2) in zip(
                con.execute("SELECT step, measured_ns, predicted_ns FROM rocpd_what_if(NULL, 'nccl%', 0.5)").fetchall(),
                con.execute("SELECT step, measured_ns, predicted_ns FROM rocpd_what_if(NULL, 'nccl%', 2)").fetchall()):
            self.assertLessEqual(p1, m1)
            self.assertGreaterEqual(p2, m2)


class Runs(unittest.TestCase, Tiling):
    """Members opened as runs (rocpd_open(pattern, run)): each run has steps and paths of its own,
    even when the runs were recorded days apart (another seed: another clock base)."""

    def test_runs_have_steps_of_their_own(self):
        other = os.path.join(TMP, "loader_half_later")
        later = generate(other, 8, "rpd3", 30, 9, "--steps", STEPS, "--critical-path", "loader", "--loader", "5:1500000")
        con = connect()
        con.execute("SELECT rocpd_open(?, 'control'), rocpd_open(?, 'test')", (JOBS["loader"][0], other))
        step_ns = {"control": JOBS["loader"][1]["files"][0]["critical_path"]["job_step_ns"],
                   "test": later["files"][0]["critical_path"]["job_step_ns"]}
        self.assertNotEqual(step_ns["control"], step_ns["test"])
        rows = {}
        for r in path_rows_with_run(con):
            rows.setdefault(r["run"], []).append(r)
        self.assertEqual(sorted(rows), ["control", "test"])
        for run, got in rows.items():
            dbs = [d for (d,) in con.execute("SELECT db FROM rocpd_runs WHERE run = ?", (run,))]
            self.assertEqual(len(dbs), 8)
            self.assertTrue(all(r["db"] in dbs for r in got), run)
            self.assert_tiles(got, step_spans(con, dbs=dbs))
            for k in range(STEPS):
                self.assertEqual(sum(r["duration"] for r in got if r["step"] == k), step_ns[run])
        summary = con.execute("SELECT run, step, step_ns, idle_gap_pct FROM rocpd_critical_path_summary").fetchall()
        self.assertEqual(summary, [(run, k, step_ns[run], 0.0) for run in ("control", "test") for k in range(STEPS)])
        # The control run's loader at 0.5 predicts the test run (its loader half as long), step by step.
        what = con.execute("SELECT run, step, measured_ns, predicted_ns, matches, warning "
                           "FROM rocpd_what_if(NULL, 'DataLoader%', 0.5) WHERE run = 'control'").fetchall()
        self.assertEqual(what, [("control", k, step_ns["control"], step_ns["test"], 8, None) for k in range(STEPS)])

    def test_a_pattern_matching_nothing_warns(self):
        con = opened(JOBS["cpu"][0])
        got = con.execute("SELECT step, measured_ns, predicted_ns, matches, warning "
                          "FROM rocpd_what_if(NULL, 'no_such_op%', 0.5)").fetchall()
        self.assertEqual(len(got), STEPS)
        for step, measured, predicted, matches, warning in got:
            self.assertEqual((predicted, matches), (measured, 0))
            self.assertEqual(warning, "name_pattern 'no_such_op%' matches no op, range or call of the step (LIKE, "
                                      "ASCII case-insensitive): predicted_ns is the measured time")


@unittest.skipUnless(SHARED_DATA and os.path.exists(os.path.join(SHARED_DATA, "kineto_rank0.json.gz")),
                     "../shared/data/kineto_rank0.json.gz not present")
class RealKineto(unittest.TestCase, Tiling):
    def test_profiler_steps_tile(self):
        con = connect()
        for r in (0, 1):
            con.execute("SELECT rocpd_open(?)", (os.path.join(SHARED_DATA, "kineto_rank%d.json.gz" % r),))
        rows = path_rows(con)
        spans = step_spans(con)
        self.assertEqual(len(spans), 2)
        self.assert_tiles(rows, spans)
        for _, measured, predicted in con.execute("SELECT step, measured_ns, predicted_ns FROM rocpd_what_if(NULL, '%', 1)"):
            self.assertEqual(measured, predicted)


class Surface(unittest.TestCase):
    def test_arguments_and_errors(self):
        con = opened(JOBS["gpu"][0])
        all_rows = con.execute("SELECT rowid, * FROM rocpd_critical_path").fetchall()
        self.assertEqual(len({r[0] for r in all_rows}), len(all_rows))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_critical_path WHERE step_pattern = 'ProfilerStep#%'").fetchone(),
                         (len(all_rows),))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_critical_path('nothing%')").fetchone(), (0,))
        self.assertEqual(con.execute("SELECT DISTINCT step_pattern FROM rocpd_critical_path('Profiler%')").fetchall(),
                         [("Profiler%",)])
        for sql, message in (
                ("SELECT * FROM rocpd_critical_path(1)", "rocpd_critical_path: step_pattern must be text"),
                ("SELECT * FROM rocpd_what_if(NULL, NULL, 0.5)", "rocpd_what_if: name_pattern must be text"),
                ("SELECT * FROM rocpd_what_if(NULL, 'x')", "rocpd_what_if: factor must be a number >= 0"),
                ("SELECT * FROM rocpd_what_if(NULL, 'x', 'a')", "rocpd_what_if: factor must be a number >= 0"),
                ("SELECT * FROM rocpd_what_if(NULL, 'x', -1)", "rocpd_what_if: factor must be a number between 0 and 1e6, got -1"),
                ("SELECT * FROM rocpd_what_if(2, 'x', 1)", "rocpd_what_if: step_pattern must be text")):
            with self.assertRaises(sqlite3.Error, msg=sql) as cm:
                con.execute(sql).fetchall()
            self.assertIn(message, str(cm.exception))
        # Reads member files: not from a view or trigger of a database file (DIRECTONLY).
        path = os.path.join(TMP, "direct.db")
        con.execute("ATTACH ? AS d", (path,))
        con.execute("CREATE VIEW d.v AS SELECT * FROM rocpd_critical_path")
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT * FROM d.v").fetchall()
        self.assertIn("unsafe use of virtual table", str(cm.exception))

    def test_step_pattern_setting(self):
        # rocpd_step_pattern (docs/ranks.md): the default every step table and view follows.
        con = connect()
        con.execute("SELECT rocpd_open(?, 'r')", (JOBS["loader"][0],))
        self.assertEqual(con.execute("SELECT rocpd_step_pattern()").fetchone(), ("ProfilerStep#%",))
        self.assertEqual(con.execute("SELECT rocpd_step_pattern('DataLoader%')").fetchone(), ("DataLoader%",))
        self.assertEqual(con.execute("SELECT count(*), min(pattern) FROM rocpd_steps").fetchone(), (8 * STEPS, "DataLoader%"))
        self.assertEqual(con.execute("SELECT DISTINCT name, step_pattern FROM rocpd_critical_path").fetchall(),
                         [("DataLoader.__next__", "DataLoader%")])
        self.assertEqual(con.execute("SELECT DISTINCT pattern FROM rocpd_time_breakdown").fetchall(), [("DataLoader%",)])
        self.assertEqual(con.execute("SELECT steps FROM rocpd_run_steps").fetchall(), [(8 * STEPS,)])
        # An argument still wins; NULL restores the default.
        self.assertEqual(con.execute("SELECT count(DISTINCT step) FROM rocpd_critical_path('ProfilerStep#1')").fetchone(), (1,))
        self.assertEqual(con.execute("SELECT rocpd_step_pattern(NULL)").fetchone(), ("ProfilerStep#%",))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_steps").fetchone(), (8 * STEPS,))
        for sql, message in (("SELECT rocpd_step_pattern(1)", "rocpd_step_pattern: the pattern must be text"),
                             ("SELECT rocpd_step_pattern('')", "rocpd_step_pattern: the pattern must not be empty")):
            with self.assertRaises(sqlite3.Error) as cm:
                con.execute(sql).fetchall()
            self.assertIn(message, str(cm.exception))

    def test_generator_options(self):
        out = os.path.join(TMP, "bad")
        for args, message in (
                (["--critical-path", "disk"], "option --critical-path must be cpu, gpu, sync, loader, queue, event, event_untraced, copy or hostbound, got 'disk'"),
                (["--steps", "2", "--critical-path", "loader", "--loader", "9:200000"], "option --loader names rank 9, but there are 8 ranks"),
                (["--steps", "2", "--critical-path", "loader", "--loader", "5:100"], "option --loader must be between 100001"),
                (["--steps", "2", "--critical-path", "cpu", "--loader", "1:200000"], "option --loader needs --critical-path loader"),
                (["--critical-path", "cpu"], "option --critical-path needs --steps")):
            p = subprocess.run([GEN, "--out", out, "--procs", "8", "--format", "rpd3", "--ops", "40", "--seed", "1", *args],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(message, p.stderr)


if __name__ == "__main__":
    main()
