"""The analysis views of sql/views/30-59 (rocpd_kernel_summary, rocpd_kernel_summary_by_db,
rocpd_copy_summary, rocpd_op_summary, rocpd_gpu_summary, rocpd_launch_latency, rocpd_rank_imbalance,
rocpd_rank_summary, rocpd_kernel_histogram, and the _full twins of the views that name kernels),
checked these ways:
  - on hand-made rpd traces whose answers are known by construction,
  - against an independent Python computation (views_reference.py) on the generated fixture sets,
  - against the generator's ground truth (truth.json of each fixture set),
  - against the published analysis of the real trace shared/data/matmul_result.rpd."""
import glob
import json
import math
import os
import sqlite3
import statistics
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from views_reference import Reference, sql_round  # noqa: E402

EXT = os.environ["ROCPD_EXT"]
FIXTURES = os.environ.get("ROCPD_FIXTURES", "")
SHARED = os.environ.get("ROCPD_SHARED_DATA", "")
MATMUL = os.path.join(SHARED, "matmul_result.rpd")

VIEWS = ["rocpd_kernel_summary", "rocpd_kernel_summary_by_db", "rocpd_copy_summary", "rocpd_op_summary",
         "rocpd_gpu_summary", "rocpd_launch_latency", "rocpd_rank_imbalance", "rocpd_rank_summary",
         "rocpd_kernel_histogram"]
# Views whose rows name kernels: the view shows one name column (its display name) and its _full
# twin adds the raw name and the readable forms (docs/views.md).
FULL = {"rocpd_kernel_summary": ("kernel", ["name", "demangled", "short_name"]),
        "rocpd_kernel_summary_by_db": ("kernel", ["name", "demangled", "short_name"]),
        "rocpd_op_summary": ("op", ["name", "demangled"]),
        "rocpd_launch_latency": ("kernel", ["name", "demangled"]),
        # The default view leaves out what does not fit 160 columns (slowest_pid, slowest_instances,
        # fastest_total_ns); its _full twin has every column.
        "rocpd_rank_imbalance": ("kernel", ["slowest_pid", "slowest_instances", "fastest_total_ns", "name", "demangled"]),
        "rocpd_kernel_histogram": ("kernel", ["name"])}
VIEWS += [v + "_full" for v in FULL]
# Views that have no _full twin and no comparison here (docs/ranks.md), but refuse an empty federation too.
REFUSING = VIEWS + ["rocpd_stragglers", "rocpd_step_summary"]
SUMMARY_COLUMNS = ["time_pct", "total_ns", "instances", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns"]


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.row_factory = sqlite3.Row
    return con


def open_members(con, pattern):
    return con.execute("SELECT rocpd_open(?)", (pattern,)).fetchone()[0]


def rows(con, sql, *args):
    return [dict(r) for r in con.execute(sql, args)]


# --- hand-made rpd (schema 2) traces -------------------------------------------------------------

RPD2_DDL = """
CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, end INTEGER,
                       apiName_id INTEGER, args_id INTEGER);
CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER,
                      completionSignal TEXT, start INTEGER, end INTEGER, description_id INTEGER, opType_id INTEGER);
CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER, op_id INTEGER);
INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rocpd_string(id, string) VALUES (1, '');
"""


def write_rpd2(path, pid, ops):
    """ops: (gpu, op_type, kernel name or '', start, end, api name, api start) per op."""
    con = sqlite3.connect(path)
    con.executescript(RPD2_DDL)
    strings = {"": 1}

    def sid(s):
        if s not in strings:
            strings[s] = con.execute("INSERT INTO rocpd_string(string) VALUES (?)", (s,)).lastrowid
        return strings[s]

    for gpu, op_type, name, start, end, api_name, api_start in ops:
        api = con.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, 1)",
                          (pid, pid, api_start, api_start + 5, sid(api_name))).lastrowid
        op = con.execute("INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, end, "
                         "description_id, opType_id) VALUES (?, 0, 0, '', ?, ?, ?, ?)",
                         (gpu, start, end, sid(name), sid(op_type))).lastrowid
        con.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (api, op))
    con.commit()
    con.close()


