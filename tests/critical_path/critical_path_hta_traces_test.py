"""The critical path on HTA's own test traces with `cuda_sync` events (facebookresearch/
HolisticTraceAnalysis, tests/data/critical_path: alexnet, cuda_event_sync), read in place from a
local clone (ROCPD_HTA_REPO, a git directory; default: the project's mirror) and never copied into
the project: skipped when absent. The waits our path takes from the records are checked against the
records themselves, read here from the JSON as HTA reads them (hta/analyzers/critical_path_analysis.py):
a 'Stream Wait Event' makes the next kernel launched on its `stream` by the waiting thread wait for
the last kernel launched on `wait_on_stream` before the event's record call; an 'Event Sync' makes
its call wait for that kernel too.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import connect, main  # noqa: E402

REPO = os.environ.get("ROCPD_HTA_REPO", "/work/.mirror/facebookresearch+HolisticTraceAnalysis/repo")
TRACES = {"alexnet": "tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
          "event_sync": "tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz"}
TMP = None


def extract(name):
    """The trace, written from the clone into this test's temporary directory (None: not there)."""
    p = subprocess.run(["git", "--git-dir", REPO, "show", "HEAD:" + TRACES[name]], capture_output=True)
    if p.returncode != 0:
        return None
    path = os.path.join(TMP, name + ".json.gz")
    with open(path, "wb") as f:
        f.write(p.stdout)
    return path


def setUpModule():
    global TMP
    if not os.path.isdir(REPO):
        print(f"HTA clone {REPO} not present: skipped")
        sys.exit(77)
    TMP = tempfile.mkdtemp(prefix="critical_path_hta_")


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def expected_waits(path):
    """From the JSON: per waiting op (a kernel or call name) the kernels it waited for, by the records."""
    with gzip.open(path, "rt") as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    runtime = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    kernels = [e for e in events if e.get("cat") == "kernel"]
    launch = {id(k): runtime.get(k["args"].get("correlation")) for k in kernels}

    def last_before(stream, ts):
        best = None
        for k in kernels:
            call = launch[id(k)]
            if k["args"].get("stream") == stream and call and call["ts"] < ts and (best is None or call["ts"] > launch[id(best)]["ts"]):
                best = k
        return best

    stream_waits, call_waits = set(), set()
    for s in events:
        if s.get("cat") != "cuda_sync" or s["args"].get("wait_on_cuda_event_record_corr_id", -1) < 0:
            continue
        record = runtime.get(s["args"]["wait_on_cuda_event_record_corr_id"])
        waited = record and last_before(s["args"]["wait_on_stream"], record["ts"])
        if not waited:
            continue
        call = runtime[s["args"]["correlation"]]
        if s["name"] == "Stream Wait Event":
            after = [k for k in kernels if k["args"].get("stream") == s["args"]["stream"] and launch[id(k)]
                     and launch[id(k)]["tid"] == call["tid"] and launch[id(k)]["ts"] > call["ts"]]
            if after:
                b = min(after, key=lambda k: launch[id(k)]["ts"])
                stream_waits.add((b["name"], waited["name"]))
        elif s["name"] == "Event Sync":
            call_waits.add((call["name"], waited["name"]))
    return stream_waits, call_waits


class HtaTraces(unittest.TestCase):
    def path(self, name, pattern):
        path = extract(name)
        if path is None:
            self.skipTest(f"{TRACES[name]} not in {REPO}")
        con = connect()
        con.execute("SELECT rocpd_open(?)", (path,))
        rows = con.execute("SELECT step, kind, name, waited_for, inferred, duration FROM rocpd_critical_path(?)",
                           (pattern,)).fetchall()
        return path, rows

    def test_alexnet_stream_waits_from_the_records(self):
        # The measured forward passes (HTA's test uses instance 1 of this annotation).
        path, rows = self.path("alexnet", "[param|pytorch.model.alex_net|0|0|0|measure|forward]")
        stream_waits, _ = expected_waits(path)
        self.assertGreater(len(stream_waits), 0)
        got = [(r[2], r[3], r[4]) for r in rows if r[1] == "stream_wait"]
        self.assertTrue(got, "a stream wait on the measured steps' paths")
        for name, waited, inferred in got:
            self.assertIn((name, waited), stream_waits)
            self.assertEqual(inferred, 0)
        # The second measured step: kernels 3.710 ms of its 36.356 ms on the path (HTA: gpu_compute_bound
        # 3.712 ms of a 35.834 ms weighted path; docs/critical_path.md "Compared with HTA").
        self.assertEqual(sum(r[5] for r in rows if r[0] == 1), 36_356_000)

    def test_event_sync_waits_for_the_recorded_kernel(self):
        path, rows = self.path("event_sync", "ProfilerStep%")
        _, call_waits = expected_waits(path)
        got = {(r[2], r[3]) for r in rows if r[1] == "sync_wait" and r[2] == "cudaEventSynchronize"}
        self.assertTrue(got)
        self.assertLessEqual(got, call_waits)
        self.assertFalse([r for r in rows if r[4]], "nothing inferred where the trace records the waits")


if __name__ == "__main__":
    main()
