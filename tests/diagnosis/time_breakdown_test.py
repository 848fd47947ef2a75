"""rocpd_time_breakdown (docs/diagnosis.md, "rocpd_time_breakdown"): every row equals a brute force
written here from the documented definitions over the rows of rocpd_ops and rocpd_apis (Python
unions of the classes' intervals, clipped to each step), per gpu and per step, on:

- a generated job with planted steps in four formats at once (rocpd_gen --format vendors --steps:
  rpd v2, rocprofv3 rocpd, Nsight Systems with memsets, Kineto), plus a copy of its rpd member with
  barrier ops planted (the 'other' class), and a 3-rank mixed job with steps (rpd v2, rpd v3 with
  multi-node pid encoding, rocprofv3); the step rows are the planted ProfilerStep#k ranges and
  the whole-gpu rows' busy time and span are the generator's truth;
- the real traces of ../shared/data: nsys_h100_2gpu.sqlite (a copy-bound job: kernels ~2 %, copies
  ~97 % of the span), the two-rank Kineto job, matmul_result.rpd (skipped when absent).

And the table's surface: the pattern argument and hidden column, gpu and db pushdown with rowids
unchanged by them, consistency with rocpd_busy and rocpd_comm_classes, errors, DIRECTONLY.
"""
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SHARED_DATA, connect, generate, main  # noqa: E402

STEPS = 3
TMP = None
JOB = None
TRUTH = None
MIXED = None  # rpd v2, rpd v3 (multi-node pid encoding) and rocprofv3, with steps
COMM = re.compile(r"nccl|rccl|cross_device_reduce", re.I)
COLUMNS = ("db", "gpu", "pid", "step", "name", "start", "end", "span_ns", "busy_ns", "compute_ns", "comm_ns", "copy_ns",
           "other_ns", "overlap_ns", "copy_overlap_ns", "idle_ns", "busy_pct", "compute_pct", "comm_pct", "copy_pct",
           "other_pct", "overlap_pct", "idle_pct")


def setUpModule():
    global TMP, JOB, TRUTH, MIXED
    TMP = tempfile.mkdtemp(prefix="time_breakdown_test_")
    JOB = os.path.join(TMP, "job")
    TRUTH = generate(JOB, 4, "vendors", 600, 11, "--steps", STEPS, "--gpus", 2, "--memsets", 5)
    MIXED = os.path.join(TMP, "mixed")
    generate(MIXED, 3, "mixed", 400, 12, "--steps", 2, "--gpus", 2, "--rpd-nodes", 2)


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def shared(name):
    path = os.path.join(SHARED_DATA, name)
    return path if SHARED_DATA and os.path.exists(path) else None


def opened(*paths):
    con = connect()
    for p in paths:
        con.execute("SELECT rocpd_open(?)", (p,))
    return con


# --- the brute force, from the documented definitions ------------------------------------------

def like(pattern, text):
    rx = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text, re.I | re.S) is not None


def union(intervals, lo=None, hi=None):
    """Length of the union of [s, e) clipped to [lo, hi) (None: open)."""
    parts = []
    for s, e in intervals:
        s, e = s if lo is None else max(s, lo), e if hi is None else min(e, hi)
        if e > s:
            parts.append((s, e))
    parts.sort()
    total, cur_s, cur_e = 0, None, None
    for s, e in parts:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


def op_class(kind, name):
    if kind == "kernel":
        text = name.split("\0")[0] if isinstance(name, str) else ""
        return "comm" if COMM.search(text) else "compute"
    if kind in ("copy", "fill"):
        return "copy"
    return "other"


def pct(part, span):
    """100.0 * part / span (full precision, as SQL computes it); None without a span."""
    return 100.0 * part / span if span else None


