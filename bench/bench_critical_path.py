#!/usr/bin/python3
"""The critical path at scale (issue 33, docs/critical_path.md). Two generated jobs, each query in a
fresh process (its peak RSS is its own, the open included), run twice in that process, wall and CPU
time (user + system of every thread). Ratios are against full scans of rocpd_ops timed in the same
run: the summary engine's count (`SELECT count(*), sum(duration) FROM rocpd_ops`, the baseline the
other benches use) and a scan that reads every row's times (`SELECT count(*), sum("end" - start)
FROM rocpd_ops`). The data size is printed.

  job 1: 64 members x 100k ops, 20 steps (rpd v3, 4 collectives per step, one straggler)
  job 2: 1,000 members of the ranks bench (bench_ranks.py's job, its first 1,000 members' layout:
         2,000 ops, 10 steps)
  job small: 16 members x 20k ops, 10 steps (a quick check of the ratios, not the issue's target;
         run with --only small)
  job big: one member of 1M ops, 10 steps (issue 41's limits: peak RSS, and how long after
         sqlite3_interrupt() each table stops when interrupted at fractions of its own time;
         run with --only big)

  bench_critical_path.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen
                         [--work BUILD/bench_data/critical_path] [--only 1|2|small|big]
"""
import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sqlite3, sys, time
ext, job, sql = sys.argv[1:4]
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(ext)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t, c = time.perf_counter(), cpu()
opened = con.execute("SELECT rocpd_open(?)", (job,)).fetchone()[0]
out = {"members": opened, "open_s": time.perf_counter() - t, "open_cpu": cpu() - c, "runs": [], "cpu": []}
for _ in range(2):
    t, c = time.perf_counter(), cpu()
    rows = con.execute(sql).fetchall()
    out["runs"].append(time.perf_counter() - t)
    out["cpu"].append(cpu() - c)
out["rows"] = [[str(v) for v in r] for r in rows[:3]]
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

# Interrupts a query at `fraction` of `whole` seconds: how long after the interrupt it stopped.
INTERRUPT = r"""
import json, sqlite3, sys, threading, time
ext, job, sql, delay = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(ext)
con.execute("SELECT rocpd_open(?)", (job,))
timer = threading.Timer(delay, con.interrupt)
t = time.perf_counter()
timer.start()
try:
    con.execute(sql).fetchall()
    out = {"stopped": None}
except sqlite3.Error as e:
    out = {"stopped": time.perf_counter() - t - delay, "error": str(e)}
print(json.dumps(out))
"""

QUERIES = [
    ("full scan, summary engine (baseline)", "SELECT count(*), sum(duration) FROM rocpd_ops"),
    ("full scan of every row's times", 'SELECT count(*), sum("end" - start) FROM rocpd_ops'),
    ("rocpd_critical_path: every step", "SELECT count(*), count(DISTINCT step), sum(duration) FROM rocpd_critical_path"),
    ("rocpd_critical_path_summary", "SELECT step, step_ns, top FROM rocpd_critical_path_summary"),
    ("rocpd_what_if(NULL, 'ncclDevKernel%', 0.5)",
     "SELECT count(*), sum(measured_ns), sum(predicted_ns) FROM rocpd_what_if(NULL, 'ncclDevKernel%', 0.5)"),
]

JOBS = {
    "1": ("job_64x100000_s20", ["--procs", "64", "--format", "rpd3", "--ops", "100000", "--seed", "33", "--steps", "20",
                                "--gpus", "1", "--straggler", "5:300000"]),
    "2": ("job_1000x2000_s10", ["--procs", "1000", "--format", "rpd3", "--ops", "2000", "--seed", "22", "--steps", "10",
                                "--gpus", "1", "--straggler", "17:200000"]),
    "big": ("job_1x1000000_s10", ["--procs", "1", "--format", "rpd3", "--ops", "1000000", "--seed", "33", "--steps",
                                  "10", "--gpus", "1"]),
    "small": ("job_16x20000_s10", ["--procs", "16", "--format", "rpd3", "--ops", "20000", "--seed", "33", "--steps",
                                   "10", "--gpus", "1", "--straggler", "5:300000"]),
}


def size_mb(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)) / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--work", default="bench_data/critical_path")
    ap.add_argument("--only", choices=sorted(JOBS))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for key, (name, args) in JOBS.items():
        # Without --only: issue 33's two jobs (the small and big ones only when asked for).
        if key != a.only and (a.only is not None or key in ("small", "big")):
            continue
        job = os.path.join(a.work, name)
        if not os.path.exists(os.path.join(job, "truth.json")):
            t = time.perf_counter()
            subprocess.run([a.gen, "--out", job, *args], check=True, stdout=subprocess.DEVNULL)
            print(f"generated {name} in {time.perf_counter() - t:.1f} s")
        truth = json.load(open(os.path.join(job, "truth.json")))
        ops = truth["job"]["ops"]
        print(f"\n{name}: {len(truth['files'])} members, {ops} ops, {truth['job']['apis']} API rows, "
              f"{size_mb(job):.0f} MB (rocpd_gen {' '.join(args)}); load average {os.getloadavg()[0]:.1f}")
        base = None
        print(f"{'query':46s} {'open s':>7s} {'1st s':>8s} {'(cpu)':>8s} {'2nd s':>8s} {'/ scan':>7s} {'/ rows':>7s} {'peak RSS':>9s}")
        scans = []
        for label, sql in QUERIES:
            p = subprocess.run([sys.executable, "-c", CHILD, a.ext, job, sql], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{label}: failed: {p.stderr.strip()[-400:]}")
                continue
            r = json.loads(p.stdout)
            first = r["runs"][0]
            if len(scans) < 2:
                scans.append(first)
            ratio = f"{first / scans[0]:6.1f}x" if scans else ""
            rows_ratio = f"{first / scans[1]:6.1f}x" if len(scans) > 1 else ""
            print(f"{label:46s} {r['open_s']:7.2f} {first:8.2f} {r['cpu'][0]:8.2f} {r['runs'][1]:8.2f} {ratio:>7s} "
                  f"{rows_ratio:>7s} {r['peak_rss_mb']:7.0f} MB")
            if "critical" in label or "what_if" in label:
                print(f"    first rows: {r['rows'][:2]}")
            if key == "big" and ("rocpd_critical_path:" in label or "what_if" in label):
                stops = []
                for fraction in (0.1, 0.3, 0.5, 0.7, 0.9):
                    q = subprocess.run([sys.executable, "-c", INTERRUPT, a.ext, job, sql, str(fraction * first)],
                                       capture_output=True, text=True)
                    got = json.loads(q.stdout)["stopped"] if q.returncode == 0 else None
                    stops.append("done" if got is None else f"{got:.3f}")
                print(f"    interrupted at 10/30/50/70/90 % of its time: stopped after {', '.join(stops)} s")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