GEMM = "_Z4gemmPKfS0_Pfi"  # mangled on purpose: demangled must sit next to it, not replace it
GEMM_DEMANGLED = "gemm(float const*, float const*, float*, int)"
# Per rank: the two gemm durations. Rank 3 is the straggler.
GEMM_DURATIONS = {0: (100, 100), 1: (90, 110), 2: (120, 120), 3: (150, 150)}


def hand_made_job(directory):
    """Four ranks, one file each. Known answers:
    gemm per-rank totals 200, 200, 240, 300 -> median 220, slowest rank 3, lead 80 ns (36.36 %);
    launch latency of gemm = 10 * (rank + 1) ns + 3 ns for the second launch;
    rank 0 runs 'relu' twice at the same (start, end) on gpus 0 and 1 (both must count)."""
    for rank, (d1, d2) in GEMM_DURATIONS.items():
        base = 1_000_000 * (rank + 1)
        lat = 10 * (rank + 1)
        ops = [
            (0, "CopyHostToDevice", "", base, base + 1000, "hipMemcpy", base - 50),
            (0, "KernelExecution", GEMM, base + 2000, base + 2000 + d1, "hipLaunchKernel", base + 2000 - lat),
            (0, "KernelExecution", GEMM, base + 3000, base + 3000 + d2, "hipLaunchKernel", base + 3000 - lat - 3),
            (0, "KernelExecution", "relu", base + 4000, base + 4050, "hipLaunchKernel", base + 3990),
            (0, "CopyDeviceToHost", "", base + 5000, base + 5400, "hipMemcpy", base + 4990),
        ]
        if rank == 0:
            ops.append((1, "KernelExecution", "relu", base + 4000, base + 4050, "hipLaunchKernel", base + 3995))
        write_rpd2(os.path.join(directory, f"rank{rank}.rpd"), 100 + rank, ops)


def fetch_reference(con):
    ops = rows(con, 'SELECT db, pid, gpu, kind, name, start, "end", duration, correlation_id FROM rocpd_ops')
    apis = rows(con, "SELECT db, correlation_id, start, name, api_id FROM rocpd_apis")
    return Reference(ops, apis)


class Close:
    """Comparison of a view row with a reference row: integers exactly, reals to 1e-9 relative."""

    @staticmethod
    def check(test, got, want, context):
        for col, w in want.items():
            g = got[col]
            if isinstance(w, set):
                test.assertEqual(set((g or "").split(",")), w, f"{context}: {col}")
            elif isinstance(w, str) or w is None or g is None:
                test.assertEqual(g, w, f"{context}: {col}")
            else:
                # Exactly: the reference rounds derived reals as the views do (views_reference.py).
                test.assertEqual(g, w, f"{context}: {col}")


