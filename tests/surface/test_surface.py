"""The exact SQL surface the extension registers: every function (with arity and safety flags),
every module and every TEMP view. A name added, removed or made unsafe must change this file."""
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import connect, main  # noqa: E402

DIRECTONLY = 0x080000
INNOCUOUS = 0x200000
DETERMINISTIC = 0x000800

PURE = "pure"      # SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC
FILES = "direct"   # SQLITE_DIRECTONLY: touches files or connection state

EXPECTED_FUNCTIONS = {
    ("demangle", 1, PURE), ("kernel_short_name", 1, PURE), ("rocpd_display_name", 1, PURE),
    ("rocpd_duration_text", 1, PURE),
    ("rocpd_version", 0, PURE), ("rocpd_build_info", 0, PURE),
    ("interval_union", 2, PURE), ("interval_union", 4, PURE),
    ("time_bucket", 2, PURE), ("time_bucket", 3, PURE),
    ("median", 1, PURE), ("percentile", 2, PURE), ("stddev", 1, PURE),
    ("histogram", 2, PURE), ("histogram", 3, PURE), ("histogram_log2", 1, PURE),
    ("rocpd_stats_state", 1, PURE), ("rocpd_stats_merge", 1, PURE), ("rocpd_stats_get", 2, PURE),
    ("rocpd_values_percentile", 2, PURE),
    ("interval_union_state", 2, PURE), ("interval_union_merge", 1, PURE), ("interval_union_length", 1, PURE),
    ("rocpd_open", 1, FILES), ("rocpd_open", 2, FILES), ("rocpd_set_run", 2, FILES), ("rocpd_close", 0, FILES), ("rocpd_close", 1, FILES),
    ("rocpd_last_scan", 0, FILES), ("rocpd_import", 2, FILES), ("rocpd_cache_clear", 0, FILES),
    ("rocpd_clock_offset", 1, FILES), ("rocpd_clock_offset", 2, FILES), ("rocpd_align", 1, FILES),
    ("rocpd_align", 2, FILES), ("rocpd_align", 3, FILES),
    ("rocpd_progress", 0, FILES), ("rocpd_progress", 1, FILES),
    ("rocpd_job_start", 0, FILES), ("rocpd_rel", 1, FILES),
    ("rocpd_step_pattern", 0, FILES), ("rocpd_step_pattern", 1, FILES),
    ("rocpd_require_members", 1, FILES), ("rocpd_sql_rewrite", 1, FILES), ("rocpd_sql_pushdown", 1, FILES),
    ("rocpd_query", 1, FILES),
    ("rocpd_export_trace", 1, FILES), ("rocpd_export_trace", 2, FILES), ("rocpd_export_trace", 3, FILES),
    ("rocpd_export_trace", 4, FILES),
    ("rocpd_export_split", 2, FILES), ("rocpd_export_split", 3, FILES), ("rocpd_export_split", 4, FILES),
    ("rocpd_export_split", 5, FILES),
    ("rocpd_compress", 2, FILES), ("rocpd_compress", 3, FILES), ("rocpd_compress", 4, FILES),
    ("rocpd_zstd_verify", 1, FILES), ("rocpd_zstd_verify", 2, FILES), ("rocpd_zstd_last_error", 0, FILES),
    ("rocpd_zstd_plain_limit", 0, FILES), ("rocpd_zstd_plain_limit", 1, FILES),
    ("rocpd_zstd_cache_limit", 0, FILES), ("rocpd_zstd_cache_limit", 1, FILES), ("rocpd_zstd_cache_stats", 0, FILES),
}
EXPECTED_MODULES = {"rocpd_members", "rocpd_ops", "rocpd_apis", "rocpd_union", "rocpd_busy_intervals", "rocpd_gaps",
                    "rocpd_utilization", "rocpd_kernels", "rocpd_copies", "rocpd_memory", "rocpd_counters",
                    "rocpd_hip_events", "rocpd_op_groups", "rocpd_api_groups", "rocpd_kernel_stacks",
                    "rocpd_idle_breakdown", "rocpd_launch_stats", "rocpd_op_launches", "rocpd_launch_delay_groups", "rocpd_gap_groups",
                    "rocpd_gpu_screen",
                    "rocpd_queue_steps",
                    "rocpd_comm_classes",
                    "rocpd_skipped", "rocpd_sequence_groups", "rocpd_op_counters", "rocpd_launch_groups",
                    "rocpd_collectives", "rocpd_steps", "rocpd_time_breakdown", "rocpd_critical_path", "rocpd_what_if",
                    "rocpd_sql"}
