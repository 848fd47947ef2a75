#!/usr/bin/python3
"""The conversion cache (issue 34, deliverable 3): first and second open of one Kineto trace.

Usage: bench_conversion_cache.py --ext BUILD/librocpd_ext --gen BUILD/tests/generator/rocpd_gen --work DIR
                                 [--mb 500] [--rounds 2]

Generates one PyTorch profiler trace of about --mb MB (rocpd_gen --format kineto, kept in --work for
later runs, never committed), then, each in a child process of its own, opens it and counts its ops
(rocpd_open(json) + SELECT count(*) FROM rocpd_ops):

  no-cache  ROCPD_CACHE=0: converted into a temporary database (as before the cache)
  first     an empty cache (XDG_CACHE_HOME=DIR/xdg): converted, stored in the cache
  second    the same cache: read from it, nothing converted

and prints each one's wall time, the ratios second / first and first / no-cache (measured in this run),
the data size, and the progress lines the first open wrote (rocpd_progress(1)).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

OPEN = """
import sqlite3, sys
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
con.execute("SELECT rocpd_progress(1)")
con.execute("SELECT rocpd_open(?)", (sys.argv[2],)).fetchone()
print(con.execute("SELECT count(*), (SELECT conversion FROM rocpd_members) FROM rocpd_ops").fetchone())
"""


def run(ext, path, env):
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/python3", "-c", OPEN, ext, path], env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"child failed: {p.stderr}")
    return dt, p.stdout.strip(), [l for l in p.stderr.splitlines() if l.startswith("rocpd:")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ext", required=True)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mb", type=float, default=500)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    ops = max(1000, int(a.mb * 1e6 / 1360))  # about 1.36 kB of JSON per generated op (bench_kineto.py)
    out = os.path.join(a.work, f"kineto_{ops}")
    path = os.path.join(out, "rank0.json")
    if not os.path.exists(path):
        subprocess.run([a.gen, "--out", out, "--procs", "1", "--format", "kineto", "--ops", str(ops), "--seed", "1",
                        "--markers", "0"], check=True, stdout=subprocess.DEVNULL)
    size = os.path.getsize(path)
    print(f"data: {path}: {size / 1e6:.1f} MB of JSON ({ops} generated ops); {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    xdg = os.path.abspath(os.path.join(a.work, "xdg"))  # a relative XDG_CACHE_HOME is ignored (XDG spec)
    for r in range(a.rounds):
        shutil.rmtree(xdg, ignore_errors=True)
        env = dict(os.environ, XDG_CACHE_HOME=xdg)
        env.pop("ROCPD_CACHE", None)
        none = run(a.ext, path, dict(env, ROCPD_CACHE="0"))
        first = run(a.ext, path, env)
        second = run(a.ext, path, env)
        entry = sum(os.path.getsize(os.path.join(xdg, "rocpd_ext", n)) for n in os.listdir(os.path.join(xdg, "rocpd_ext")))
        print(f"\nround {r + 1}: cache entry {entry / 1e6:.1f} MB")
        for name, (dt, res, _) in (("no-cache", none), ("first", first), ("second", second)):
            print(f"  {name:9s} {dt:7.2f} s   {res}")
        print(f"  second / first = {second[0] / first[0]:.3f}x (target < 0.1x); first / no-cache = "
              f"{first[0] / none[0]:.2f}x")
        if r == 0:
            print("  progress lines of the first open:")
            for line in first[2]:
                print("    " + line)
    shutil.rmtree(xdg, ignore_errors=True)


if __name__ == "__main__":
    main()