def figures(by_class, lo, hi, span):
    c = {k: union(v, lo, hi) for k, v in by_class.items()}
    busy = union([iv for v in by_class.values() for iv in v], lo, hi)
    overlap = c["compute"] + c["comm"] - union(by_class["compute"] + by_class["comm"], lo, hi)
    copy_overlap = c["compute"] + c["copy"] - union(by_class["compute"] + by_class["copy"], lo, hi)
    idle = None if span is None else span - busy
    return dict(span_ns=span, busy_ns=busy, compute_ns=c["compute"], comm_ns=c["comm"], copy_ns=c["copy"],
                other_ns=c["other"], overlap_ns=overlap, copy_overlap_ns=copy_overlap, idle_ns=idle,
                busy_pct=pct(busy, span), compute_pct=pct(c["compute"], span), comm_pct=pct(c["comm"], span),
                copy_pct=pct(c["copy"], span), other_pct=pct(c["other"], span), overlap_pct=pct(overlap, span),
                idle_pct=None if idle is None else pct(idle, span))


def brute_breakdown(con, pattern="ProfilerStep#%"):
    gpus = {}
    for db, gpu, pid, kind, name, s, e in con.execute('SELECT db, gpu, pid, kind, name, start, "end" FROM rocpd_ops'):
        g = gpus.setdefault((db, gpu), dict(pids=set(), first=None, last=None,
                                            cls={"compute": [], "comm": [], "copy": [], "other": []}))
        if pid is not None:
            g["pids"].add(pid)
        if s is None or e is None or e < s:
            continue
        g["first"] = s if g["first"] is None else min(g["first"], s)
        g["last"] = e if g["last"] is None else max(g["last"], e)
        g["cls"][op_class(kind, name)].append((s, e))
    steps = {}
    for rowid, db, pid, name, s, e in con.execute(
            'SELECT rowid, db, pid, name, start, "end" FROM rocpd_apis WHERE domain = \'marker\' AND "end" > start'):
        if isinstance(name, str) and like(pattern, name):
            steps.setdefault((db, pid), []).append((s, rowid, e, name))
    out = []
    for (db, gpu), g in gpus.items():
        span = None if g["first"] is None else g["last"] - g["first"]
        row = dict(db=db, gpu=gpu, pid=None, step=None, name=None, start=g["first"], end=g["last"])
        row.update(figures(g["cls"], None, None, span))
        out.append(row)
        for pid in sorted(g["pids"]):
            for k, (s, _, e, name) in enumerate(sorted(steps.get((db, pid), []))):
                row = dict(db=db, gpu=gpu, pid=pid, step=k, name=name, start=s, end=e)
                row.update(figures(g["cls"], s, e, e - s))
                out.append(row)
    return sorted(out, key=key)


def key(r):
    return (r["db"], r["gpu"] is not None, r["gpu"] or 0, r["pid"] is not None, r["pid"] or 0, -1 if r["step"] is None else r["step"])


def rows(con, sql, args=()):
    cur = con.execute(sql, args)
    names = [d[0] for d in cur.description]
    return sorted((dict(zip(names, r)) for r in cur), key=key)


def breakdown(con, where="", args=()):
    return rows(con, "SELECT %s FROM rocpd_time_breakdown %s" % (", ".join('"%s"' % c for c in COLUMNS), where), args)


