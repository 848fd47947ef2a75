"""rocpd_findings' rules on counters (docs/anomalies.md): low_roof on a hand-written Kineto trace whose
kernels' FLOPs, bytes and so percent of roof are known by construction (two kernels under 30 % of
their H100's roof that hold most of the time, one at 50 % and one too short to count: neither
named); counter_replay on the same trace and on the real counters trace of ../shared/data (its
kernels are the cuda_profiler_range events of the raw JSON)."""
import gzip
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SHARED_DATA, connect, main  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from duration_text import duration_text  # noqa: E402

SASS = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"
H100_SXM = {"fp32_vector": 67e12, "fp16_vector": 133.8e12, "mem": 3.35e12}  # datasheet FLOP/s, bytes/s
# (name, duration us, FLOPs, their peak, bytes)
KERNELS = [
    ("low_mem", 20, 2300, "fp32_vector", 5000),
    ("low_fp16", 40, 2 * 10**6, "fp16_vector", 100),
    ("half_roof", 40, 2 * 1338000000, "fp16_vector", 1000),  # 50 % of the fp16 roof
    ("short_low", 1, 2 * 10, "fp32_vector", 100),  # under 30 %, but under 5 % of the time
]


def counters(flops, peak, bytes_):
    """CUPTI counters that make `flops` (fused multiply-adds: 2 FLOPs each) and `bytes_` read."""
    op = "hfma" if peak == "fp16_vector" else "ffma"
    return {SASS.format(op): flops // 2, "dram__bytes_read.sum": bytes_, "dram__bytes_write.sum": 0}


def write_trace(path):
    ev, t = [], 100
    for i, (name, dur, flops, peak, bytes_) in enumerate(KERNELS):
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 42, "tid": 43, "ts": t,
                "dur": 2, "args": {"correlation": i + 1}},
               {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 5, "dur": dur,
                "args": {"device": 0, "stream": 7, "correlation": i + 1}},
               {"ph": "X", "cat": "cuda_profiler_range", "name": name, "pid": 0, "tid": 0, "ts": 10000 + 1000 * i,
                "dur": 500, "args": counters(flops, peak, bytes_)}]
        t += 100
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                   "traceEvents": ev}, f)
    return 100 + 5, t - 100 + 5 + KERNELS[-1][1]  # the gpu's first op start and last op end, us


def pct_of_roof(dur_us, flops, peak, bytes_):
    roof = min(H100_SXM[peak], flops / bytes_ * H100_SXM["mem"])
    return 100 * flops / (dur_us * 1e-6) / roof


class Findings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        path = os.path.join(cls.dir, "nv.json")
        cls.first_us, cls.last_us = write_trace(path)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (path,))
        cur = cls.con.execute("SELECT * FROM rocpd_findings")
        cls.rows = {r[0]: dict(zip([d[0] for d in cur.description], r)) for r in cur}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_low_roof(self):
        pct = {k[0]: pct_of_roof(k[1], k[2], k[3], k[4]) for k in KERNELS}
        self.assertAlmostEqual(pct["half_roof"], 50, places=6)
        total_us = sum(k[1] for k in KERNELS)
        low = [k for k in KERNELS if pct[k[0]] < 30 and k[1] >= 0.05 * total_us]
        self.assertEqual([k[0] for k in low], ["low_mem", "low_fp16"])
        beyond = {k[0]: k[1] * 1000 * (1 - pct[k[0]] / 100) for k in low}
        worst = max(low, key=lambda k: beyond[k[0]])
        row = self.rows["low_roof"]
        self.assertEqual(row["figures"],
                         f"2 kernels under 30 % of their roof hold {100 * sum(k[1] for k in low) / total_us:.1f} % of "
                         f"the time of the kernels placed on a roof (worst {worst[0]} on NVIDIA H100 80GB HBM3, "
                         f"{duration_text(worst[1] * 1000)} at {pct[worst[0]]:.1f} % of its roof)")
        self.assertAlmostEqual(row["at_stake_ns"], sum(beyond.values()), delta=1)
        span_ns = (self.last_us - self.first_us) * 1000
        self.assertEqual(row["at_stake_pct"], round(100 * row["at_stake_ns"] / span_ns, 1))
        self.assertEqual(row["severity"], "high" if row["at_stake_ns"] >= 0.25 * span_ns else "medium")

    def test_counter_replay_on_every_kernel(self):
        row = self.rows["counter_replay"]
        ns = sum(k[1] for k in KERNELS) * 1000
        self.assertTrue(row["figures"].startswith("counters on 4 of 4 kernels of 1 member (100.0 % of their kernel "
                                                  "time)"), row["figures"])
        self.assertEqual((row["at_stake_ns"], row["at_stake_pct"], row["severity"]), (ns, 100.0, "high"))

    @unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_counters.json.gz")), "no shared data")
    def test_real_counters_trace(self):
        # The trace's kernels are its cuda_profiler_range events (HTA's counter trace): all replayed.
        path = os.path.join(SHARED_DATA, "kineto_counters.json.gz")
        with gzip.open(path) as f:
            ranges = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "cuda_profiler_range"]
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        got = con.execute("SELECT figures, at_stake_ns, severity FROM rocpd_findings WHERE rule = 'counter_replay'"
                          ).fetchall()
        self.assertEqual(len(got), 1)
        self.assertTrue(got[0][0].startswith(f"counters on {len(ranges)} of {len(ranges)} kernels of 1 member "))
        self.assertEqual(got[0][1:], (sum(round(e["dur"] * 1000) for e in ranges), "high"))
        # Its counters have no byte counter: no kernel is placed on a roof, no low_roof.
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_findings WHERE rule = 'low_roof'").fetchone()[0], 0)


if __name__ == "__main__":
    main()
