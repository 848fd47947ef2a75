#!/usr/bin/python3
"""Across ranks at scale (issue 22, docs/ranks.md): a generated job of 10,000 members (2,000 ops each,
10 steps of 4 collectives per rank, one planted straggler) on one machine: rocpd_open,
rocpd_stragglers, rocpd_kernel_summary and rocpd_busy, each in a fresh process (so its peak RSS is
its own, the open included), each query run twice in that process (the second finds the members'
profiles cached), the whole round twice, wall time and CPU time (user + system of every thread: on
a machine shared with other work the wall time stretches, the CPU time much less). Ratios are
against a full scan of rocpd_ops
(`SELECT count(*), sum(duration) FROM rocpd_ops`) timed in the same run; the data size is printed.
Also: peak RSS per GB of trace input of the straggler analysis, and the Dask recipe's driver step
(the members' collective lists shipped and matched; docs/distributed.md).

  bench_ranks.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen \
                 [--members 10000] [--ops 2000] [--steps 10] [--work BUILD/bench_data/ranks] [--rounds 2]
"""
import argparse
import json
import os
import subprocess
import sys
import time

QUERIES = [
    ("full scan (baseline)", "SELECT count(*), sum(duration) FROM rocpd_ops"),
    ("rocpd_stragglers", "SELECT * FROM rocpd_stragglers"),
    ("rocpd_kernel_summary", "SELECT * FROM rocpd_kernel_summary"),
    ("rocpd_busy", "SELECT * FROM rocpd_busy"),
]

# One measurement in a fresh process: open, then the query twice; prints JSON.
CHILD = r"""
import json, resource, sqlite3, sys, time
ext, job, sql = sys.argv[1:4]
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(ext)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)  # every thread of the process
    return r.ru_utime + r.ru_stime
t, c = time.perf_counter(), cpu()
opened = con.execute("SELECT rocpd_open(?)", (job,)).fetchone()[0]
open_s, open_cpu = time.perf_counter() - t, cpu() - c
out = {"members": opened, "open_s": open_s, "open_cpu": open_cpu, "runs": [], "cpu": []}
if sql:
    for _ in range(2):
        t, c = time.perf_counter(), cpu()
        rows = con.execute(sql).fetchall()
        out["runs"].append(time.perf_counter() - t)
        out["cpu"].append(cpu() - c)
    out["rows"] = len(rows)
    out["first"] = [str(v) for v in rows[0]] if rows else []
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

# The recipe's two steps in one process: every member's collective list (what the tasks send), then
# the driver's match.
DASK = r"""
import json, pickle, resource, sys, time
sys.path.insert(0, sys.argv[3])
import os
os.environ["ROCPD_EXT_LIBRARY"] = sys.argv[1] + ".so"
from rocpd_ext import recipes
files = recipes.expand(sys.argv[2])
t = time.perf_counter()
parts = [recipes.partial("stragglers", files[i:i + 500]) for i in range(0, len(files), 500)]
partial_s = time.perf_counter() - t
sent = sum(len(pickle.dumps(p)) for p in parts)
rows = sum(len(p) for p in parts)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
got = recipes.reduce("stragglers", parts)
reduce_s = time.perf_counter() - t
print(json.dumps({"members": len(files), "rows": rows, "sent_bytes": sent, "partial_s": partial_s,
                  "reduce_s": reduce_s, "first": [str(v) for v in got[0]],
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "peak_before_reduce_mb": before}))
"""


def generate(gen, out, members, ops, steps):
    if os.path.exists(os.path.join(out, "truth.json")):
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    t = time.perf_counter()
    subprocess.run([gen, "--out", out, "--procs", str(members), "--format", "rpd3", "--ops", str(ops), "--seed", "42",
                    "--steps", str(steps), "--gpus", "1", "--straggler", "17:200000"], check=True,
                   stdout=subprocess.DEVNULL)
    print(f"generated {out} in {time.perf_counter() - t:.0f} s", flush=True)


def child(ext, job, sql):
    p = subprocess.run([sys.executable, "-c", CHILD, ext, job, sql], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--members", type=int, default=10000)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--work", default="/tmp/rocpd_bench_ranks")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-dask", action="store_true", help="skip the recipe's driver step")
    args = ap.parse_args()

    job = os.path.join(args.work, f"job_{args.members}x{args.ops}")
    generate(args.gen, job, args.members, args.ops, args.steps)
    files = [f for f in os.listdir(job) if f != "truth.json"]
    size = sum(os.path.getsize(os.path.join(job, f)) for f in files)
    gb = size / 1e9
    print(f"{job}: {len(files)} rpd v3 members x {args.ops} ops ({args.members * args.ops} ops, "
          f"{args.steps} steps x 4 collectives per member), {size / 1e6:.0f} MB; {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'round':>5}  {'query':<24} {'open s':>7} {'cpu':>6} {'1st s':>7} {'cpu':>6} {'2nd s':>7} {'cpu':>6} "
          f"{'/ scan':>7} {'peak RSS MB':>11}  rows")
    for rnd in range(1, args.rounds + 1):
        scan = None
        for label, sql in [("rocpd_open only", "")] + QUERIES:
            r = child(args.ext, job, sql)
            runs = r["runs"]
            if label.startswith("full scan"):
                scan = runs[0]
            ratio = f"{runs[0] / scan:6.1f}x" if runs and scan else ""
            cpus = r["cpu"]
            first = f"{runs[0]:7.2f} {cpus[0]:6.1f}" if runs else " " * 14
            second = f"{runs[1]:7.2f} {cpus[1]:6.1f}" if runs else " " * 14
            print(f"{rnd:>5}  {label:<24} {r['open_s']:7.2f} {r['open_cpu']:6.1f} {first} {second} {ratio:>7} "
                  f"{r['peak_rss_mb']:11.0f}  {r.get('rows', r['members'])}", flush=True)
            if label == "rocpd_stragglers":
                print(f"{'':>5}  worst straggler: {r['first'][:3]} caused {r['first'][10]} ns of wait; "
                      f"peak RSS per GB of input: {r['peak_rss_mb'] / gb:.0f} MB/GB ({r['peak_rss_mb'] / 1024 / gb:.3f}x)",
                      flush=True)
        print(f"{'':>5}  load {os.getloadavg()[0]:.1f} at the end of round {rnd}", flush=True)
    if not args.no_dask:
        p = subprocess.run([sys.executable, "-c", DASK, args.ext, job, os.path.join(here, "..", "python")],
                           capture_output=True, text=True, check=True)
        d = json.loads(p.stdout)
        print(f"Dask recipe, --query stragglers, both steps in one process: {d['members']} members' collective lists "
              f"({d['rows']} collectives, {d['sent_bytes'] / 1e6:.1f} MB pickled, "
              f"{d['sent_bytes'] / d['members']:.0f} bytes per member) read in {d['partial_s']:.1f} s; "
              f"the driver's match {d['reduce_s']:.1f} s, peak RSS {d['peak_rss_mb']:.0f} MB "
              f"({d['peak_before_reduce_mb']:.0f} MB before it); worst straggler {d['first'][:3]}", flush=True)


if __name__ == "__main__":
    main()