def check_against_reference(test, con, label):
    ref = fetch_reference(con)
    test.assertGreater(len(ref.ops), 0, f"{label}: no ops")

    def compare(view, key_cols, want):
        if view in FULL:
            # The view is its _full twin without the raw name columns, row for row, in the same order.
            display, extra = FULL[view]
            full = rows(con, f"SELECT * FROM {view}_full")
            test.assertEqual(rows(con, f"SELECT * FROM {view}"),
                             [{k: v for k, v in r.items() if k not in extra} for r in full], f"{label}: {view}")
            for r in full:
                test.assertEqual(r[display], con.execute("SELECT rocpd_display_name(?)", (r["name"],)).fetchone()[0])
            view += "_full"
        got = rows(con, f"SELECT * FROM {view}")
        test.assertEqual(len(got), len(want), f"{label}: {view} row count")
        for r in got:
            key = tuple(r[c] for c in key_cols)
            key = key[0] if len(key) == 1 else key
            test.assertIn(key, want, f"{label}: {view} unexpected row {key}")
            Close.check(test, r, want[key], f"{label}: {view} {key}")
        return got

    got = compare("rocpd_kernel_summary", ["name"], ref.kernel_summary())
    totals = [r["total_ns"] for r in got]
    test.assertEqual(totals, sorted(totals, reverse=True), f"{label}: kernel summary ordered by total")
    test.assertTrue(math.isclose(sum(r["time_pct"] for r in got), 100.0, abs_tol=0.005 * len(got)),
                    f"{label}: time_pct sums to 100 (each rounded to 0.01)")
    compare("rocpd_kernel_summary_by_db", ["db", "name"], ref.kernel_summary_by_db())
    compare("rocpd_copy_summary", ["name"], ref.copy_summary())
    compare("rocpd_op_summary", ["kind", "name"], ref.op_summary())
    compare("rocpd_gpu_summary", ["db", "gpu"], ref.gpu_summary())
    compare("rocpd_launch_latency", ["name"], ref.launch_latency())
    compare("rocpd_rank_imbalance", ["name"], ref.rank_imbalance())
    compare("rocpd_rank_summary", ["db", "pid"], ref.rank_summary())
    compare("rocpd_kernel_histogram", ["name", "lo_ns"], ref.kernel_histogram())
    return ref


class InstalledViews(unittest.TestCase):
    def test_views_are_temp_and_prefixed(self):
        con = connect()
        temp = {r[0] for r in con.execute("SELECT name FROM sqlite_temp_master WHERE type = 'view'")}
        for v in VIEWS:
            self.assertIn(v, temp)

    def test_empty_federation_refuses(self):
        """With nothing open a view says how to open traces instead of returning no rows; the error
        names the view (a _full twin by its base name)."""
        con = connect()
        for v in REFUSING:
            with self.assertRaises(sqlite3.OperationalError, msg=v) as cm:
                con.execute(f"SELECT * FROM {v}").fetchall()
            self.assertEqual(str(cm.exception),
                             f"{v.removesuffix('_full')}: no trace is open on this connection: open traces first "
                             "with SELECT rocpd_open('path') (a file, a directory or a glob such as 'out/*/*.db') "
                             "or ATTACH 'rank0.rpd' AS rank0", v)
        # Once a trace is open, an empty answer is an answer: a filter that matches nothing.
        tmp = tempfile.TemporaryDirectory()
        hand_made_job(tmp.name)
        open_members(con, os.path.join(tmp.name, "rank0.rpd"))
        for v in REFUSING:
            self.assertEqual(con.execute(f"SELECT count(*) FROM (SELECT * FROM {v} LIMIT 0)").fetchone()[0], 0)
        self.assertEqual(rows(con, "SELECT * FROM rocpd_kernel_summary WHERE kernel = 'no such kernel'"), [])
        con.close()
        tmp.cleanup()

    def test_columns(self):
        con = connect()
        cols = {v: [r[1] for r in con.execute(f"PRAGMA table_info({v})")] for v in VIEWS}
        self.assertEqual(cols["rocpd_kernel_summary"], SUMMARY_COLUMNS + ["kernel"])
        self.assertEqual(cols["rocpd_kernel_summary_by_db"], ["db"] + SUMMARY_COLUMNS + ["kernel"])
        self.assertEqual(cols["rocpd_copy_summary"], SUMMARY_COLUMNS + ["name"])
        self.assertEqual(cols["rocpd_op_summary"], SUMMARY_COLUMNS + ["kind", "op"])
        self.assertEqual(cols["rocpd_gpu_summary"], ["db", "gpu", "ops", "kernels", "kernel_ns", "kernel_busy_ns", "copies",
                                                     "copy_ns", "busy_ns", "span_ns", "busy_pct", "kernel_busy_pct"])
        self.assertEqual(cols["rocpd_launch_latency"], ["launches", "avg_ns", "med_ns", "p95_ns", "min_ns", "max_ns",
                                                        "api_names", "kernel"])
        self.assertEqual(cols["rocpd_rank_imbalance"], ["ranks", "slowest_db", "slowest_total_ns", "median_total_ns",
                                                        "lead_ns", "lead_pct", "kernel"])
        self.assertEqual(cols["rocpd_rank_imbalance_full"], ["ranks", "slowest_db", "slowest_pid", "slowest_total_ns",
                                                             "slowest_instances", "median_total_ns", "fastest_total_ns",
                                                             "lead_ns", "lead_pct", "kernel", "name", "demangled"])
        self.assertEqual(cols["rocpd_rank_summary"], ["db", "pid", "kernels", "kernel_ns", "copies", "copy_ns", "first_ns",
                                                      "last_ns", "median_kernel_ns", "lead_ns", "lead_pct"])
        self.assertEqual(cols["rocpd_kernel_histogram"], ["kernel", "lo_ns", "hi_ns", "count"])
        for view, (display, extra) in FULL.items():
            if view == "rocpd_kernel_histogram":
                self.assertEqual(cols[view + "_full"], ["kernel", "name", "lo_ns", "hi_ns", "count"])
            elif view == "rocpd_rank_imbalance":
                continue  # above
            else:
                self.assertEqual(cols[view + "_full"], cols[view] + extra, view)


class HandMadeJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        hand_made_job(cls.tmp.name)
        cls.con = connect()
        cls.opened = open_members(cls.con, os.path.join(cls.tmp.name, "*.rpd"))

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        cls.tmp.cleanup()

    def test_opened_four_ranks(self):
        self.assertEqual(self.opened, 4)

    def test_kernel_summary_known_answer(self):
        got = rows(self.con, "SELECT * FROM rocpd_kernel_summary_full")
        self.assertEqual([r["name"] for r in got], [GEMM, "relu"])
        self.assertEqual([r["kernel"] for r in got], ["gemm", "relu"])
        gemm, relu = got
        self.assertEqual((gemm["total_ns"], gemm["instances"], gemm["min_ns"], gemm["max_ns"]), (940, 8, 90, 150))
        self.assertEqual(gemm["med_ns"], 115)  # 90 100 100 110 | 120 120 150 150
        self.assertEqual(gemm["demangled"], GEMM_DEMANGLED)
        self.assertEqual(gemm["short_name"], "gemm")
        self.assertEqual((relu["total_ns"], relu["instances"]), (250, 5))  # both same-time relus count
        self.assertEqual(gemm["time_pct"], 78.99)  # 100 * 940 / 1190 = 78.9916 to 2 decimals

    def test_rank_imbalance_known_answer(self):
        gemm = rows(self.con, "SELECT * FROM rocpd_rank_imbalance_full WHERE name = ?", GEMM)[0]
        self.assertEqual(gemm["ranks"], 4)
        self.assertEqual(("rank3" in gemm["slowest_db"], gemm["slowest_pid"]), (True, 103))
        self.assertEqual((gemm["slowest_total_ns"], gemm["slowest_instances"]), (300, 2))
        self.assertEqual((gemm["median_total_ns"], gemm["fastest_total_ns"], gemm["lead_ns"]), (220, 200, 80))
        self.assertEqual(gemm["lead_pct"], 36.36)  # 100 * 80 / 220 = 36.3636
        self.assertEqual(gemm["demangled"], GEMM_DEMANGLED)
        first = rows(self.con, "SELECT name FROM rocpd_rank_imbalance_full")[0]
        self.assertEqual(first["name"], GEMM, "largest lead first")

    def test_launch_latency_known_answer(self):
        gemm = rows(self.con, "SELECT * FROM rocpd_launch_latency_full WHERE name = ?", GEMM)[0]
        lat = sorted([10 * (r + 1) for r in range(4)] + [10 * (r + 1) + 3 for r in range(4)])
        self.assertEqual(gemm["launches"], 8)
        self.assertEqual((gemm["min_ns"], gemm["max_ns"]), (10, 43))
        self.assertEqual(gemm["med_ns"], (lat[3] + lat[4]) / 2)
        self.assertEqual(gemm["p95_ns"], sql_round(lat[6] + 0.65 * (lat[7] - lat[6]), 1))
        self.assertEqual(gemm["api_names"], "hipLaunchKernel")

    def test_copy_and_gpu_summary(self):
        copies = {r["name"]: r for r in rows(self.con, "SELECT * FROM rocpd_copy_summary")}
        self.assertEqual((copies["CopyHostToDevice"]["total_ns"], copies["CopyHostToDevice"]["instances"]), (4000, 4))
        self.assertEqual(copies["CopyDeviceToHost"]["med_ns"], 400)
        relu_rank1 = [r for r in rows(self.con, "SELECT * FROM rocpd_kernel_summary_by_db WHERE kernel = 'relu'")
                      if "rank1" in r["db"]]
        self.assertIsNone(relu_rank1[0]["stddev_ns"], "one value: NULL stddev")
        gpus = [g for g in rows(self.con, "SELECT * FROM rocpd_gpu_summary") if "rank0" in g["db"]]
        self.assertEqual([(g["gpu"], g["kernels"], g["kernel_busy_ns"]) for g in gpus], [(0, 3, 250), (1, 1, 50)])

    def test_rank_summary_known_answer(self):
        # kernel_ns per rank: 300 (gemm 200 + two relus), 250, 290, 350 -> median 295.
        got = rows(self.con, "SELECT * FROM rocpd_rank_summary")
        self.assertEqual([(r["pid"], r["kernel_ns"], r["kernels"], r["copies"]) for r in got],
                         [(103, 350, 3, 2), (100, 300, 4, 2), (102, 290, 3, 2), (101, 250, 3, 2)])
        self.assertEqual((got[0]["median_kernel_ns"], got[0]["lead_ns"]), (295, 55))
        self.assertEqual(got[0]["lead_pct"], 18.64)  # 100 * 55 / 295 = 18.644

    def test_against_reference(self):
        check_against_reference(self, self.con, "hand-made job")


