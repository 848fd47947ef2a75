"""The analyses on nsys members (issue 20, deliverable 4): rocpd_idle_breakdown, rocpd_launch_stats,
rocpd_queue_depth, rocpd_comm_overlap (NCCL kernels count as communication), rocpd_kernel_stacks
(NVTX ranges enclose launches), rocpd_run_compare and rocpd_export_trace give the rows a brute force
over the raw nsys tables gives (nsys_raw.py), and the generator's diagnosis truth; and a job mixing
rpd, rocprofv3 and nsys members through the kernel summary, busy time, idle breakdown and export."""
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import ChecksumGuard, connect, generate, main  # noqa: E402
from nsys_raw import Raw, union, union_length  # noqa: E402

THRESHOLD = 5000  # rocpd_idle_breakdown's default kernel-wait threshold (ns)


def is_comm(o):
    if o["kind"] == "copy":
        return True
    name = (o["name"] or "").lower()
    return any(w in name for w in ("nccl", "rccl", "cross_device_reduce"))


def classify(ops, launches, threshold=THRESHOLD):
    """Gaps between the busy intervals of `ops`, each given to one cause by the ops starting at its end."""
    u = union([(o["start"], o["end"]) for o in ops])
    out = dict(ops=len(ops), gaps=0, idle=0, host=0, kernel=0, other=0, busy=sum(e - s for s, e in u))
    for (a0, a), (b, b1) in zip(u, u[1:]):
        starting = [launches[(o["kind"], o["rowid"])]["start"] for o in ops
                    if o["start"] == b and (o["kind"], o["rowid"]) in launches]
        out["gaps"] += 1
        out["idle"] += b - a
        if starting and min(starting) > a:
            out["host"] += b - a
        elif starting and b - a < threshold:
            out["kernel"] += b - a
        else:
            out["other"] += b - a
    return out


