#!/usr/bin/python3
"""rocpd_export_trace against upstream rpd2tracing.py (ROCm/rocmProfileData, tools/rpd2tracing.py).

Usage: bench_export.py --ext BUILD/librocpd_ext --gen BUILD/tests/generator/rocpd_gen --work DIR
                       [--upstream rpd2tracing.py] [--ops N] [--real ../shared/data/matmul_result.rpd]

The upstream script is not part of the project: pass its path, or the script downloads it into
--work with curl. It runs under the same /usr/bin/python3 on a copy of the input under --work.
Both convert the whole file (and a window of the middle 10 %) to Chrome trace JSON (ours also to
.json.gz and .pftrace, and with the file opened by rocpd_open instead of ATTACHed); times are
best of --repeat wall-clock runs (connection, loading and opening included), sizes are the
output files. Prints ratios. The contenders run in turns (one run of each per round), so that
the machine's drift in speed over the minute falls on all of them alike.
"""
import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import time

UPSTREAM_URL = "https://raw.githubusercontent.com/ROCm/rocmProfileData/master/tools/rpd2tracing.py"


def ours(ext, rpd, out, lo=None, hi=None, opened=False):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    if opened:
        con.execute("SELECT rocpd_open(?)", (rpd,)).fetchone()
    else:
        con.execute("ATTACH ? AS r", (f"file:{rpd}?mode=ro",))
    args = (out,) if lo is None else (out, lo, hi)
    n = con.execute(f"SELECT rocpd_export_trace({', '.join('?' * len(args))})", args).fetchone()[0]
    con.close()
    return n


def upstream(script, rpd, out, start=None, end=None):
    cmd = ["/usr/bin/python3", script, rpd, out]
    if start is not None:
        cmd += ["--start", start, "--end", end]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def mb(path):
    return os.path.getsize(path) / 1e6


def interleaved(repeat, runs):
    """Best of `repeat` wall-clock times of each (name, fn) in `runs`, run in turns (one of each per
    round): the machine's speed drifts over a minute by up to a quarter, and turns spread the drift
    over every contender instead of favouring whichever ran in the fast minute."""
    best = {}
    for _ in range(repeat):
        for name, fn in runs:
            t = time.perf_counter()
            fn()
            dt = time.perf_counter() - t
            best[name] = min(best.get(name, dt), dt)
    return best


def bench_file(label, args, rpd):
    work = args.work
    con = sqlite3.connect(f"file:{rpd}?mode=ro", uri=True)
    ops, = con.execute("SELECT count(*) FROM rocpd_op").fetchone()
    apis, = con.execute("SELECT count(*) FROM rocpd_api").fetchone()
    first, last = con.execute("SELECT min(start), max(\"end\") FROM rocpd_api").fetchone()
    con.close()
    print(f"\n{label}: {rpd} ({mb(rpd):.1f} MB, {ops} ops, {apis} API calls)")
    print(f"{'run':44} {'upstream s':>10} {'ours s':>8} {'ratio':>7} {'upstream MB':>11} {'ours MB':>8}")
    up_out, our_out = os.path.join(work, "upstream.json"), os.path.join(work, "ours.json")
    gz_out, pf_out = os.path.join(work, "ours.json.gz"), os.path.join(work, "ours.pftrace")
    whole = interleaved(args.repeat, [
        ("upstream", lambda: upstream(args.upstream, rpd, up_out)),
        ("json", lambda: ours(args.ext, rpd, our_out)),
        # The member opened by rocpd_open instead: read on a private connection (no host mutex),
        # its profile computed beside the read of its API calls.
        ("open", lambda: ours(args.ext, rpd, our_out, opened=True)),
        ("gz", lambda: ours(args.ext, rpd, gz_out)),
        ("pftrace", lambda: ours(args.ext, rpd, pf_out)),
    ])
    t_up = whole["upstream"]
    rows = [("whole file -> .json", t_up, whole["json"], mb(up_out), mb(our_out)),
            ("whole file -> .json, rocpd_open", t_up, whole["open"], mb(up_out), mb(our_out)),
            ("whole file -> .json.gz (ours only)", t_up, whole["gz"], mb(up_out), mb(gz_out)),
            ("whole file -> .pftrace (ours only)", t_up, whole["pftrace"], mb(up_out), mb(pf_out))]
    # The middle 10 %: upstream takes percentages of its API span, we take the same ns bounds.
    # "warm": on a connection that already read the member once (profiles and zones are cached per
    # connection: a fresh connection pays one pass over the member first).
    lo, hi = first + (last - first) * 45 // 100, first + (last - first) * 55 // 100
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(args.ext)
    con.execute("ATTACH ? AS r", (f"file:{rpd}?mode=ro",))
    con.execute("SELECT count(*) FROM rocpd_members WHERE ops >= 0").fetchone()
    window = interleaved(args.repeat, [
        ("upstream", lambda: upstream(args.upstream, rpd, up_out, "45%", "55%")),
        ("cold", lambda: ours(args.ext, rpd, our_out, lo, hi)),
        ("warm", lambda: con.execute("SELECT rocpd_export_trace(?, ?, ?)", (our_out, lo, hi)).fetchone()),
    ])
    con.close()
    rows.append(("middle 10 % window -> .json", window["upstream"], window["cold"], mb(up_out), mb(our_out)))
    rows.append(("middle 10 % window, warm connection", window["upstream"], window["warm"], mb(up_out), mb(our_out)))
    for name, tu, to, su, so in rows:
        print(f"{name:44} {tu:10.3f} {to:8.3f} {tu / to:6.1f}x {su:11.1f} {so:8.1f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ext", required=True)
    p.add_argument("--gen", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--upstream")
    p.add_argument("--ops", type=int, default=200000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--real", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                                                  "data", "matmul_result.rpd"))
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if not args.upstream:
        args.upstream = os.path.join(args.work, "rpd2tracing.py")
        if not os.path.exists(args.upstream):
            r = subprocess.run(["curl", "-fsSL", "-o", args.upstream, UPSTREAM_URL])
            if r.returncode != 0:
                sys.exit(f"cannot download {UPSTREAM_URL}; pass --upstream PATH to a copy of tools/rpd2tracing.py")
    gen_dir = os.path.join(args.work, f"rpd2_{args.ops}")
    if not os.path.exists(os.path.join(gen_dir, "truth.json")):
        shutil.rmtree(gen_dir, ignore_errors=True)
        subprocess.run([args.gen, "--out", gen_dir, "--procs", "1", "--format", "rpd2", "--ops", str(args.ops),
                        "--seed", "5"], check=True, stdout=subprocess.DEVNULL)
    bench_file("generated", args, os.path.join(gen_dir, "rank0.rpd"))
    if os.path.exists(args.real):
        # A copy under --work: the upstream script opens it read-write.
        real = os.path.join(args.work, "real.rpd")
        shutil.copyfile(args.real, real)
        bench_file("real trace", args, real)


if __name__ == "__main__":
    main()
