"""The Kineto import's launch links against a brute-force reference linker, on random small shapes
of events chosen to collide: calls and flows at the same points, repeated and missing correlation
ids, flows of other categories, text ids, several processes (a property test: issue 31, item 3).

The reference below restates the rules of docs/formats.md ("Launch links") over the JSON alone,
by brute force (every pair looked at), independently of the importer's SQL:
  - a launching call (a *_runtime / *_driver category, or Runtime / driver of older traces) keeps
    its args.correlation; one without takes the id of the first launch flow (`s`, a launch
    category, an integer id) at its pid, tid and ts, in file order;
  - an op (kernel) keeps its args.correlation; one without takes the id of the first launch flow
    `f` at its pid, tid and ts;
  - of launching calls sharing a correlation, the earliest (then the first written) keeps it;
  - an op's process is its launching call's when the trace has calls of several processes, else
    (or without a launch) the main process: the pid with most calls, the smallest on a tie."""
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import connect, main  # noqa: E402

LAUNCH_FLOW_CATS = {"ac2g", "async_cpu_to_gpu", "async_gpu", "async"}
CASES = 100


def as_int(v):
    """A flow id as the trace viewer compares it: an integer, or text that spells one."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit() and v == str(int(v)):
        return int(v)
    return None


def launching(cat):
    c = cat.lower()
    return c in ("cuda_runtime", "cuda_driver", "runtime", "driver") or c.endswith("_runtime") or c.endswith("_driver")


def reference(events):
    """name -> correlation for calls and ops, and name -> pid for ops."""
    ns = lambda e: e["ts"] * 1000  # noqa: E731 (integer µs in these shapes)
    flows = [(i, e) for i, e in enumerate(events) if e["ph"] in ("s", "f") and e["cat"] in LAUNCH_FLOW_CATS
             and as_int(e["id"]) is not None]

    def first_flow(ph, pid, tid, t):
        for _, f in flows:
            if f["ph"] == ph and f["pid"] == pid and f["tid"] == tid and ns(f) == t:
                return as_int(f["id"])
        return None

    calls = [(i, e) for i, e in enumerate(events) if e["ph"] == "X" and e["cat"] != "kernel"]
    call_corr = {}
    for i, e in calls:
        if not launching(e["cat"]):
            call_corr[e["name"]] = None
            continue
        c = e["args"].get("correlation")
        call_corr[e["name"]] = c if c is not None else first_flow("s", e["pid"], e["tid"], ns(e))
    for i, e in calls:
        c = call_corr[e["name"]]
        if c is None:
            continue
        if any(call_corr[o["name"]] == c and (ns(o), j) < (ns(e), i) for j, o in calls):
            call_corr[e["name"]] = None
    counts = {}
    for _, e in calls:
        counts[e["pid"]] = counts.get(e["pid"], 0) + 1
    main_pid = min(counts, key=lambda p: (-counts[p], p)) if counts else None
    op_corr, op_pid = {}, {}
    for _, e in enumerate(events):
        if e["ph"] != "X" or e["cat"] != "kernel":
            continue
        c = e["args"].get("correlation")
        if c is None:
            c = first_flow("f", e["pid"], e["tid"], ns(e))
        op_corr[e["name"]] = c
        pid = main_pid
        if len(counts) > 1:
            launcher = [o for _, o in calls if c is not None and call_corr[o["name"]] == c]
            pid = launcher[0]["pid"] if launcher else main_pid
        op_pid[e["name"]] = pid
    return call_corr, op_corr, op_pid


def random_shape(rng):
    events = []
    for i in range(rng.randint(1, 40)):
        kind = rng.choice(["call", "call", "kernel", "kernel", "s", "s", "f", "f", "cpu_op"])
        corr = rng.choice([None, None, 1, 2, 3, 4])
        args = {} if corr is None else {"correlation": corr}
        if kind in ("call", "cpu_op"):
            cat = "cpu_op" if kind == "cpu_op" else rng.choice(["cuda_runtime", "cuda_driver", "Runtime", "xpu_runtime"])
            events.append({"ph": "X", "cat": cat, "name": f"c{i}", "pid": rng.choice([1, 2]), "tid": rng.choice([1, 2]),
                           "ts": rng.randint(1, 5), "dur": rng.randint(0, 2), "args": args})
        elif kind == "kernel":
            events.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": rng.choice([7, 8]),
                           "ts": rng.randint(11, 15), "dur": 1, "args": dict(args, device=0)})
        else:
            on_call = kind == "s"
            events.append({"ph": kind, "id": rng.choice([1, 2, 3, 4, 5, "5", "x"]),
                           "pid": rng.choice([1, 2]) if on_call else 0,
                           "tid": rng.choice([1, 2]) if on_call else rng.choice([7, 8]),
                           "ts": rng.randint(1, 5) if on_call else rng.randint(11, 15),
                           "cat": rng.choice(["ac2g", "ac2g", "async_cpu_to_gpu", "async_gpu", "fwdbwd"]),
                           "name": "flow"})
    return events


class KinetoLink(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_kineto_link_")
        os.environ["SQLITE_TMPDIR"] = cls.tmp

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_random_shapes(self):
        rng = random.Random(31)
        con = connect()
        path = os.path.join(self.tmp, "t.json")
        linked = flowed = repeated = 0
        for case in range(CASES):
            events = random_shape(rng)
            with open(path, "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": events}, f)
            call_corr, op_corr, op_pid = reference(events)
            with self.subTest(case=case, events=json.dumps(events)):
                con.execute("SELECT rocpd_open(?)", (path,))
                got_calls = dict(con.execute("SELECT name, correlation_id FROM rocpd_apis"))
                got_ops = {n: (c, p) for n, c, p in con.execute("SELECT name, correlation_id, pid FROM rocpd_ops")}
                con.execute("SELECT rocpd_close()")
                self.assertEqual(got_calls, call_corr)
                self.assertEqual(got_ops, {n: (op_corr[n], op_pid[n]) for n in op_corr})
            linked += sum(1 for n, c in op_corr.items() if c is not None and c in call_corr.values())
            flowed += sum(1 for e in events if e["ph"] == "X" and e["cat"] == "kernel" and
                          "correlation" not in e["args"] and op_corr[e["name"]] is not None)
            repeated += sum(1 for e in events if e["ph"] == "X" and "correlation" in e["args"] and
                            e["cat"] != "kernel" and call_corr[e["name"]] is None and launching(e["cat"]))
        # The shapes exercise what they are for: links through flows, calls that lose a repeated id.
        print(f"links {linked}, through flows {flowed}, repeated ids {repeated}")
        self.assertGreater(linked, CASES // 2)
        self.assertGreater(flowed, CASES // 4)
        self.assertGreater(repeated, CASES // 4)

    def test_adversarial_shapes(self):
        """The shapes that made the link quadratic (issue 31: 7 to 258 s at these sizes), linked as the
        rules say. Interrupted after 60 s (they take about a second each now)."""
        call = lambda ts, corr=None: {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,  # noqa
                                      "tid": 1, "ts": ts, "dur": 0, "args": {} if corr is None else {"correlation": corr}}
        kernel = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 50, "dur": 1, "args": {"device": 0}}
        flow = lambda ph, i, pid, tid, ts: {"ph": ph, "id": i, "pid": pid, "tid": tid, "ts": ts, "cat": "ac2g",  # noqa
                                            "name": "ac2g"}
        n = 20000
        shapes = {
            # Calls sharing one correlation, descending times: the last written is the earliest.
            "dup_desc": ([call(10 + 2 * (2 * n - i), 1) for i in range(2 * n)] + [dict(kernel, args={"correlation": 1})],
                         (10 + 2 * 1, 1), 1),
            # Launches with their own ids and as many flow starts at one point; a kernel linked by
            # its flow alone takes the flow's id: the call with that correlation.
            "flows_at_point": ([call(10, i + 1) for i in range(n)] + [flow("s", i + 1, 1, 1, 10) for i in range(n)] +
                               [kernel, flow("f", 777, 0, 7, 50)], (10, 777), 777),
            # Launches without ids and as many flow starts at one point: each takes the first flow's
            # id, which the first written keeps.
            "uncorrelated": ([call(10) for _ in range(n)] + [flow("s", i + 1, 1, 1, 10) for i in range(n)] +
                             [kernel, flow("f", 1, 0, 7, 50)], (10, 1), 1),
        }
        path = os.path.join(self.tmp, "adversarial.json")
        for name, (events, keeper, kernel_corr) in shapes.items():
            with self.subTest(shape=name):
                with open(path, "w") as f:
                    json.dump({"traceEvents": events}, f)
                con = connect()
                timer = threading.Timer(60, con.interrupt)
                timer.start()
                try:
                    con.execute("SELECT rocpd_open(?)", (path,))
                finally:
                    timer.cancel()
                kept = con.execute("SELECT start / 1000, correlation_id FROM rocpd_apis WHERE correlation_id IS NOT NULL "
                                   "ORDER BY api_id").fetchall()
                if name == "flows_at_point":
                    self.assertEqual(len(kept), n)
                    self.assertIn(keeper, kept)
                else:
                    self.assertEqual(kept, [keeper])
                self.assertEqual(con.execute("SELECT correlation_id FROM rocpd_ops").fetchall(), [(kernel_corr,)])
                con.close()


if __name__ == "__main__":
    main()
