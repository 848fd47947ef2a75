#!/usr/bin/python3
"""The Kineto import's link (launch links from flows, unique correlation ids, each op's process) on
adversarial shapes of events, against a plain trace of as many events in the same run.

Usage: bench_kineto_link.py --ext BUILD/librocpd_ext --work DIR [--events N] [--sizes 1,2,4]

Each shape is written for N x size events (size from --sizes, default 1, 2 and 4; N default 12,500)
into --work, and converted with rocpd_import in a child process of its own; the bench prints its
wall time, the time per event, and the ratio to the baseline of the same size: a plain trace of as
many runtime calls with their own ascending correlation ids. A near-linear link keeps every ratio
flat as the size grows (n log n: a slowly rising ratio); a quadratic shape doubles its ratio with
each doubling of the size. The shapes (issue 31, item 3):

  baseline        calls with distinct correlations, ascending times
  dup_desc        runtime calls sharing one args.correlation, descending timestamps
  dup_asc         the same, ascending
  flows_at_point  N launches (own correlations) and N ac2g flow starts at one point, and one
                  kernel linked by its flow alone
  uncorrelated    N launches without correlation and N flow starts at one point, one kernel
  f_at_point      N kernels without correlation at one point of one stream, N flow ends there
  shared_kernels  N kernels sharing one correlation (a graph launch), one call
"""
import argparse
import json
import os
import sys
import time

IMPORT = """
import sqlite3, sys
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
print(con.execute("SELECT rocpd_import(?, ?)", (sys.argv[2], sys.argv[3])).fetchone()[0])
"""


def call(ts, corr=None, name="cudaLaunchKernel", pid=1, tid=1, dur=1):
    e = {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": {}}
    if corr is not None:
        e["args"]["correlation"] = corr
    return e


def kernel(ts, corr=None, stream=7):
    e = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": stream, "ts": ts, "dur": 1,
         "args": {"device": 0, "stream": stream}}
    if corr is not None:
        e["args"]["correlation"] = corr
    return e


def flow(ph, fid, pid, tid, ts):
    e = {"ph": ph, "id": fid, "pid": pid, "tid": tid, "ts": ts, "cat": "ac2g", "name": "ac2g"}
    if ph == "f":
        e["bp"] = "e"
    return e


def shape(name, n):
    if name == "baseline":
        return [call(10 + 2 * i, i + 1) for i in range(n)]
    if name == "dup_desc":
        return [call(10 + 2 * (n - i), 1) for i in range(n)]
    if name == "dup_asc":
        return [call(10 + 2 * i, 1) for i in range(n)]
    if name == "flows_at_point":
        return ([call(10, i + 1, dur=0) for i in range(n)] + [flow("s", i + 1, 1, 1, 10) for i in range(n)] +
                [kernel(50), flow("f", 1, 0, 7, 50)])
    if name == "uncorrelated":
        return ([call(10, dur=0) for i in range(n)] + [flow("s", i + 1, 1, 1, 10) for i in range(n)] +
                [kernel(50), flow("f", 1, 0, 7, 50)])
    if name == "f_at_point":
        return [call(10, 1)] + [kernel(50) for _ in range(n)] + [flow("f", 1 + i % 7, 0, 7, 50) for i in range(n)]
    if name == "shared_kernels":
        return [call(10, 1)] + [kernel(50 + i, 1) for i in range(n)]
    raise ValueError(name)


SHAPES = ["baseline", "dup_desc", "dup_asc", "flows_at_point", "uncorrelated", "f_at_point", "shared_kernels"]


def run(ext, path, dst):
    if os.path.exists(dst):
        os.remove(dst)
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
        os.execv("/usr/bin/python3", ["/usr/bin/python3", "-c", IMPORT, ext, path, dst])
    _, status = os.waitpid(pid, 0)
    dt = time.perf_counter() - t
    if status != 0:
        raise RuntimeError(f"import of {path} failed (status {status})")
    os.remove(dst)
    return dt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ext", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--events", type=int, default=12500)
    ap.add_argument("--sizes", default="1,2,4")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    shapes = a.shapes.split(",")
    if "baseline" not in shapes:
        shapes.insert(0, "baseline")
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; N = {a.events} events", flush=True)
    base = {}
    print(f"{'shape':16s} {'events':>8s} {'JSON MB':>8s} {'time s':>8s} {'us/event':>9s} {'x baseline':>10s}")
    for name in shapes:
        for size in sizes:
            n = a.events * size
            events = shape(name, n)
            path = os.path.join(a.work, f"{name}_{n}.json")
            with open(path, "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": events}, f)
            dt = run(a.ext, path, os.path.join(a.work, "out.db"))
            if name == "baseline":
                base[size] = dt
            print(f"{name:16s} {len(events):8d} {os.path.getsize(path) / 1e6:8.2f} {dt:8.2f} "
                  f"{dt / len(events) * 1e6:9.2f} {dt / base[size]:10.2f}", flush=True)
            os.remove(path)
    print(f"load {os.getloadavg()[0]:.2f} after the runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