def fixture_sets():
    return sorted(glob.glob(os.path.join(FIXTURES, "sets", "*")))


class GeneratedFixtures(unittest.TestCase):
    def test_every_set_against_reference(self):
        sets = fixture_sets()
        if not sets:
            self.skipTest(f"no generated fixture sets under {FIXTURES}/sets")
        for path in sets:
            with self.subTest(set=os.path.basename(path)):
                con = connect()
                self.assertGreater(open_members(con, path), 0)
                check_against_reference(self, con, os.path.basename(path))
                con.close()

    def test_same_workload_in_three_formats_gives_same_summaries(self):
        paths = [os.path.join(FIXTURES, "sets", s) for s in ("same_rpd2", "same_rpd3", "same_rocpd")]
        if not all(os.path.isdir(p) for p in paths):
            self.skipTest("fixture sets same_rpd2/same_rpd3/same_rocpd not generated")
        results = []
        for p in paths:
            con = connect()
            open_members(con, p)
            results.append([tuple(r) for r in con.execute(
                "SELECT total_ns, instances, med_ns, min_ns, max_ns, stddev_ns, name FROM rocpd_kernel_summary_full")])
            con.close()
        self.assertEqual(results[0], results[1])
        self.assertEqual(results[0], results[2])

    def test_views_never_shadow_member_objects(self):
        files = [f for s in fixture_sets() for f in glob.glob(os.path.join(s, "*")) if not f.endswith(".json")]
        if os.path.exists(MATMUL):
            files.append(MATMUL)
        if not files:
            self.skipTest("no trace files to check")
        for f in files:
            con = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
            con.close()
            self.assertFalse(names & set(VIEWS), f"{f} has objects named like our views")


