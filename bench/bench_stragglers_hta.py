#!/usr/bin/python3
"""Straggler analysis of one Kineto job: ours against HTA's own (issue 22, docs/ranks.md "Compared with HTA").

Usage: bench_stragglers_hta.py --ext BUILD/librocpd_ext --hta DIR|--hta-env VAR RANK0.json[.gz] RANK1.json[.gz] ...

Runs, each in a child process of its own (/usr/bin/python3) so that its wall time and peak RSS are
its own:

  ours        rocpd_open of every file (the JSON converted to temporary databases), then
              SELECT * FROM rocpd_stragglers and SELECT * FROM rocpd_collectives
  hta         HTA's Trace(...).load_traces(use_multiprocessing=False), which TraceAnalysis runs
              first, then StragglerAnalysis.get_potential_stragglers(num_candidates=1) (the
              straggler analysis of hta/analyzers/straggler.py; --hta-min-duration sets its
              min_normalized_duration, default HTA's 0.01: generated collectives are shorter than 1 %
              of a step, so HTA keeps none at 0.01), in one process
  hta-mp      TraceAnalysis(trace_files=...) as a user runs it (its default parses the ranks in a
              pool of worker processes: the parent's peak and the largest worker's are printed)
              and the same straggler analysis
  *-import    the interpreter with only the imports (the extension loaded, or hta imported):
              the baseline subtracted for "RSS above imports"

--hta is a checkout of facebookresearch/HolisticTraceAnalysis (its `hta` package is put on
sys.path; it needs Debian's python3-pandas, python3-plotly, python3-networkx). Prints the data
sizes (on disk and as JSON), each tool's time and peak RSS, the ratios (time / ours, peak RSS / JSON
size, RSS above the imports per GB of JSON) measured in this run, the load average, and what each
tool names as straggler. Timings are printed, never asserted.
"""
import argparse
import gzip
import json
import os
import sys
import time

OURS = r"""
import json, resource, sqlite3, sys, time
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
out = {}
t = time.perf_counter()
for path in sys.argv[2:]:
    con.execute("SELECT rocpd_open(?)", (path,)).fetchone()
out["open_s"] = time.perf_counter() - t
t = time.perf_counter()
cur = con.execute("SELECT * FROM rocpd_stragglers")
cols = [d[0] for d in cur.description]
rows = [dict(zip(cols, r)) for r in cur.fetchall()]
out["stragglers_s"] = time.perf_counter() - t
out["stragglers"] = rows
t = time.perf_counter()
out["collectives"] = len(con.execute("SELECT * FROM rocpd_collectives").fetchall())
out["collectives_s"] = time.perf_counter() - t
out["ranks"] = con.execute("SELECT db, rank FROM rocpd_members ORDER BY db").fetchall()
print(json.dumps(out))
"""
OURS_IMPORT = r"""
import sqlite3, sys
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
print("{}")
"""
HTA_PRELUDE = r"""
import json, logging, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
from hta.configs.config import logger
logger.setLevel(logging.WARNING)
from hta.common.trace import Trace
from hta.trace_analysis import TraceAnalysis
from hta.analyzers.straggler_analysis import StragglerAnalysis
from hta.analyzers import straggler as hta_straggler
MIN_DURATION = float(sys.argv[2])
files = {i: p for i, p in enumerate(sys.argv[3:])}
"""
HTA_ANALYSIS = r"""
metric = {}
def keep_metric(df, symbol_table, n, visualize):
    # HTA's own metric and candidate choice, with the per-rank metric kept for the report.
    m, name = hta_straggler._compute_normalized_start_time_of_significant_comm_kernels(
        df, symbol_table, visualize, min_normalized_duration=MIN_DURATION)
    names = symbol_table.get_sym_table()
    metric["rows"] = [{"rank": int(r["rank"]), "iteration": int(r["iteration"]), "stream": int(r["stream"]),
                       "kernel": names[int(r["name"])][:40], "ts_us": int(r["ts"]), "dur_us": float(r["dur"]),
                       name: round(float(r[name]), 4)} for _, r in m.iterrows()]
    return hta_straggler._get_top_k_stragglers_with_metric(m, name, n_stragglers=n, visualize=visualize)
t = time.perf_counter()
out["steps"] = [int(s) for s in StragglerAnalysis.get_profiler_steps(trace)]
try:
    out["stragglers"] = [int(r) for r in StragglerAnalysis.get_potential_stragglers(
        trace, num_candidates=1, straggler_identification_impl=keep_metric)]
except ValueError as e:  # e.g. no ncclKernel* longer than 1 % of an iteration: HTA names nobody
    out["stragglers"] = f"HTA's analysis failed: {e}"
out["analysis_s"] = time.perf_counter() - t
out["metric"] = metric.get("rows", [])
out["ranks"] = sorted(int(r) for r in trace.get_all_traces().keys())
out["self_peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out["children_peak_kb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps(out))
"""
HTA = HTA_PRELUDE + r"""
out = {}
t = time.perf_counter()
trace = Trace(trace_files=files, trace_dir="")
trace.load_traces(use_multiprocessing=False, use_memory_profiling=False)
out["load_s"] = time.perf_counter() - t
""" + HTA_ANALYSIS
HTA_MP = HTA_PRELUDE + r"""
out = {}
t = time.perf_counter()
trace = TraceAnalysis(trace_files=files, trace_dir="").t
out["load_s"] = time.perf_counter() - t
""" + HTA_ANALYSIS
HTA_IMPORT = HTA_PRELUDE + r"""
print("{}")
"""