EXPECTED_VIEWS = {"rocpd_busy", "rocpd_check", "rocpd_kernel_summary", "rocpd_kernel_summary_by_db",
                  "rocpd_copy_summary", "rocpd_op_summary", "rocpd_gpu_summary", "rocpd_launch_latency",
                  "rocpd_rank_imbalance", "rocpd_rank_summary", "rocpd_kernel_histogram", "rocpd_comm_overlap",
                  "rocpd_ranges", "rocpd_runs", "rocpd_run_kernels", "rocpd_run_compare", "rocpd_kernel_counters",
                  "rocpd_queue_depth", "rocpd_kernel_sequences",
                  "rocpd_kernel_summary_full", "rocpd_kernel_summary_by_db_full", "rocpd_op_summary_full",
                  "rocpd_launch_latency_full", "rocpd_rank_imbalance_full", "rocpd_kernel_histogram_full",
                  "rocpd_run_kernels_full", "rocpd_run_compare_full", "rocpd_run_steps", "rocpd_kernel_counters_full",
                  "rocpd_stragglers",
                  "rocpd_step_summary", "rocpd_critical_path_summary", "rocpd_anomalies", "rocpd_findings",
                  "rocpd_user_findings",
                  "rocpd_device_peaks_builtin", "rocpd_device_peaks", "rocpd_device_signatures", "rocpd_gpu_devices",
                  "rocpd_counter_formulas_builtin", "rocpd_counter_formulas", "rocpd_kernel_roofline",
                  "rocpd_kernel_roofline_by_kernel", "rocpd_gemm_roofline", "rocpd_operator_roofline"}
# Plain TEMP tables the extension creates (run labels: docs/diagnosis.md; the user tables of docs/roofline.md).
EXPECTED_TEMP_TABLES = {"rocpd_run_labels", "rocpd_user_device_peaks", "rocpd_user_counter_formulas"}
# Names the upstream formats use in their own files (schema/*.sql): a TEMP object of ours with one of
# these names would shadow a member's own table or view.
UPSTREAM_NAMES = {"top", "busy", "ktop", "api", "op", "kernel", "copy", "copyop", "kernels", "memory_copies",
                  "regions", "samples", "top_kernels", "rocpd_op", "rocpd_api", "rocpd_string", "rocpd_metadata",
                  "rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_region", "rocpd_event", "rocpd_info_agent"}


def surface(con):
    funcs = set(con.execute("SELECT name, narg, flags FROM pragma_function_list"))
    mods = {r[0] for r in con.execute("SELECT name FROM pragma_module_list")}
    views = {r[0] for r in con.execute("SELECT name FROM temp.sqlite_master WHERE type = 'view'")}
    return funcs, mods, views


def temp_tables(con):
    return {r[0] for r in con.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table' "
                                      "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")}


def kind(flags):
    if flags & DIRECTONLY:
        return FILES
    if flags & INNOCUOUS and flags & DETERMINISTIC:
        return PURE
    return f"flags={flags:#x}"