class GroundTruth(unittest.TestCase):
    """The views against the generator's truth.json (computed by the generator from its own model,
    not from the files): per-file `top` (name, kind, calls, total_ns, min_ns, max_ns), per-gpu busy."""

    def each_set(self):
        found = False
        for path in fixture_sets():
            truth_path = os.path.join(path, "truth.json")
            if not os.path.exists(truth_path):
                continue
            found = True
            with open(truth_path) as f:
                truth = json.load(f)
            con = connect()
            self.assertEqual(open_members(con, path), len(truth["files"]))
            with self.subTest(set=os.path.basename(path)):
                yield con, truth
            con.close()
        if not found:
            self.skipTest(f"no fixture set with truth.json under {FIXTURES}/sets")

    @staticmethod
    def job_top(truth, kind):
        job = {}
        for f in truth["files"]:
            for e in f["top"]:
                if e["kind"] != kind:
                    continue
                j = job.setdefault(e["name"], {"calls": 0, "total_ns": 0, "min_ns": e["min_ns"], "max_ns": e["max_ns"]})
                j["calls"] += e["calls"]
                j["total_ns"] += e["total_ns"]
                j["min_ns"] = min(j["min_ns"], e["min_ns"])
                j["max_ns"] = max(j["max_ns"], e["max_ns"])
        return job

    def check_summary(self, got_rows, want, label):
        got = {r["name"]: r for r in got_rows}
        self.assertEqual(set(got), set(want), label)
        for name, w in want.items():
            g = got[name]
            self.assertEqual((g["instances"], g["total_ns"], g["min_ns"], g["max_ns"]),
                             (w["calls"], w["total_ns"], w["min_ns"], w["max_ns"]), f"{label}: {name}")

    def test_kernel_and_copy_summaries(self):
        for con, truth in self.each_set():
            self.check_summary(rows(con, "SELECT * FROM rocpd_kernel_summary_full"), self.job_top(truth, "kernel"), "kernels")
            self.check_summary(rows(con, "SELECT * FROM rocpd_copy_summary"), self.job_top(truth, "copy"), "copies")
            by_db = rows(con, "SELECT * FROM rocpd_kernel_summary_by_db_full")
            for f in truth["files"]:
                want = {e["name"]: e for e in f["top"] if e["kind"] == "kernel"}
                self.check_summary([r for r in by_db if r["db"] == f["db"]], want, f["db"])
            total = con.execute("SELECT sum(total_ns), sum(instances) FROM rocpd_op_summary").fetchone()
            self.assertEqual(tuple(total), (truth["job"]["ops_sum_ns"], truth["job"]["ops"]))

    def test_gpu_summary(self):
        for con, truth in self.each_set():
            got = {(r["db"], r["gpu"]): r for r in rows(con, "SELECT * FROM rocpd_gpu_summary")}
            want = {(f["db"], g["gpu"]): g for f in truth["files"] for g in f["gpus"]}
            self.assertEqual(set(got), set(want))
            for key, g in want.items():
                r = got[key]
                self.assertEqual((r["ops"], r["busy_ns"], r["span_ns"]), (g["ops"], g["busy_ns"], g["last_ns"] - g["first_ns"]),
                                 str(key))
                self.assertLessEqual(r["kernel_busy_ns"], r["busy_ns"])

    def test_rank_views(self):
        for con, truth in self.each_set():
            if any(len(f["pids"]) != 1 for f in truth["files"]):
                continue  # truth is per file; ranks of a multi-session file are checked by the reference test
            per_name = {}
            for f in truth["files"]:
                for e in f["top"]:
                    if e["kind"] == "kernel":
                        per_name.setdefault(e["name"], []).append((e["total_ns"], f["db"], f["pids"][0]))
            got = {r["name"]: r for r in rows(con, "SELECT * FROM rocpd_rank_imbalance_full")}
            self.assertEqual(set(got), set(per_name))
            for name, ranks in per_name.items():
                slowest = min(ranks, key=lambda t: (-t[0], t[1], t[2]))
                med = statistics.median(t[0] for t in ranks)
                g = got[name]
                self.assertEqual((g["ranks"], g["slowest_total_ns"], g["slowest_db"], g["slowest_pid"], g["median_total_ns"]),
                                 (len(ranks), slowest[0], slowest[1], slowest[2], med), name)
            summary = {r["db"]: r for r in rows(con, "SELECT * FROM rocpd_rank_summary")}
            for f in truth["files"]:
                self.assertEqual((summary[f["db"]]["kernels"], summary[f["db"]]["copies"]), (f["kernels"], f["copies"]))


