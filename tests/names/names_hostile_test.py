"""names: hostile kernel names reaching demangle/kernel_short_name the three ways a trace user
meets them: a direct call, a kernel name of a trace read through the rocpd_kernel_summary view, and
a view stored in an untrusted database file (the functions are SQLITE_INNOCUOUS, so such a view
may call them). Every query runs in a child interpreter, so a crash is reported as a failure of
the case that caused it instead of killing the whole test file.

Expected values come from llvm-cxxfilt-19 ('lambda'() for _ZUlvE_), the documented short-name
rules ({lambda#1}: the first lambda in GNU's numbering) and plain SQLite on the trace file."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import unittest

EXT = os.environ.get("ROCPD_EXT", "")
GEN = os.environ.get("ROCPD_GEN", "")
# The closure type of a lambda: its empty parameter list was a zero-size allocation that made
# the demangler's arena return a pointer into a block that did not exist (segfault).
CLOSURE = "_ZUlvE_"
CLOSURE_DEMANGLED = "'lambda'()"
CLOSURE_SHORT = "{lambda#1}"


def run_child(body, **params):
    """Runs `body` (Python, with `con` connected and the extension loaded) in a child process
    and returns what it assigned to `result`, or fails with the child's exit status."""
    program = textwrap.dedent("""
        import json, sqlite3, sys
        params = json.loads(sys.argv[1])
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        con.load_extension(params["ext"])
        con.enable_load_extension(False)
        result = None
    """) + textwrap.dedent(body) + "\nprint(json.dumps(result))\n"
    proc = subprocess.run([sys.executable, "-c", program, json.dumps(dict(params, ext=EXT))],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"child exited with {proc.returncode} (negative: killed by that signal)\n"
                             f"stderr: {proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


class DirectCalls(unittest.TestCase):
    def test_closure_type_with_empty_parameters(self):
        got = run_child("""
            result = con.execute("SELECT demangle(?), kernel_short_name(?)", (params["name"],) * 2).fetchone()
        """, name=CLOSURE)
        self.assertEqual(got, [CLOSURE_DEMANGLED, CLOSURE_SHORT])

    def test_other_empty_node_arrays(self):
        # Names whose parse also makes an empty node array; expected texts from llvm-cxxfilt-19.
        cases = {"_ZUlvE0_": "'lambda0'()", "_ZN1AUlvE_E": "A::'lambda'()",
                 "_ZZ1fvENKUlvE_clEv": "f()::'lambda'()::operator()() const", "_ZUliE_": "'lambda'(int)"}
        got = run_child("""
            result = {n: con.execute("SELECT demangle(?)", (n,)).fetchone()[0] for n in params["names"]}
        """, names=list(cases))
        self.assertEqual(got, cases)


class KernelSummaryOfATrace(unittest.TestCase):
    def test_kernel_named_by_a_closure_type(self):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([GEN, "--out", tmp, "--procs", "1", "--format", "rpd3", "--ops", "40", "--seed", "8"],
                           check=True, stdout=subprocess.DEVNULL)
            path = os.path.join(tmp, "rank0.rpd")
            # Give three kernel ops the closure's name, with plain SQLite (no extension).
            raw = sqlite3.connect(path)
            raw.execute("INSERT INTO rocpd_string(string) VALUES (?)", (CLOSURE,))
            name_id = raw.execute("SELECT id FROM rocpd_string WHERE string = ?", (CLOSURE,)).fetchone()[0]
            ops = [r[0] for r in raw.execute("""
                SELECT o.id FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
                WHERE t.string = 'KernelExecution' ORDER BY o.id LIMIT 3""")]
            self.assertEqual(len(ops), 3)
            raw.execute(f"UPDATE rocpd_op SET description_id = ? WHERE id IN ({','.join('?' * len(ops))})",
                        (name_id, *ops))
            raw.commit()
            total = raw.execute(f"SELECT sum(\"end\" - start) FROM rocpd_op WHERE id IN ({','.join('?' * len(ops))})",
                                ops).fetchone()[0]
            raw.close()
            got = run_child("""
                con.execute("ATTACH ? AS r0", (params["path"],))
                con.row_factory = sqlite3.Row
                rows = [dict(r) for r in con.execute("SELECT * FROM rocpd_kernel_summary_full")]
                result = [r for r in rows if r["name"] == params["name"]]
            """, path=path, name=CLOSURE)
        self.assertEqual(len(got), 1)
        self.assertEqual((got[0]["demangled"], got[0]["short_name"], got[0]["instances"], got[0]["total_ns"]),
                         (CLOSURE_DEMANGLED, CLOSURE_SHORT, 3, total))


class UntrustedDatabaseView(unittest.TestCase):
    def test_attached_view_calling_demangle(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "hostile")
            raw = sqlite3.connect(path)  # no extension: the view is stored, not checked
            raw.execute(f"CREATE VIEW v AS SELECT demangle('{CLOSURE}') AS d, kernel_short_name('{CLOSURE}') AS s")
            raw.commit()
            raw.close()
            got = run_child("""
                con.execute("PRAGMA trusted_schema = OFF")
                con.execute("ATTACH ? AS h", (params["path"],))
                result = con.execute("SELECT d, s FROM h.v").fetchone()
            """, path=path)
        self.assertEqual(got, [CLOSURE_DEMANGLED, CLOSURE_SHORT])


if __name__ == "__main__":
    if not EXT or not os.path.exists(EXT + ".so") or not GEN:
        print(f"ROCPD_EXT / ROCPD_GEN not set or missing: {EXT!r} {GEN!r}")
        sys.exit(1)
    unittest.main(verbosity=2)
