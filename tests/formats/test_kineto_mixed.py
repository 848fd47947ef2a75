"""A job mixing vendors' formats (rocpd_gen --format vendors: rpd, rocprofv3, Nsight Systems and
Kineto ranks of one workload) through the analyses, each equal to a brute force: rocpd_kernel_summary and rocpd_busy
against the generator's ground truth, rocpd_idle_breakdown against its definition
(docs/diagnosis.md) recomputed in Python from the member rows, and a Perfetto/Chrome export whose
GPU slices are every op of every member."""
import json
import os
import shutil
import sys
import tempfile
import unittest
from collections import defaultdict
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import GEN, connect, generate, main  # noqa: E402

SEED, PROCS, OPS = 41, 4, 1200
THRESHOLD = 5000


def make_job(tmp):
    """The job's directory and its truth per member (db -> file entry of truth.json)."""
    job = os.path.join(tmp, "job")
    t = generate(job, PROCS, "vendors", OPS, SEED)
    return job, {f["db"]: f for f in t["files"]}


class KinetoMixedJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_kineto_mixed_")
        cls.job, cls.truth = make_job(cls.tmp)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.job,))

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    def test_formats(self):
        formats = dict(self.rows("SELECT db, format FROM rocpd_members"))
        self.assertEqual(formats, {db: f["format"] for db, f in self.truth.items()})
        self.assertEqual(sorted(formats.values()), ["kineto", "nsys", "rocpd", "rpd"])

    def test_kernel_summary(self):
        want = {}
        for f in self.truth.values():
            for t in f["top"]:
                if t["kind"] != "kernel":
                    continue
                c, s, lo, hi = want.get(t["name"], (0, 0, None, None))
                want[t["name"]] = (c + t["calls"], s + t["total_ns"], t["min_ns"] if lo is None else min(lo, t["min_ns"]),
                                   t["max_ns"] if hi is None else max(hi, t["max_ns"]))
        got = {n: (c, s, lo, hi) for n, c, s, lo, hi in self.rows(
            "SELECT name, instances, total_ns, min_ns, max_ns FROM rocpd_kernel_summary_full")}
        self.assertEqual(got, want)

    def test_busy(self):
        want = {(db, g["gpu"]): g["busy_ns"] for db, f in self.truth.items() for g in f["gpus"]}
        got = {(db, gpu): b for db, gpu, b in self.rows("SELECT db, gpu, busy_ns FROM rocpd_busy")}
        self.assertEqual(got, want)

    def test_idle_breakdown(self):
        launches = defaultdict(dict)
        for db, corr, start in self.rows("SELECT db, correlation_id, start FROM rocpd_apis "
                                         "WHERE correlation_id IS NOT NULL AND start IS NOT NULL"):
            prev = launches[db].get(corr)
            launches[db][corr] = start if prev is None else min(prev, start)
        ops = defaultdict(list)
        for db, gpu, start, end, corr in self.rows('SELECT db, gpu, start, "end", correlation_id FROM rocpd_ops'):
            ops[db, gpu].append((start, end, launches[db].get(corr)))
        want = {}
        for (db, gpu), rows in ops.items():
            starts = defaultdict(list)  # op start -> launch starts of the ops starting there
            for s, e, launch in rows:
                starts[s].append(launch)
            merged = []
            for s, e, _ in sorted(rows):
                if e <= s:
                    continue
                if merged and s <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], e)
                else:
                    merged.append([s, e])
            host = kernel = other = 0
            for (_, a), (b, _) in zip(merged, merged[1:]):
                known = [launch for launch in starts[b] if launch is not None]
                if known and min(known) > a:
                    host += b - a
                elif known and b - a < THRESHOLD:
                    kernel += b - a
                else:
                    other += b - a
            busy = sum(e - s for s, e in merged)
            want[db, gpu] = (len(rows), len(merged) - 1, host + kernel + other, host, kernel, other, busy)
        got = {(db, gpu): tuple(r) for db, gpu, *r in self.rows(
            "SELECT db, gpu, ops, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, busy_ns "
            "FROM rocpd_idle_breakdown WHERE level = 'gpu'")}
        self.assertEqual(got, want)
        kineto = [db for db, f in self.truth.items() if f["format"] == "kineto"]
        self.assertTrue(any(got[k][3] > 0 for k in got if k[0] in kineto), "no host wait on a Kineto member")

    def test_export(self):
        out = os.path.join(self.tmp, "job.json")
        self.rows("SELECT rocpd_export_trace(?)", (out,))
        with open(out) as f:
            doc = json.load(f, parse_float=Decimal)
        pid_db = {pid: db for db, f in self.truth.items() for pid in f["pids"]}
        per_db = defaultdict(lambda: [0, 0])
        for e in doc["traceEvents"]:
            if e.get("cat") in ("kernel", "copy") and e.get("ph") in ("X", "i"):
                d = per_db[pid_db[e["pid"]]]
                d[0] += 1
                # A zero-length op an arrow ends at is written 1 ns long (docs/export.md).
                d[1] += e["args"]["recorded_dur_ns"] if "recorded_dur_ns" in e.get("args", {}) \
                    else int(Decimal(e.get("dur", 0)) * 1000)
        want = {db: [f["ops"], f["ops_sum_ns"]] for db, f in self.truth.items()}
        self.assertEqual(dict(per_db), want)


if __name__ == "__main__":
    main()