class RealTrace(unittest.TestCase):
    """shared/data/matmul_result.rpd against its published analysis."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(MATMUL):
            raise unittest.SkipTest(f"{MATMUL} absent: real-trace checks skipped")
        cls.con = connect()
        open_members(cls.con, MATMUL)

    def test_published_top(self):
        top = {r["name"]: r for r in rows(self.con, "SELECT * FROM rocpd_op_summary_full")}
        h2d, d2h = top["CopyHostToDevice"], top["CopyDeviceToHost"]
        gemm = [r for n, r in top.items() if n.startswith("Cijk_Ailk_Bljk_SB_MT128x64x16")]
        self.assertEqual(len(gemm), 1)
        gemm = gemm[0]
        self.assertEqual((h2d["instances"], h2d["total_ns"] // 1000, h2d["time_pct"]), (2, 157178, 85.46))
        self.assertEqual((gemm["instances"], gemm["total_ns"] // 1000, gemm["time_pct"]), (1, 26211, 14.25))
        self.assertEqual((d2h["instances"], d2h["total_ns"] // 1000, d2h["time_pct"]), (53, 334, 0.18))
        first = rows(self.con, "SELECT op FROM rocpd_op_summary LIMIT 1")[0]["op"]
        self.assertEqual(first, "CopyHostToDevice")

    def test_kernel_and_copy_summaries(self):
        k = rows(self.con, "SELECT * FROM rocpd_kernel_summary LIMIT 1")[0]
        # The Tensile GEMM's display name: problem type, macro tile, matrix instruction, digest.
        self.assertRegex(k["kernel"], r"^Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1~[0-9a-f]{6}$")
        self.assertEqual((k["instances"], k["total_ns"], k["med_ns"]), (1, 26211956, 26211956))
        self.assertIsNone(k["stddev_ns"])
        c = rows(self.con, "SELECT * FROM rocpd_copy_summary")
        self.assertEqual([(r["name"], r["instances"]) for r in c], [("CopyHostToDevice", 2), ("CopyDeviceToHost", 53)])

    def test_gpu_busy(self):
        g = rows(self.con, "SELECT * FROM rocpd_gpu_summary")
        self.assertEqual(len(g), 1)
        self.assertEqual((g[0]["gpu"], g[0]["ops"], g[0]["busy_ns"], g[0]["span_ns"]), (2, 85, 183918056, 2964070817))
        # Published Busy 0.062049: 6.2049 % to 2 decimals; rocpd_busy keeps the fraction (4 decimals).
        self.assertEqual(g[0]["busy_pct"], 6.2)
        self.assertEqual(rows(self.con, "SELECT busy, busy_pct FROM rocpd_busy"), [{"busy": 0.062, "busy_pct": 6.2}])

    def test_launch_latency_of_the_gemm(self):
        g = [r for r in rows(self.con, "SELECT * FROM rocpd_launch_latency_full")
             if r["name"].startswith("Cijk_Ailk_Bljk_SB_MT128x64x16")]
        self.assertEqual(len(g), 1)
        self.assertEqual(g[0]["api_names"], "hipExtModuleLaunchKernel")
        self.assertEqual(g[0]["launches"], 1)

    def test_filters_through_the_views(self):
        # Constraints on a view's columns reach rocpd_ops (LIKE, =): same rows as filtering afterwards.
        gemm = rows(self.con, "SELECT * FROM rocpd_launch_latency_full WHERE name LIKE 'Cijk_Ailk_Bljk_SB_MT128x64x16%'")
        self.assertEqual([(r["launches"], r["api_names"]) for r in gemm], [(1, "hipExtModuleLaunchKernel")])
        everything = rows(self.con, "SELECT * FROM rocpd_kernel_summary_by_db")
        self.assertEqual(rows(self.con, "SELECT * FROM rocpd_kernel_summary_by_db WHERE db LIKE 'matmul%'"), everything)
        self.assertEqual(rows(self.con, "SELECT * FROM rocpd_copy_summary WHERE name = 'CopyDeviceToHost'"),
                         [r for r in rows(self.con, "SELECT * FROM rocpd_copy_summary") if r["name"] == "CopyDeviceToHost"])

    def test_against_reference(self):
        check_against_reference(self, self.con, "matmul_result.rpd")


class RelativeTime(unittest.TestCase):
    """rocpd_job_start() / rocpd_rel(ts) against the generator's truth.json (the job's and each
    file's first timestamp over ops and API calls, computed by the generator from its model)."""

    def test_job_start_and_rel_match_truth(self):
        path = os.path.join(FIXTURES, "sets", "mixed8")
        if not os.path.exists(os.path.join(path, "truth.json")):
            self.skipTest("fixture set mixed8 not generated")
        with open(os.path.join(path, "truth.json")) as f:
            truth = json.load(f)
        con = connect()
        self.assertEqual(tuple(con.execute("SELECT rocpd_job_start(), rocpd_rel(5)").fetchone()), (None, None),
                         "no member: no origin")
        open_members(con, path)
        first = truth["job"]["first_ns"]
        self.assertEqual(con.execute("SELECT rocpd_job_start()").fetchone()[0], first)
        for ts in (first, first + 1, first - 7, 0):
            self.assertEqual(con.execute("SELECT rocpd_rel(?)", (ts,)).fetchone()[0], ts - first)
        self.assertIsNone(con.execute("SELECT rocpd_rel(NULL)").fetchone()[0])
        # Per row and as a per-statement constant: the same numbers as the truth's origin.
        got = con.execute("SELECT sum(rocpd_rel(start)), sum(start - rocpd_job_start()), min(rocpd_rel(start)), "
                          "count(*) FROM rocpd_ops WHERE db = 'rank3'").fetchone()
        want = con.execute("SELECT sum(start - ?), sum(start - ?), min(start) - ?, count(*) FROM rocpd_ops "
                           "WHERE db = 'rank3'", (first, first, first)).fetchone()
        self.assertEqual(tuple(got), tuple(want))
        # Closing the member that starts the job moves the origin to the next file's first timestamp.
        files = sorted(truth["files"], key=lambda f: f["first_ns"])
        con.execute("SELECT rocpd_close(?)", (files[0]["db"],))
        self.assertEqual(con.execute("SELECT rocpd_job_start()").fetchone()[0], files[1]["first_ns"])
        con.close()

    def test_errors(self):
        con = connect()
        open_members(con, os.path.join(FIXTURES, "sets", "mixed8"))
        for arg, shown in (("'abc'", "text 'abc'"), ("1.5", "real 1.5")):
            with self.assertRaises(sqlite3.OperationalError) as caught:
                con.execute(f"SELECT rocpd_rel({arg})").fetchone()
            self.assertIn(f"rocpd_rel: ts must be an integer (ns), got {shown}", str(caught.exception))
        with self.assertRaises(sqlite3.OperationalError) as caught:
            con.execute("SELECT rocpd_rel(-9223372036854775807)").fetchone()
        self.assertIn("(the job's start) does not fit an integer", str(caught.exception))
        con.close()


if __name__ == "__main__":
    unittest.main()