class Generated(unittest.TestCase):
    def test_equals_brute_force_on_every_format(self):
        con = opened(JOB)
        got = breakdown(con)
        self.assertEqual(got, brute_breakdown(con))
        formats = {f["db"]: f["format"] for f in TRUTH["files"]}
        self.assertEqual(sorted(formats.values()), ["kineto", "nsys", "rocpd", "rpd"])
        # The planted steps: ProfilerStep#k of each rank, on both gpus of its process.
        for f in TRUTH["files"]:
            mine = [r for r in got if r["db"] == f["db"]]
            for g in f["gpus"]:
                whole = [r for r in mine if r["gpu"] == g["gpu"] and r["step"] is None]
                self.assertEqual(len(whole), 1)
                w = whole[0]
                self.assertEqual((w["busy_ns"], w["start"], w["end"]), (g["busy_ns"], g["first_ns"], g["last_ns"]), f["db"])
                named = [r["name"] for r in mine if r["gpu"] == g["gpu"] and r["step"] is not None]
                self.assertEqual(named, ["ProfilerStep#%d" % k for k in range(f["steps"]["count"])], f["db"])
        # Collectives overlap compute (on gpu 0, where the generator puts them); nsys memsets are fills.
        self.assertTrue(all(r["comm_ns"] > 0 and r["overlap_ns"] > 0 for r in got if r["gpu"] == 0 and r["step"] is None))
        self.assertTrue(all(r["comm_ns"] == 0 for r in got if r["gpu"] == 1))
        nsys = [f["db"] for f in TRUTH["files"] if f["format"] == "nsys"][0]
        self.assertGreater(con.execute("SELECT count(*) FROM rocpd_ops WHERE db = ? AND kind = 'fill'", (nsys,)).fetchone()[0], 0)
        for r in got:
            parts = r["compute_ns"] + r["comm_ns"] - r["overlap_ns"]
            self.assertLessEqual(parts, r["busy_ns"])
            self.assertEqual(r["idle_ns"], r["span_ns"] - r["busy_ns"])

    def test_equals_brute_force_on_rpd_v3_and_mixed(self):
        con = opened(MIXED)
        got = breakdown(con)
        self.assertEqual(got, brute_breakdown(con))
        self.assertEqual(len([r for r in got if r["step"] is not None]), 3 * 2 * 2)  # 3 ranks x 2 gpus x 2 steps

    def test_other_ops_from_a_planted_barrier(self):
        rpd = [f["file"] for f in TRUTH["files"] if f["format"] == "rpd"][0]
        path = os.path.join(TMP, "barriers.rpd")
        shutil.copy(os.path.join(JOB, rpd), path)
        w = sqlite3.connect(path)
        w.execute("INSERT INTO rocpd_string(string) VALUES ('BarrierAnd')")
        w.execute("UPDATE rocpd_op SET opType_id = (SELECT max(id) FROM rocpd_string) WHERE id % 7 = 0")
        w.commit()
        w.close()
        con = opened(path)
        got = breakdown(con)
        self.assertEqual(got, brute_breakdown(con))
        self.assertTrue(all(r["other_ns"] > 0 for r in got if r["step"] is None))

    # Inputs the generated jobs lack, planted in a copy of the rpd member (each test its own).

    def edited(self, name, edit):
        """A copy of the job's rpd member changed by edit(connection, brute force rows); its path."""
        rpd = [f["file"] for f in TRUTH["files"] if f["format"] == "rpd"][0]
        path = os.path.join(TMP, name + ".rpd")
        shutil.copy(os.path.join(JOB, rpd), path)
        want = brute_breakdown(opened(path))
        w = sqlite3.connect(path)
        # gpuId may be NULL (the DDL's NOT NULL removed, as a file written by another tool may lack it).
        w.execute("PRAGMA writable_schema = ON")
        w.execute("UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE name = 'rocpd_op'")
        w.commit()
        w.close()
        w = sqlite3.connect(path)
        edit(w, want)
        w.commit()
        w.close()
        return path

    def gpu0_ops(self, w):
        return [r[0] for r in w.execute("SELECT id FROM rocpd_op WHERE gpuId = 0 ORDER BY id")]

    def test_ops_straddling_step_edges(self):
        # Clipped to the step to the nanosecond, at its start and at its end.
        def edit(w, want):
            step = next(r for r in want if r["step"] == 1 and r["gpu"] == 0)
            ops = self.gpu0_ops(w)
            a, b = ops[len(ops) // 3], ops[len(ops) // 3 + 1]
            w.execute('UPDATE rocpd_op SET start = ?, "end" = ? WHERE id = ?', (step["start"] - 700, step["start"] + 300, a))
            w.execute('UPDATE rocpd_op SET start = ?, "end" = ? WHERE id = ?', (step["end"] - 300, step["end"] + 700, b))
        con = opened(self.edited("straddling", edit))
        self.assertEqual(breakdown(con), brute_breakdown(con))

    def test_zero_length_first_and_last_ops(self):
        # A gpu whose first and last ops last 0 ns: they still bound its span.
        bounds = {}

        def edit(w, want):
            whole = next(r for r in want if r["step"] is None and r["gpu"] == 0)
            bounds["span"] = (whole["start"] - 5000, whole["end"] + 5000)
            ops = self.gpu0_ops(w)
            w.execute('UPDATE rocpd_op SET start = ?, "end" = ? WHERE id = ?', (bounds["span"][0],) * 2 + (ops[0],))
            w.execute('UPDATE rocpd_op SET start = ?, "end" = ? WHERE id = ?', (bounds["span"][1],) * 2 + (ops[-1],))
        con = opened(self.edited("zero_length", edit))
        got = breakdown(con)
        self.assertEqual(got, brute_breakdown(con))
        whole = next(r for r in got if r["step"] is None and r["gpu"] == 0)
        self.assertEqual((whole["start"], whole["end"]), bounds["span"])

    def test_null_gpu_beside_integer_gpus(self):
        # Ops with a NULL gpu right after ops of gpu 0 in the member's rows: a gpu of their own.
        def edit(w, want):
            n = w.execute("UPDATE rocpd_op SET gpuId = NULL WHERE id IN (SELECT o.id FROM rocpd_op o JOIN rocpd_op p "
                          "ON p.id = o.id - 1 WHERE p.gpuId = 0 AND o.gpuId = 0 AND o.id % 3 = 0)").rowcount
            self.assertGreater(n, 5)
        con = opened(self.edited("null_gpu", edit))
        got = breakdown(con)
        self.assertEqual(got, brute_breakdown(con))
        self.assertEqual(len([r for r in got if r["gpu"] is None and r["step"] is None]), 1)
        # rocpd_busy and rocpd_comm_classes read the gpus their own ways: the same gpus, the same figures.
        self.assertEqual(rows(con, "SELECT db, gpu, NULL AS pid, NULL AS step, busy_ns, span_ns FROM rocpd_busy"),
                         [{k: r[k] for k in ("db", "gpu", "pid", "step", "busy_ns", "span_ns")}
                          for r in got if r["step"] is None])
        self.assertEqual(rows(con, "SELECT db, gpu, NULL AS pid, NULL AS step, compute_ns FROM rocpd_comm_classes"),
                         [{k: r[k] for k in ("db", "gpu", "pid", "step", "compute_ns")} for r in got if r["step"] is None])

    def test_pattern_argument_and_hidden_column(self):
        con = opened(JOB)
        want = brute_breakdown(con, "%Step#1")
        self.assertEqual(breakdown(con, "WHERE pattern = '%Step#1'"), want)
        got = rows(con, "SELECT *, pattern FROM rocpd_time_breakdown('%Step#1')")
        self.assertTrue(all(r.pop("pattern") == "%Step#1" for r in got))
        self.assertEqual(got, want)
        self.assertEqual([r["name"] for r in got if r["step"] is not None], ["ProfilerStep#1"] * 8)
        self.assertEqual(con.execute("SELECT DISTINCT pattern FROM rocpd_time_breakdown").fetchall(),
                         [("ProfilerStep#%",)])
        self.assertEqual(breakdown(con, "WHERE pattern = NULL"), brute_breakdown(con))
        self.assertEqual(breakdown(con, "WHERE pattern = 'nothing such'"),
                         [r for r in want if r["step"] is None])

    def test_plain_table_behaviour(self):
        con = opened(JOB)
        full = con.execute("SELECT rowid, db, gpu, step FROM rocpd_time_breakdown").fetchall()
        self.assertEqual(len({r[0] for r in full}), len(full))
        self.assertEqual(sorted(con.execute("SELECT rowid, db, gpu, step FROM rocpd_time_breakdown WHERE gpu = 1")),
                         sorted(r for r in full if r[2] == 1))
        self.assertEqual(sorted(con.execute("SELECT rowid, db, gpu, step FROM rocpd_time_breakdown "
                                            "WHERE db = 'rank2' AND gpu = 0")),
                         sorted(r for r in full if r[1] == "rank2" and r[2] == 0))
        n = con.execute("SELECT count(*) FROM rocpd_time_breakdown WHERE gpu = 1 OR step = 2").fetchone()[0]
        self.assertEqual(n, sum(1 for r in full if r[2] == 1 or r[3] == 2))
        # The gpu column's INTEGER affinity converts '1', as a plain table's would.
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_time_breakdown WHERE gpu = '1'").fetchone()[0],
                         sum(1 for r in full if r[2] == 1))
        # The whole-gpu rows agree with rocpd_busy and with rocpd_comm_classes' compute kernels.
        self.assertEqual(rows(con, "SELECT db, gpu, NULL AS pid, NULL AS step, busy_ns, span_ns FROM rocpd_busy"),
                         rows(con, "SELECT db, gpu, pid, step, busy_ns, span_ns FROM rocpd_time_breakdown "
                                   "WHERE step IS NULL"))
        self.assertEqual(rows(con, "SELECT db, gpu, NULL AS pid, NULL AS step, compute_ns FROM rocpd_comm_classes"),
                         rows(con, "SELECT db, gpu, pid, step, compute_ns FROM rocpd_time_breakdown WHERE step IS NULL"))

    def test_errors_empty_and_directonly(self):
        con = opened(JOB)
        with self.assertRaises(Exception) as cm:
            con.execute("SELECT * FROM rocpd_time_breakdown(3)").fetchall()
        self.assertIn("rocpd_time_breakdown: pattern must be text (a LIKE pattern such as 'ProfilerStep#%')",
                      str(cm.exception))
        con = connect()
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_time_breakdown").fetchone()[0], 0)
        con.execute("CREATE VIEW v AS SELECT count(*) FROM rocpd_time_breakdown")
        con.execute("PRAGMA trusted_schema = 1")
        with self.assertRaisesRegex(Exception, "unsafe use of virtual table"):
            con.execute("SELECT * FROM v").fetchall()


