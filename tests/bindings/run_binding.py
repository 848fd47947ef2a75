#!/usr/bin/python3
"""Builds (when compiled) and runs one binding's example, and compares what it prints with the
busy table computed independently from the generator's truth.json.

usage: run_binding.py LANG        LANG: python pandas tcl perl ruby go go_pool rust node

Environment (set by tests/bindings/CMakeLists.txt):
  ROCPD_EXT            the extension library, path without suffix
  ROCPD_BINDINGS_JOB   the generated job (rocpd_gen output, truth.json inside)
  ROCPD_BINDINGS_WORK  this binding's directory in the build tree (Go cache, Cargo target, npm)
  ROCPD_TOOL_<NAME>    the interpreters and compilers found at configure time
  ROCPD_SHELL_PRELOAD  sanitizer runtimes (sanitizer builds): preloaded into the example only,
                       never into the compilers

Every binding must print exactly the expected text, so all bindings print identical text; each
one's output is kept in ROCPD_BINDINGS_WORK/output.txt.
"""
import difflib
import json
import math
import os
import shutil
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"run_binding.py: {name} is not set (run through CTest)")
    return value


def expected_table(job):
    """The busy table from truth.json: per file (db = file name without suffix) and gpu, the ops,
    the union of op intervals, the span and the sum of durations, all computed by the generator
    from its own model, never by the extension."""
    truth = json.loads((job / "truth.json").read_text())
    lines = ["db\tgpu\tops\tbusy_ns\tspan_ns\tsum_ns\tbusy_pct"]
    rows = []
    for f in truth["files"]:
        db = Path(f["file"]).name.split(".")[0]
        for g in f["gpus"]:
            span = g["last_ns"] - g["first_ns"]
            rows.append((db, g["gpu"], g["ops"], g["busy_ns"], span, g["sum_ns"], percent(g["busy_ns"], span)))
    rows.sort(key=lambda r: (r[0], r[1]))
    lines += ["\t".join(str(v) for v in r) for r in rows]
    return "\n".join(lines) + "\n"


def percent(busy, span):
    """100 * busy / span with one decimal, as SQL's printf('%.1f') prints it. An exact tie (a
    value ending in 5 at the second decimal) would let binary rounding go either way: refused
    rather than guessed (the fixture has none)."""
    exact = Fraction(100 * busy, span)
    if (exact * 20).denominator == 1 and (exact * 10).denominator != 1:
        sys.exit(f"run_binding.py: {float(exact)} is a rounding tie; choose another fixture seed")
    tenths = math.floor(exact * 10 + Fraction(1, 2))
    return f"{tenths // 10}.{tenths % 10}"


def run(cmd, *, extra_env=None, preload=False, cwd=None):
    """Runs cmd, returns its stdout; stderr passes through. preload: the sanitizer runtimes."""
    e = dict(os.environ, **(extra_env or {}))
    if preload and os.environ.get("ROCPD_SHELL_PRELOAD"):
        e["LD_PRELOAD"] = os.environ["ROCPD_SHELL_PRELOAD"]
    start = time.monotonic()
    p = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, env=e, cwd=cwd, text=True)
    print(f"[{time.monotonic() - start:5.1f} s] {' '.join(str(c) for c in cmd)}", file=sys.stderr)
    if p.returncode != 0:
        sys.stderr.write(p.stdout)
        sys.exit(f"run_binding.py: exit code {p.returncode}: {' '.join(str(c) for c in cmd)}")
    return p.stdout


def go_env(work):
    # GOPATH mode over Debian's Go sources: no module download, no network (GOPROXY=off). One
    # build cache for the example and its pool tests (Go's cache is safe for concurrent builds).
    return {"GO111MODULE": "off", "GOPATH": "/usr/share/gocode", "GOPROXY": "off", "GOFLAGS": "",
            "GOCACHE": str(work.parent / "gocache"), "GOTOOLCHAIN": "local"}