class Analyses(ChecksumGuard):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_an_")
        # Two processes in rank0's report, one in rank1's; host stalls, event waits, helper ranges.
        cls.dir = os.path.join(cls.tmp, "diag")
        cls.truth = generate(cls.dir, 2, "nsys", 2500, 23, "--sessions", 2, "--markers", 300, "--diagnosis", 1)
        cls.other = os.path.join(cls.tmp, "other")
        cls.other_truth = generate(cls.other, 1, "nsys", 1500, 24, "--memsets", 25)
        cls.watched = [os.path.join(cls.dir, f["file"]) for f in cls.truth["files"]] + \
                      [os.path.join(cls.other, f["file"]) for f in cls.other_truth["files"]]
        super().setUpClass()
        cls.raw = {f["db"]: Raw(os.path.join(cls.dir, f["file"])) for f in cls.truth["files"]}
        cls.launch = {db: r.launches() for db, r in cls.raw.items()}
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.dir,))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def q(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    def test_idle_breakdown(self):
        got = {(r[0], r[1], r[2], r[3], r[4]): r[5:] for r in self.q(
            "SELECT db, gpu, level, queue, stream, ops, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, busy_ns "
            "FROM rocpd_idle_breakdown")}
        want = {}
        for db, raw in self.raw.items():
            for g in {o["gpu"] for o in raw.ops}:
                ops = [o for o in raw.ops if o["gpu"] == g]
                c = classify(ops, self.launch[db])
                want[(db, g, "gpu", None, None)] = (c["ops"], c["gaps"], c["idle"], c["host"], c["kernel"], c["other"],
                                                    c["busy"])
                for s in {o["stream"] for o in ops}:
                    c = classify([o for o in ops if o["stream"] == s], self.launch[db])
                    want[(db, g, "queue", None, s)] = (c["ops"], c["gaps"], c["idle"], c["host"], c["kernel"],
                                                       c["other"], c["busy"])
        self.assertEqual(got, want)
        # The generator's truth, computed from its model (lanes: its queues, nsys streams).
        for f in self.truth["files"]:
            d = f["diagnosis"]
            for g in d["gpus"]:
                self.assertEqual(got[(f["db"], g["gpu"], "gpu", None, None)][1:6],
                                 (g["gaps"], g["idle_ns"], g["host_wait_ns"], g["kernel_wait_ns"], g["other_ns"]))
            for lane in d["queues"]:
                stream = f["nsys_streams"][str(lane["queue"])]
                self.assertEqual(got[(f["db"], lane["gpu"], "queue", None, stream)][1:6],
                                 (lane["gaps"], lane["idle_ns"], lane["host_wait_ns"], lane["kernel_wait_ns"],
                                  lane["other_ns"]))
        totals = self.q("SELECT sum(host_wait_ns) > 0, sum(kernel_wait_ns) > 0, sum(other_ns) > 0 "
                        "FROM rocpd_idle_breakdown WHERE level = 'gpu'")
        self.assertEqual(totals, [(1, 1, 1)])

    def test_launch_stats(self):
        got = {(r[0], r[1], r[2]): r[3:] for r in self.q(
            "SELECT db, kind, op_id, pid, tid, api_name, launch_start, launch_end, start, \"end\", cpu_ns, gpu_ns, "
            "launch_delay_ns, short_op, runtime_outlier, delay_outlier FROM rocpd_launch_stats")}
        want = {}
        for db, raw in self.raw.items():
            for o in raw.ops:
                c = self.launch[db].get((o["kind"], o["rowid"]))
                if not c:
                    continue
                cpu, gpu, delay = c["end"] - c["start"], o["end"] - o["start"], o["start"] - c["end"]
                want[(db, o["kind"], o["rowid"])] = (c["pid"], c["tid"], c["name"], c["start"], c["end"], o["start"],
                                                     o["end"], cpu, gpu, delay, int(cpu <= 50000 and gpu < cpu),
                                                     int(cpu > 50000), int(delay > 100000))
        self.assertEqual(got, want)
        self.assertEqual(len(want), sum(f["ops"] for f in self.truth["files"]))

    def test_queue_depth(self):
        got = {}
        for r in self.q("SELECT db, gpu, queue, stream, ts, depth, waiting, duration FROM rocpd_queue_depth"):
            got.setdefault(r[:4], []).append(r[4:])
        want = {}
        for db, raw in self.raw.items():
            lanes = {}
            for o in raw.ops:
                c = self.launch[db].get((o["kind"], o["rowid"]))
                if c:
                    lanes.setdefault((db, o["gpu"], None, o["stream"]), []).append((c["start"], o["start"], o["end"]))
            for lane, ops in lanes.items():
                events = {}
                for launch, start, end in ops:
                    for ts, dd, dw in ((launch, 1, 1), (start, 0, -1), (end, -1, 0)):
                        d0, w0 = events.get(ts, (0, 0))
                        events[ts] = (d0 + dd, w0 + dw)
                rows, depth, waiting = [], 0, 0
                times = sorted(events)
                for i, ts in enumerate(times):
                    depth += events[ts][0]
                    waiting += events[ts][1]
                    rows.append((ts, depth, waiting, times[i + 1] - ts if i + 1 < len(times) else None))
                want[lane] = rows
        self.assertEqual(got, want)
        self.assertGreater(max(r[1] for rows in got.values() for r in rows), 2)

    def test_comm_overlap(self):
        got = {(r[0], r[1]): r[2:] for r in self.q(
            "SELECT db, gpu, compute_ops, comm_ops, compute_ns, comm_ns, overlap_ns, exposed_comm_ns, overlap_pct "
            "FROM rocpd_comm_overlap")}
        want = {}
        for db, raw in self.raw.items():
            for g in {o["gpu"] for o in raw.ops}:
                ops = [o for o in raw.ops if o["gpu"] == g and o["kind"] in ("kernel", "copy")]
                comm = [(o["start"], o["end"]) for o in ops if is_comm(o)]
                comp = [(o["start"], o["end"]) for o in ops if not is_comm(o)]
                cn, pn = union_length(comm), union_length(comp)
                ov = cn + pn - union_length(comm + comp)
                want[(db, g)] = (len(comp), len(comm), pn, cn, ov, cn - ov, 100.0 * ov / cn if cn else None)
        self.assertEqual(set(got), set(want))
        for k in want:
            self.assertEqual(got[k][:6], want[k][:6])
            self.assertAlmostEqual(got[k][6], want[k][6], delta=0.005 + 1e-9)  # the view rounds to 2 decimals
        # NCCL kernels count as communication: more comm ops than copies.
        copies = sum(1 for r in self.raw.values() for o in r.ops if o["kind"] == "copy")
        self.assertGreater(sum(v[1] for v in got.values()), copies)
        for f in self.truth["files"]:
            for g in f["diagnosis"]["gpus"]:
                self.assertEqual(got[(f["db"], g["gpu"])][2:5], (g["compute_ns"], g["comm_ns"], g["overlap_ns"]))

    def test_kernel_stacks(self):
        got = {(r[0], r[1], r[2]): (r[3], r[4], r[5], json.loads(r[6]), r[7], r[8]) for r in self.q(
            "SELECT db, kind, op_id, pid, tid, depth, stack, top_level, bottom_level FROM rocpd_kernel_stacks")}
        want = {}
        for db, raw in self.raw.items():
            ranges = {}
            for r in raw.ranges:
                if r["end"] is not None and r["end"] > r["start"]:
                    ranges.setdefault((r["pid"], r["tid"]), []).append(r)
            for o in raw.ops:
                if o["kind"] not in ("kernel", "copy"):
                    continue
                c = self.launch[db].get((o["kind"], o["rowid"]))
                if not c:
                    want[(db, o["kind"], o["rowid"])] = (None, None, 0, [], None, None)
                    continue
                end = c["end"] if c["end"] >= c["start"] else c["start"]
                enclosing = sorted((r for r in ranges.get((c["pid"], c["tid"]), [])
                                    if r["start"] <= c["start"] and end <= r["end"]),
                                   key=lambda r: (r["start"], -r["end"], r["rowid"]))
                names = [r["name"] for r in enclosing]
                want[(db, o["kind"], o["rowid"])] = (c["pid"], c["tid"], len(names), names,
                                                     names[0] if names else None, names[-1] if names else None)
        self.assertEqual(got, want)
        for f in self.truth["files"]:
            d = f["diagnosis"]
            depths = dict(self.q("SELECT depth, count(*) FROM rocpd_kernel_stacks WHERE db = ? GROUP BY depth",
                                 (f["db"],)))
            self.assertEqual({str(k): v for k, v in depths.items()}, d["stack_depths"])
            tops = dict(self.q("SELECT top_level, count(*) FROM rocpd_kernel_stacks WHERE db = ? AND depth > 0 "
                               "GROUP BY top_level", (f["db"],)))
            self.assertEqual(tops, d["top_levels"])
            bottoms = dict(self.q("SELECT bottom_level, count(*) FROM rocpd_kernel_stacks WHERE db = ? AND depth > 0 "
                                  "GROUP BY bottom_level", (f["db"],)))
            self.assertEqual(bottoms, d["bottom_levels"])
        self.assertGreater(self.q("SELECT count(*) FROM rocpd_kernel_stacks WHERE depth >= 2")[0][0], 0)

    def test_run_compare(self):
        con = connect()
        con.execute("SELECT rocpd_open(?, 'diag'), rocpd_open(?, 'other')", (self.dir, self.other))
        runs = {"diag": list(self.raw.values()),
                "other": [Raw(os.path.join(self.other, f["file"])) for f in self.other_truth["files"]]}
        per_run = {}
        for run, raws in runs.items():
            d = {}
            for raw in raws:
                for o in raw.ops:
                    if o["kind"] == "kernel":
                        d.setdefault(o["name"], []).append(o["end"] - o["start"])
            per_run[run] = d
        want = []
        for a, b in (("diag", "other"), ("other", "diag")):
            for name in set(per_run[a]) | set(per_run[b]):
                da, db_ = per_run[a].get(name, []), per_run[b].get(name, [])
                ma = statistics.median(da) if da else None
                mb = statistics.median(db_) if db_ else None
                want.append((a, b, name, len(da), sum(da), ma, len(db_), sum(db_), mb, sum(db_) - sum(da),
                             mb - ma if ma is not None and mb is not None else None))
        # Runs without steps are ranked by the change per call (docs/diagnosis.md, "Comparing runs").
        want.sort(key=lambda r: (r[0], r[1], -abs((r[8] or 0) - (r[5] or 0)), r[2]))
        got = con.execute("SELECT run_a, run_b, name, calls_a, total_a_ns, med_a_ns, calls_b, total_b_ns, med_b_ns, "
                          "diff_total_ns, diff_med_ns FROM rocpd_run_compare_full").fetchall()
        self.assertEqual(got, want)

    def test_export_trace(self):
        path = os.path.join(self.tmp, "export.json")
        # Names as recorded (the default is demangled), so they compare with the raw tables'.
        n = self.q("SELECT rocpd_export_trace(?, NULL, NULL, '{\"names\": \"raw\"}')", (path,))[0][0]
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(n, len(doc["traceEvents"]))
        events = [e for e in doc["traceEvents"] if e.get("ph") in ("X", "i")]

        def ns(us):
            return round(us * 1000)

        got, want = {}, {}
        for e in events:
            start = ns(e["ts"])
            end = start + ns(e["dur"]) if e["ph"] == "X" else start
            if "recorded_dur_ns" in e.get("args", {}):  # a zero-length op an arrow ends at: 1 ns long
                end = start + e["args"]["recorded_dur_ns"]
            key = (e["cat"], e["name"], start, end)
            got[key] = got.get(key, 0) + 1
        for raw in self.raw.values():
            for o in raw.ops:
                key = (o["kind"], o["name"], o["start"], o["end"])
                want[key] = want.get(key, 0) + 1
            for c in raw.calls:
                key = (c["domain"], c["name"], c["start"], c["end"])
                want[key] = want.get(key, 0) + 1
            for r in raw.ranges:
                key = ("marker", r["name"], r["start"], r["end"])
                want[key] = want.get(key, 0) + 1
            for y in raw.syncs:
                key = ("cuda_sync", y["name"], y["start"], y["end"])
                want[key] = want.get(key, 0) + 1
        self.assertEqual(got, want)
        flows = sum(1 for e in doc["traceEvents"] if e.get("ph") == "s")
        self.assertEqual(flows, sum(len(v) for v in self.launch.values()))
        self.assertEqual(doc["otherData"]["flows"], flows)


class MixedJob(ChecksumGuard):
    """rpd v2, rocprofv3 and nsys members in one job, each from its own generated workload."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_mixed_")
        cls.truths = {}
        for fmt, seed in (("rpd2", 41), ("rocpd", 42), ("nsys", 43)):
            d = os.path.join(cls.tmp, fmt)
            cls.truths[fmt] = (d, generate(d, 1, fmt, 1500, seed, "--diagnosis", 1, "--markers", 100))
        cls.watched = [os.path.join(d, f["file"]) for d, t in cls.truths.values() for f in t["files"]]
        super().setUpClass()
        cls.con = connect()
        cls.dbs = {}
        for fmt, (d, t) in cls.truths.items():
            cls.con.execute("SELECT rocpd_open(?)", (d,))
            cls.dbs[fmt] = cls.con.execute("SELECT db FROM rocpd_members WHERE path = ?",
                                           (os.path.join(d, t["files"][0]["file"]),)).fetchone()[0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def q(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    def test_formats(self):
        self.assertEqual(sorted(self.q("SELECT format FROM rocpd_members")), [("nsys",), ("rocpd",), ("rpd",)])

    def test_kernel_summary(self):
        want = {}
        for d, t in self.truths.values():
            for e in t["files"][0]["top"]:
                if e["kind"] == "kernel":
                    n, s, lo, hi = want.get(e["name"], (0, 0, None, None))
                    want[e["name"]] = (n + e["calls"], s + e["total_ns"], e["min_ns"] if lo is None else min(lo, e["min_ns"]),
                                       e["max_ns"] if hi is None else max(hi, e["max_ns"]))
        # rocprofv3 names its kernel symbols as written (no '.kd' in this layout): the names agree.
        got = {n: (c, t, lo, hi) for n, c, t, lo, hi in
               self.q("SELECT name, instances, total_ns, min_ns, max_ns FROM rocpd_kernel_summary_full")}
        self.assertEqual(got, want)
        # The nsys member's kernels by raw brute force, including the median.
        d, t = self.truths["nsys"]
        raw = Raw(os.path.join(d, t["files"][0]["file"]))
        per = {}
        for o in raw.ops:
            if o["kind"] == "kernel":
                per.setdefault(o["name"], []).append(o["end"] - o["start"])
        got = {n: (c, med) for n, c, med in self.q(
            "SELECT name, instances, med_ns FROM rocpd_kernel_summary_by_db_full WHERE db = ?", (self.dbs["nsys"],))}
        self.assertEqual(got, {n: (len(v), statistics.median(v)) for n, v in per.items()})

    def test_busy(self):
        for fmt, (d, t) in self.truths.items():
            got = self.q("SELECT gpu, busy_ns FROM rocpd_busy WHERE db = ?", (self.dbs[fmt],))
            self.assertEqual(got, [(g["gpu"], g["busy_ns"]) for g in t["files"][0]["gpus"]], fmt)

    def test_idle_breakdown(self):
        for fmt, (d, t) in self.truths.items():
            got = self.q("SELECT gpu, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns FROM rocpd_idle_breakdown "
                         "WHERE db = ? AND level = 'gpu' ORDER BY gpu", (self.dbs[fmt],))
            want = [(g["gpu"], g["gaps"], g["idle_ns"], g["host_wait_ns"], g["kernel_wait_ns"], g["other_ns"])
                    for g in t["files"][0]["diagnosis"]["gpus"]]
            self.assertEqual(got, want, fmt)

    def test_export(self):
        path = os.path.join(self.tmp, "mixed.json")
        self.q("SELECT rocpd_export_trace(?)", (path,))
        with open(path) as f:
            doc = json.load(f)
        ops = sum(1 for e in doc["traceEvents"] if e.get("ph") in ("X", "i") and e["cat"] in ("kernel", "copy"))
        self.assertEqual(ops, sum(t["files"][0]["ops"] for d, t in self.truths.values()))
        self.assertEqual(doc["otherData"]["members"], 3)


class PerRankJob(unittest.TestCase):
    """A 4-rank job profiled with one nsys report per rank (rocpd_gen --steps: collectives in every
    step, rank 2 planted 300 us late in the odd steps), its files named as per-rank nsys jobs name
    them: `-o report_%q{RANK}` (the rank in the name) and `-o %h_%p` (host and pid: the rank only in
    the recorded environment, RANK or SLURM_PROCID)."""

    PLANTED, DELAY, JITTER = 2, 300_000, 1_000

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_nsys_ranks_")
        gen = os.path.join(cls.tmp, "gen")
        generate(gen, 4, "nsys", 300, 5, "--steps", 4, "--gpus", 1, "--straggler", f"{cls.PLANTED}:{cls.DELAY}",
                 "--collective-jitter", cls.JITTER)
        cls.job = os.path.join(cls.tmp, "job")
        os.makedirs(cls.job)
        cls.names = {}
        for rank in range(4):
            src = os.path.join(gen, f"rank{rank}.sqlite")
            con = sqlite3.connect(src)
            pid = con.execute("SELECT pid FROM PROCESSES WHERE name = 'python3'").fetchone()[0]
            con.close()
            if rank % 2 == 0:
                name = f"report_{rank}"  # nsys profile -o report_%q{RANK}
            else:
                name = f"node{rank // 2}_{pid}"  # nsys profile -o %h_%p: the pid is no rank
            dst = os.path.join(cls.job, name + ".sqlite")
            shutil.copy(src, dst)
            if rank % 2 == 1:
                con = sqlite3.connect(dst)
                var = "RANK" if rank == 1 else "SLURM_PROCID"
                con.executemany("INSERT INTO META_DATA_CAPTURE (name, value) VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', ?)",
                                [('PATH="/usr/bin"',), (f'{var}="{rank}"',), ('LOCAL_RANK="0"',)])
                con.commit()
                con.close()
            cls.names[rank] = name

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_ranks_and_stragglers(self):
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.job,)).fetchone()[0], 4)
        ranks = {db: (rank, notes) for db, rank, notes in con.execute("SELECT db, rank, notes FROM rocpd_members")}
        self.assertEqual({db: r for db, (r, n) in ranks.items()}, {self.names[r]: r for r in range(4)})
        self.assertIn("rank 1 from RANK in the recorded environment", ranks[self.names[1]][1])
        self.assertIn("rank 3 from SLURM_PROCID in the recorded environment", ranks[self.names[3]][1])
        self.assertIn("rank 2 from the file name", ranks[self.names[2]][1])
        # NCCL kernels of every member match as collectives: 4 steps x 4, all matched.
        self.assertEqual(con.execute("SELECT count(*), count(DISTINCT db), min(participants), max(participants), "
                                     "sum(family_count <> matched_count) FROM rocpd_collectives").fetchone(),
                         (64, 4, 4, 4, 0))
        first = con.execute("SELECT db, times_last, late_p95_ns, caused_wait_ns FROM rocpd_stragglers").fetchall()
        self.assertEqual(first[0][0], self.names[self.PLANTED])
        self.assertGreaterEqual(first[0][1], 8)  # last in every straggled collective (2 odd steps x 4)
        self.assertLessEqual(abs(first[0][2] - self.DELAY), 2 * self.JITTER)
        self.assertTrue(all(r[3] < first[0][3] for r in first[1:]))
        # One clock per host: aligning on the collectives moves every member.
        self.assertEqual(con.execute("SELECT rocpd_align('collectives')").fetchone()[0], 4)
        self.assertEqual(con.execute("SELECT db FROM rocpd_stragglers LIMIT 1").fetchone()[0], self.names[self.PLANTED])


if __name__ == "__main__":
    main()
