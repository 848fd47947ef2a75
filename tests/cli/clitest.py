"""Helpers of the rocpd-ext tests: the tool, a generated job, the extension for comparisons."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

EXT = os.environ.get("ROCPD_EXT", "")
GEN = os.environ.get("ROCPD_GEN", "")
CLI = os.environ.get("ROCPD_CLI") or os.path.join(os.path.dirname(EXT), "rocpd-ext")


def require():
    for what, path in (("ROCPD_EXT", EXT + ".so"), ("ROCPD_GEN", GEN), ("ROCPD_CLI", CLI)):
        if not path or not os.path.exists(path):
            print(f"{what} not set or missing: {path!r}")
            sys.exit(1)


def run(*args, env=None, check=True):
    """rocpd-ext ARGS: (stdout, stderr, exit status)."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True, env=env, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"rocpd-ext {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p.stdout, p.stderr, p.returncode


def demo_job():
    """The README's demo job (rocpd_gen --procs 8 --format mixed --ops 20000 --seed 42) in a
    temporary directory: (its path, truth.json, the TemporaryDirectory to keep alive)."""
    tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_")
    out = os.path.join(tmp.name, "demo")
    subprocess.run([GEN, "--out", out, "--procs", "8", "--format", "mixed", "--ops", "20000", "--seed", "42"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "truth.json")) as f:
        return out, json.load(f), tmp


def fixture_set(name="mixed8"):
    """A set of tests/make_fixtures.sh (read in place, never written): (its path, truth.json)."""
    path = os.path.join(os.environ.get("ROCPD_FIXTURES", ""), "sets", name)
    with open(os.path.join(path, "truth.json")) as f:
        return path, json.load(f)


def connect(*paths):
    """Python's sqlite3 with the extension and `paths` opened (the views' own answers)."""
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.enable_load_extension(False)
    for p in paths:
        con.execute("SELECT rocpd_open(?)", (p,)).fetchall()
    return con


def kineto_trace(path, device="NVIDIA A100-SXM4-80GB", world_size=None, rank=0, start_us=1_000_000.0, kernels=3,
                 annotation=False, input_types=None):
    """A small PyTorch profiler (Kineto) trace written by hand: `kernels` launches (cudaLaunchKernel
    then its kernel, 5 us each, 10 us apart) on GPU 0 from `start_us`; a ProfilerStep
    gpu_user_annotation over them when `annotation` (a GPU-side event, no API call); with
    `input_types` {operator: [types]}, one cpu_op per operator recording them (record_shapes)."""
    events = []
    for j, (op, types) in enumerate((input_types or {}).items()):
        events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 100, "tid": 100, "ts": start_us - 50.0 + j,
                       "dur": 0.5, "args": {"Input Dims": [[4, 4]] * len(types), "Input type": types}})
    for i in range(kernels):
        t = start_us + 10.0 * i
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                       "ts": t, "dur": 2.0, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": f"gemm_{i % 2}", "pid": 0, "tid": 7, "ts": t + 3.0,
                       "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    if annotation and kernels:
        events.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7,
                       "ts": start_us + 3.0, "dur": 10.0 * kernels, "args": {"device": 0}})
    if not kernels:
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGetDevice", "pid": 100, "tid": 100,
                       "ts": start_us, "dur": 1.0, "args": {"correlation": 1}})
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": device}], "traceEvents": events}
    if world_size is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world_size}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def peak_rss_kb(args):
    """Runs rocpd-ext ARGS with stdout discarded: (exit status, its peak RSS in kB)."""
    p = subprocess.Popen([CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stderr.close()
    return p.returncode, usage.ru_maxrss