def run_measured(code, *args):
    """Wall time (s), peak RSS (bytes, the child's own or its largest waited-for descendant's) and the
    JSON the child printed, for `code` run by /usr/bin/python3 in a child of its own."""
    r, w = os.pipe()
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        os.execv("/usr/bin/python3", ["/usr/bin/python3", "-c", code, *args])
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    _, status, usage = os.wait4(pid, 0)
    dt = time.perf_counter() - t
    if status != 0:
        raise RuntimeError(f"child failed (status {status}): {code.strip().splitlines()[-1]}")
    return dt, usage.ru_maxrss * 1024, json.loads(text.strip().splitlines()[-1])


def json_size(path):
    opener = gzip.open if path.endswith(".gz") else open
    n = 0
    with opener(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return n
            n += len(chunk)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ext", required=True, help="the extension (BUILD/librocpd_ext)")
    ap.add_argument("--hta", help="a checkout of facebookresearch/HolisticTraceAnalysis")
    ap.add_argument("--hta-env", help="read --hta from this environment variable when not given")
    ap.add_argument("--hta-min-duration", type=float, default=0.01,
                    help="HTA's min_normalized_duration: its analysis keeps the ncclKernel* kernels longer than "
                         "this fraction of the mean iteration (HTA's default 0.01)")
    ap.add_argument("files", nargs="+", help="one Kineto JSON trace per rank")
    a = ap.parse_args()
    if not a.hta and a.hta_env:
        a.hta = os.environ.get(a.hta_env) or None
    if not a.hta:
        ap.error("HTA is needed: --hta DIR" + (f" or ${a.hta_env}" if a.hta_env else ""))
    files = [os.path.abspath(f) for f in a.files]
    disk = sum(os.path.getsize(f) for f in files)
    jbytes = sum(json_size(f) for f in files)
    gb = jbytes / 1e9
    print(f"data: {len(files)} Kineto traces, {disk / 1e6:.2f} MB on disk, {jbytes / 1e6:.2f} MB of JSON; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}", flush=True)

    res = {}
    res["ours-import"] = run_measured(OURS_IMPORT, a.ext)
    res["ours"] = run_measured(OURS, a.ext, *files)
    md = str(a.hta_min_duration)
    res["hta-import"] = run_measured(HTA_IMPORT, a.hta, md, *files)
    res["hta"] = run_measured(HTA, a.hta, md, *files)
    res["hta-mp"] = run_measured(HTA_MP, a.hta, md, *files)

    base = {"ours": res["ours-import"][1], "hta": res["hta-import"][1], "hta-mp": res["hta-import"][1]}
    t_ours = res["ours"][0]
    print(f"\n{'tool':<12} {'wall s':>7} {'/ ours':>7} {'peak RSS MB':>12} {'x JSON':>8} {'above imports MB':>17} "
          f"{'per GB of JSON':>15}")
    for name, (t, rss, _) in res.items():
        above = rss - base[name] if name in base else None
        per_gb = f"{above / 1e9 / gb:13.2f} GB" if above is not None else ""
        above_s = f"{above / 1e6:17.1f}" if above is not None else ""
        print(f"{name:<12} {t:7.2f} {t / t_ours:6.1f}x {rss / 1e6:12.1f} {rss / jbytes:7.1f}x {above_s:>17} "
              f"{per_gb:>15}", flush=True)
    o = res["ours"][2]
    print(f"\nours: rocpd_open of {len(files)} files {o['open_s']:.2f} s, rocpd_stragglers {o['stragglers_s']:.3f} s, "
          f"rocpd_collectives {o['collectives_s']:.3f} s ({o['collectives']} rows); members {o['ranks']}")
    for name in ("hta", "hta-mp"):
        h = res[name][2]
        print(f"{name}: load {h['load_s']:.2f} s, straggler analysis {h['analysis_s']:.3f} s (profiler steps "
              f"{h['steps']}); own peak {h['self_peak_kb'] / 1024:.0f} MB, largest worker's peak "
              f"{h['children_peak_kb'] / 1024:.0f} MB")
    print(f"ratio: ours (open + stragglers + collectives) {res['hta'][0] / t_ours:.1f}x faster than HTA in one process, "
          f"{res['hta-mp'][0] / t_ours:.1f}x faster than TraceAnalysis' default; HTA's published peak: 4.75x-7.5x "
          f"the JSON size")

    print("\nours names (rocpd_stragglers, worst first):")
    for r in o["stragglers"]:
        print("  " + ", ".join(f"{k}={r[k]}" for k in ("db", "rank", "collectives", "times_last", "late_ns",
                                                       "late_p50_ns", "wait_ns", "caused_wait_ns", "unmatched")
                               if k in r))
    h = res["hta"][2]
    print(f"HTA names (get_potential_stragglers(num_candidates=1), min_normalized_duration "
          f"{a.hta_min_duration}, rank = file index here): {h['stragglers']}; "
          f"its metric per rank:")
    for m in h["metric"]:
        print("  " + ", ".join(f"{k}={v}" for k, v in m.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
