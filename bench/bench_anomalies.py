#!/usr/bin/python3
"""Anomalies at job scale (issue 46: rocpd_anomalies within 3x of rocpd_kernel_summary): on a
generated job of N members (rpd v3, 2,000 ops each, 10 steps with collectives, one gpu each: the
layout of bench_ranks.py), rocpd_anomalies and rocpd_findings against rocpd_kernel_summary measured
in the same run, each alternated with it, best of --repeat; then each input of rocpd_anomalies on
its own, so that the ratio's parts are seen (the visit that reads ahead for the steps and the
stragglers, then each without it).

  cmake --build build --target bench_anomalies   # or directly:
  bench_anomalies.py --ext build/librocpd_ext --gen build/tests/generator/rocpd_gen [--members 1000]
                     [--repeat 2] [--work DIR] [--job DIR]

Prints the data size, the load average before and after, best-of times and ratios to the kernel
summary's best time of the same rounds.
"""
import argparse
import os
import sqlite3
import subprocess
import time

# rocpd_anomalies visits each member once: rocpd_gpu_screen with the step pattern reads the step
# ranges and collectives ahead, and rocpd_steps and rocpd_stragglers take them (docs/diagnosis.md).
STEPS = "SELECT count(*), total(duration) FROM rocpd_steps"
STRAGGLERS = "SELECT count(*) FROM rocpd_stragglers"
INPUTS = [
    ("the visit: screen reading ahead, steps, stragglers",
     ("SELECT count(*) FROM temp.rocpd_gpu_screen(rocpd_step_pattern())", STEPS, STRAGGLERS)),
    ("  its screen alone (no reading ahead)", "SELECT count(*) FROM temp.rocpd_gpu_screen"),
    ("  step ranges alone (rocpd_steps, durations only)", STEPS),
    ("  rocpd_stragglers alone", STRAGGLERS),
]


def connect(ext):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def timed(con, sql):
    """Seconds to run `sql`, one statement or a sequence of them."""
    t0 = time.perf_counter()
    for one in (sql,) if isinstance(sql, str) else sql:
        con.execute(one).fetchall()
    return time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ext", required=True)
    p.add_argument("--gen", required=True)
    p.add_argument("--work", default="/tmp/rocpd_bench_anomalies")
    p.add_argument("--members", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--job", help="an existing job directory to time instead of the generated one")
    args = p.parse_args()

    job = args.job or os.path.join(args.work, f"job_{args.members}")
    if not args.job and not os.path.exists(os.path.join(job, "truth.json")):
        subprocess.run([args.gen, "--out", job, "--procs", str(args.members), "--format", "rpd3", "--ops", "2000",
                        "--seed", "42", "--steps", "10", "--gpus", "1"], check=True, stdout=subprocess.DEVNULL)
    files = [f for f in os.listdir(job) if f.endswith((".rpd", ".db"))]
    size = sum(os.path.getsize(os.path.join(job, f)) for f in files)
    con = connect(args.ext)
    t_open = timed(con, f"SELECT rocpd_open('{job}')")
    ops = con.execute("SELECT sum(ops) FROM rocpd_members").fetchone()[0]
    print(f"job: {job}: {len(files)} members, {ops} ops, {size / 1e9:.2f} GB; rocpd_open {t_open:.1f} s")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    baseline = "SELECT * FROM rocpd_kernel_summary"
    timed(con, baseline)  # the first query after the open profiles nothing more, but fills the pool
    print(f"{'case':48} {'best s':>8} {'kernel summary s':>17} {'ratio':>6}")
    for name, sql in [("rocpd_anomalies", "SELECT * FROM rocpd_anomalies"),
                      ("rocpd_findings", "SELECT * FROM rocpd_findings")] + INPUTS:
        ours, base = [], []
        for _ in range(args.repeat):
            base.append(timed(con, baseline))
            ours.append(timed(con, sql))
        print(f"{name:48} {min(ours):8.2f} {min(base):17.2f} {min(ours) / min(base):6.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
