#!/usr/bin/python3
"""Kineto JSON import against HTA's own trace load and against Python's json.load.

Usage: bench_kineto.py --ext BUILD/librocpd_ext --gen BUILD/tests/generator/rocpd_gen --work DIR
                       [--hta DIR] [--gb 1.0] [--gzip]

Generates one PyTorch profiler trace of about --gb GB (rocpd_gen --format kineto, without roctx
markers: HTA refuses a marker named "ProfilerStep" without "#<n>") into --work (kept for later runs,
never committed), then runs, each in a child process of its own so that its peak RSS is its own:

  ours     rocpd_import(json, db): the whole conversion (parse, store, link, commit)
  open     rocpd_open(json) then SELECT count(*) FROM rocpd_ops (conversion to a temporary
           database and a first query)
  json     json.load of the file (the floor of any reader that builds a document)
  hta      HTA's load of one rank, what TraceAnalysis(trace_files=...) runs first: Trace(...)
           .load_traces() (hta/common/trace.py: its JSON parser into pandas, the symbol table,
           the alignment), from --hta, a checkout of facebookresearch/HolisticTraceAnalysis (its
           `hta` package on sys.path; it needs pandas and numpy, Debian's python3-pandas);
           skipped with a note without --hta

and prints each one's wall time and peak RSS, the ratios (time of each / ours; RSS / JSON size)
measured in this run, and the data size. --gzip also runs ours and HTA on a gzip copy.
"""
import argparse
import os
import subprocess
import sys
import time

OURS = """
import sqlite3, sys
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
print(con.execute("SELECT rocpd_import(?, ?)", (sys.argv[2], sys.argv[3])).fetchone()[0])
"""
OPEN = """
import sqlite3, sys
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
con.execute("SELECT rocpd_open(?)", (sys.argv[2],)).fetchone()
print(con.execute("SELECT count(*) FROM rocpd_ops").fetchone()[0])
"""
JSON = """
import gzip, json, sys
opener = gzip.open if sys.argv[1].endswith(".gz") else open
with opener(sys.argv[1], "rb") as f:
    print(len(json.load(f)["traceEvents"]))
"""
HTA = """
import logging, os, sys
sys.path.insert(0, sys.argv[1])
from hta.common.trace import Trace
from hta.configs.config import logger
logger.setLevel(logging.WARNING)
path = sys.argv[2]
t = Trace(trace_files={0: os.path.basename(path)}, trace_dir=os.path.dirname(path))
t.load_traces(use_multiprocessing=False, use_memory_profiling=False)
print(len(t.get_trace(0)))
"""


def run_measured(code, *args):
    """Wall time (s), peak RSS (bytes) and CPU time (s: user + system of every thread) of `code` run by
    /usr/bin/python3 in a child of its own."""
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.execv("/usr/bin/python3", ["/usr/bin/python3", "-c", code, *args])
    _, status, usage = os.wait4(pid, 0)
    dt = time.perf_counter() - t
    if status != 0:
        raise RuntimeError(f"child failed (status {status}): {code.strip().splitlines()[-1]}")
    return dt, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def generate(gen, work, gb):
    # About 1.36 kB of JSON per op of the generated workload (calls, operators, flows, samples).
    ops = max(1000, int(gb * 1e9 / 1360))
    out = os.path.join(work, f"kineto_{ops}")
    path = os.path.join(out, "rank0.json")
    if not os.path.exists(path):
        subprocess.run([gen, "--out", out, "--procs", "1", "--format", "kineto", "--ops", str(ops), "--seed", "1",
                        "--markers", "0"], check=True)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--hta", help="a checkout of facebookresearch/HolisticTraceAnalysis")
    ap.add_argument("--hta-env", help="read --hta from this environment variable when not given")
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--gzip", action="store_true")
    a = ap.parse_args()
    if not a.hta and a.hta_env:
        a.hta = os.environ.get(a.hta_env) or None
    os.makedirs(a.work, exist_ok=True)
    src = generate(a.gen, a.work, a.gb)
    inputs = [src]
    if a.gzip:
        gz = src + ".gz"
        if not os.path.exists(gz):
            subprocess.run(["sh", "-c", f"gzip -1 -c '{src}' > '{gz}.tmp' && mv '{gz}.tmp' '{gz}'"], check=True)
        inputs.append(gz)
    json_bytes = os.path.getsize(src)
    print(f"data: {src}: {json_bytes / 1e9:.3f} GB of JSON; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}",
          flush=True)
    for path in inputs:
        size = os.path.getsize(path)
        print(f"\n== {os.path.basename(path)} ({size / 1e9:.3f} GB on disk, {json_bytes / 1e9:.3f} GB of JSON)",
              flush=True)
        results = {}
        dst = os.path.join(a.work, "imported.db")
        if os.path.exists(dst):
            os.remove(dst)
        results["ours"] = run_measured(OURS, a.ext, path, dst)
        db_bytes = os.path.getsize(dst)
        os.remove(dst)
        results["open"] = run_measured(OPEN, a.ext, path)
        if path == src:
            results["json"] = run_measured(JSON, path)
        if a.hta:
            results["hta"] = run_measured(HTA, a.hta, path)
        else:
            print("note: no --hta: HTA's parser not run (pass a checkout of facebookresearch/HolisticTraceAnalysis)")
        print(f"load {os.getloadavg()[0]:.2f} after the runs", flush=True)
        t0 = results["ours"][0]
        c0 = results["ours"][2]
        for name, (t, rss, cpu) in results.items():
            print(f"{name:5s} {t:8.1f} s  {t / t0:6.2f}x ours' time  CPU {cpu:7.1f} s  {cpu / c0:6.2f}x ours'  "
                  f"peak RSS {rss / 1e6:8.0f} MB = "
                  f"{rss / json_bytes:5.2f}x the JSON size", flush=True)
        print(f"ours: {json_bytes / 1e6 / t0:.0f} MB of JSON per s; database {db_bytes / 1e6:.0f} MB = "
              f"{db_bytes / json_bytes:.2f} MB per MB of JSON")
        if "hta" in results:
            print(f"ratio: import {results['hta'][0] / t0:.1f}x faster than HTA's load in wall time, "
                  f"{results['hta'][2] / c0:.1f}x in CPU time, "
                  f"peak RSS {results['ours'][1] / json_bytes:.2f}x the JSON size (HTA {results['hta'][1] / json_bytes:.2f}x)")
        if "json" in results:
            print(f"ratio: import {results['json'][0] / t0:.1f}x faster than json.load "
                  f"(whose peak RSS is {results['json'][1] / json_bytes:.2f}x the JSON size)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