class RealTraces(unittest.TestCase):
    def check(self, *names):
        paths = [shared(n) for n in names]
        if not all(paths):
            self.skipTest("%s not in ROCPD_SHARED_DATA (%r)" % (", ".join(names), SHARED_DATA))
        con = opened(*paths)
        got = breakdown(con)
        self.assertEqual(got, brute_breakdown(con))
        return got

    def test_nsys_copy_bound_job(self):
        got = self.check("nsys_h100_2gpu.sqlite")
        self.assertEqual(len(got), 2)  # two gpus, no steps
        for r in got:
            self.assertTrue(1.5 < r["compute_pct"] < 3, r)
            self.assertTrue(96 < r["copy_pct"] < 98, r)
            self.assertTrue(99 < r["busy_pct"] < 99.5, r)

    def test_kineto_two_ranks(self):
        got = self.check("kineto_rank0.json.gz", "kineto_rank1.json.gz")
        steps = [(r["db"], r["name"]) for r in got if r["step"] is not None]
        self.assertEqual(steps, [(db, "ProfilerStep#%d" % k) for db in ("kineto_rank0", "kineto_rank1")
                                 for k in (551, 552)])
        self.assertTrue(all(r["comm_ns"] > 0 for r in got))
        # HTA's temporal breakdown of these files (HolisticTraceAnalysis f4d0062c, include_last_profiler_step=True;
        # docs/diagnosis.md): idle, compute, non-compute and kernel time in us, per rank.
        hta = {"kineto_rank0": (675191, 210320, 337336, 1222847), "kineto_rank1": (651136, 271973, 308077, 1231186)}
        for r in got:
            if r["step"] is None:
                self.assertEqual((r["idle_ns"], r["compute_ns"], r["busy_ns"] - r["compute_ns"], r["span_ns"]),
                                 tuple(1000 * v for v in hta[r["db"]]), r["db"])

    def test_matmul_rpd(self):
        got = self.check("matmul_result.rpd")
        self.assertEqual([r["busy_ns"] for r in got], [183918056])  # the published busy time (docs/diagnosis.md)


if __name__ == "__main__":
    main()