def build_rust(work):
    """Copies the crate into the build tree (Cargo writes Cargo.lock beside Cargo.toml) and builds
    it offline against Debian's crates: /usr/share/cargo/registry as a directory source that
    replaces crates.io, in a CARGO_HOME of its own (nothing written to ~/.cargo)."""
    project, home = work / "project", work / "cargo-home"
    shutil.copytree(HERE / "rust", project, dirs_exist_ok=True)  # copy2: mtimes kept, no rebuild
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "debian"\n'
        '[source.debian]\ndirectory = "/usr/share/cargo/registry"\n'
        '[net]\noffline = true\n')
    run([env("ROCPD_TOOL_CARGO"), "build", "--offline", "--quiet", "--manifest-path", project / "Cargo.toml"],
        extra_env={"CARGO_HOME": str(home), "CARGO_TARGET_DIR": str(work / "target"),
                   "RUSTC": env("ROCPD_TOOL_RUSTC")})
    return work / "target" / "debug" / "rocpd-busy"


def build_node(work):
    """better-sqlite3 from the npm registry, compiled from source against the installed Node's
    headers (/usr/include/node: node-gyp downloads nothing)."""
    if not (work / "node_modules" / "better-sqlite3").is_dir():
        work.mkdir(parents=True, exist_ok=True)
        run([env("ROCPD_TOOL_NPM"), "install", "--no-save", "--no-audit", "--no-fund", "--prefix", work,
             "better-sqlite3@11"],
            extra_env={"npm_config_build_from_source": "true", "npm_config_nodedir": "/usr"})
    return {"NODE_PATH": str(work / "node_modules")}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lang = sys.argv[1]
    ext, job, work = env("ROCPD_EXT"), Path(env("ROCPD_BINDINGS_JOB")), Path(env("ROCPD_BINDINGS_WORK"))
    work.mkdir(parents=True, exist_ok=True)
    args = [ext, job]
    scripts = {"python": ("PYTHON", "python/busy.py"), "pandas": ("PYTHON", "pandas/busy.py"),
               "tcl": ("TCLSH", "tcl/busy.tcl"), "perl": ("PERL", "perl/busy.pl"),
               "ruby": ("RUBY", "ruby/busy.rb")}
    extra = {}
    if lang in scripts:
        tool, script = scripts[lang]
        cmd = [env(f"ROCPD_TOOL_{tool}"), HERE / script, *args]
    elif lang == "go":
        run([env("ROCPD_TOOL_GO"), "build", "-o", work / "busy", "busy.go"], extra_env=go_env(work), cwd=HERE / "go")
        cmd = [work / "busy", *args]
    elif lang == "go_pool":
        # The pool tests of busy_test.go: no table to compare, their own verdict.
        run([env("ROCPD_TOOL_GO"), "test", "-c", "-vet=off", "-o", work / "busy.test", "."],
            extra_env=go_env(work), cwd=HERE / "go")
        sys.stdout.write(run([work / "busy.test", "-test.v", "-test.count=1"], preload=True,
                             extra_env={"ROCPD_EXT": ext, "ROCPD_BINDINGS_JOB": str(job)}))
        return
    elif lang == "rust":
        cmd = [build_rust(work), *args]
    elif lang == "node":
        extra = build_node(work)
        cmd = [env("ROCPD_TOOL_NODE"), HERE / "node" / "busy.js", *args]
    else:
        sys.exit(f"run_binding.py: unknown binding '{lang}'")

    got = run(cmd, preload=True, extra_env=extra)
    (work / "output.txt").write_text(got)
    want = expected_table(job)
    if got != want:
        sys.stderr.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                   "expected (truth.json)", f"{lang} printed"))
        sys.exit(f"FAIL: the {lang} binding's busy table differs from truth.json")
    sys.stdout.write(got)
    print(f"OK: the {lang} binding printed the expected busy table ({len(got.splitlines()) - 1} rows)")


if __name__ == "__main__":
    main()