class Surface(unittest.TestCase):
    def test_exact_surface(self):
        f0, m0, v0 = surface(sqlite3.connect(":memory:"))
        f1, m1, v1 = surface(connect())
        ours = {(name, narg, kind(flags)) for name, narg, flags in f1 - f0}
        self.assertEqual(ours, EXPECTED_FUNCTIONS)
        self.assertEqual(m1 - m0, EXPECTED_MODULES)
        self.assertEqual(v1 - v0, EXPECTED_VIEWS)

    def test_user_temp_tables(self):
        self.assertEqual(temp_tables(connect()) - temp_tables(sqlite3.connect(":memory:")), EXPECTED_TEMP_TABLES)

    def test_no_shadowing_of_upstream_names(self):
        self.assertFalse(EXPECTED_VIEWS & UPSTREAM_NAMES)
        self.assertFalse(EXPECTED_MODULES & UPSTREAM_NAMES)
        schema_dir = os.path.join(os.environ["ROCPD_SOURCE_DIR"], "schema")
        text = ""
        for f in sorted(os.listdir(schema_dir)):
            if f.endswith(".sql"):
                with open(os.path.join(schema_dir, f)) as fh:
                    text += fh.read()
        for name in EXPECTED_VIEWS | EXPECTED_MODULES:
            for quote in ('"', "`", " "):
                self.assertNotIn(f"VIEW IF NOT EXISTS {quote}{name}{quote}", text)
                self.assertNotIn(f"TABLE IF NOT EXISTS {quote}{name}{quote}", text)

    def test_runtime_dependencies(self):
        # LLVM's demangler is linked statically and fmt is header-only: a user needs nothing but
        # the C/C++ runtimes and libzstd.
        import subprocess
        out = subprocess.run(["readelf", "-d", os.environ["ROCPD_EXT"] + ".so"], check=True, capture_output=True,
                             text=True).stdout
        needed = {line.split("[")[1].split("]")[0] for line in out.splitlines() if "(NEEDED)" in line}
        allowed = {"libzstd.so.1", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6", "ld-linux-x86-64.so.2"}
        # A sanitizer build (CI's ASan and TSan passes) links the sanitizer runtimes as well.
        needed = {n for n in needed if not n.startswith(("libasan.so", "libubsan.so", "libtsan.so"))}
        self.assertTrue(needed <= allowed, needed - allowed)

    def test_exported_symbols(self):
        # ext/exports.map: the dynamic symbol table defines the entry point and nothing else (no weak
        # STL instantiation another library could interpose), and no STB_GNU_UNIQUE symbol (glibc
        # never unloads a library that has one).
        import subprocess
        out = subprocess.run(["readelf", "--dyn-syms", "-W", os.environ["ROCPD_EXT"] + ".so"], check=True,
                             capture_output=True, text=True).stdout
        rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0][:-1].isdigit()]
        defined = {(r[4], r[7]) for r in rows if len(r) >= 8 and r[6] != "UND"}
        self.assertEqual(defined, {("GLOBAL", "sqlite3_rocpdext_init")})
        self.assertEqual([r for r in rows if r[4] == "UNIQUE"], [])

    def test_library_outlives_the_connection_that_loaded_it(self):
        # SQLite dlclose()s an extension when the connection that loaded it closes, but the rocpd_zstd
        # VFS stays registered process-wide and points into the library: the library pins itself
        # (zstd_vfs.cpp, dlopen RTLD_NODELETE). After the loading connection is closed, the library
        # must still be mapped, a new connection that never loaded it must read through the VFS, and
        # the process must exit cleanly - in Python and in the sqlite3 shell.
        import subprocess
        import tempfile
        ext = os.environ["ROCPD_EXT"]
        with tempfile.TemporaryDirectory() as tmp:
            plain, packed = os.path.join(tmp, "plain.db"), os.path.join(tmp, "packed.db.zst")
            src = sqlite3.connect(plain)
            src.execute("CREATE TABLE t(x)")
            src.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
            src.commit()
            src.close()
            script = f"""
import sqlite3
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension({ext!r})
con.execute("SELECT rocpd_compress(?, ?)", ({plain!r}, {packed!r})).fetchone()
con.close()
del con
print("mapped" if {ext + '.so'!r} in open("/proc/self/maps").read() else "unmapped")
other = sqlite3.connect("file:{packed}?vfs=rocpd_zstd&mode=ro", uri=True)
print(other.execute("SELECT count(*), sum(x) FROM t").fetchone())
other.close()
"""
            run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
            self.assertEqual((run.returncode, run.stdout, run.stderr), (0, "mapped\n(1000, 499500)\n", ""))
            shell = os.path.join(os.environ["ROCPD_SQLITE_DIR"], "sqlite3") if os.environ.get("ROCPD_SQLITE_DIR") \
                else os.environ["ROCPD_SQLITE3"]
            run = subprocess.run([shell, "-bail", "-batch", "-cmd", f".load {ext}", ":memory:",
                                  "SELECT rocpd_version() IS NOT NULL;",
                                  ".open :memory:",
                                  f".open file:{packed}?vfs=rocpd_zstd&mode=ro",
                                  "SELECT count(*), sum(x) FROM t;"], capture_output=True, text=True, timeout=120)
            self.assertEqual((run.returncode, run.stdout, run.stderr), (0, "1\n1000|499500\n", ""))

    def test_sqlite_version_asked_for(self):
        # tests/sqlite_current/run_tests.sh runs the suite against another SQLite and sets
        # ROCPD_SQLITE_VERSION: a silent fallback to Debian's library must fail here. Otherwise Python
        # and the shell the SQL tests use must run the same SQLite.
        import subprocess
        print(f"sqlite3.sqlite_version {sqlite3.sqlite_version}", file=sys.stderr)
        shell = os.path.join(os.environ["ROCPD_SQLITE_DIR"], "sqlite3") if os.environ.get("ROCPD_SQLITE_DIR") \
            else os.environ["ROCPD_SQLITE3"]
        shell_version = subprocess.run([shell, ":memory:", "SELECT sqlite_version()"], check=True, capture_output=True,
                                       text=True).stdout.strip()
        want = os.environ.get("ROCPD_SQLITE_VERSION") or shell_version
        self.assertEqual((sqlite3.sqlite_version, shell_version), (want, want))
        self.assertEqual(connect().execute("SELECT sqlite_version()").fetchone()[0], want)

    def test_loading_twice_is_harmless(self):
        con = connect()
        con.enable_load_extension(True)
        con.load_extension(os.environ["ROCPD_EXT"])
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT demangle('_Z3foov')").fetchone()[0], "foo()")

    def test_a_second_copy_is_refused_and_the_first_keeps_working(self):
        # Issue 31 item 1: another file of the library (the installed one and a build's) loaded on a
        # connection that has the first once replaced the first's functions, failed at its views, was
        # unloaded by SQLite, and the next call jumped into unmapped code. Each run in a child process
        # (a crash must fail this test, not end it).
        import shutil
        import subprocess
        import tempfile
        ext = os.environ["ROCPD_EXT"]
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "librocpd_ext")
            shutil.copy(ext + ".so", copy + ".so")
            script = f"""
import sqlite3
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension({ext!r})
try:
    con.load_extension({copy!r})
    print("loaded")
except sqlite3.OperationalError as e:
    print(e)
print(con.execute("SELECT demangle('_Z3foov'), rocpd_version() IS NOT NULL, count(*) FROM rocpd_members").fetchone())
print(con.execute("SELECT count(*) FROM rocpd_ops").fetchone())
"""
            run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
            self.assertEqual((run.returncode, run.stderr), (0, ""), run.stdout)
            lines = run.stdout.splitlines()
            self.assertIn(f"cannot load {copy}.so: another copy of rocpd_ext", lines[0])
            self.assertIn("the loaded one keeps working", lines[0])
            self.assertEqual(lines[1:], ["('foo()', 1, 0)", "(0,)"])
            shell = os.path.join(os.environ["ROCPD_SQLITE_DIR"], "sqlite3") if os.environ.get("ROCPD_SQLITE_DIR") \
                else os.environ["ROCPD_SQLITE3"]
            run = subprocess.run([shell, "-batch", ":memory:"], input=f".load {ext}\n.load {copy}\n"
                                 "SELECT demangle('_Z3foov');\nSELECT count(*) FROM rocpd_members;\n",
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual((run.returncode, run.stdout), (1, "foo()\n0\n"), run.stderr)
            self.assertIn("another copy of rocpd_ext", run.stderr)

    def test_loading_through_sql_once_and_twice(self):
        # SELECT load_extension(...) loads while its own statement runs: SQLite then refuses to
        # replace a collation, which a second registration of rocpd_natural once tried.
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        for _ in range(2):
            con.execute("SELECT load_extension(?)", (os.environ["ROCPD_EXT"],)).fetchall()
        self.assertEqual(con.execute("SELECT 'rank10' < 'rank2' COLLATE rocpd_natural").fetchone(), (0,))
        with self.assertRaises(sqlite3.OperationalError) as cm:
            con.execute("SELECT * FROM rocpd_busy").fetchall()
        self.assertIn("rocpd_open", str(cm.exception))


if __name__ == "__main__":
    main()
