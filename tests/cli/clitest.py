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
