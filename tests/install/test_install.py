"""`cmake --install BUILD --prefix P` gives a usable installation (docs/install.md).

The library is loaded from the prefix by the sqlite3 shell with the path the README documents,
`pkg-config --libs rocpd_ext` works with PKG_CONFIG_PATH, a CMake project finds the package, the
installed rocpd-ext and Python package find the installed library (also after the prefix moved).
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

EXT = os.environ.get("ROCPD_EXT", "")
BUILD = os.path.dirname(EXT)
SHELL = os.environ.get("ROCPD_SQLITE3", "sqlite3")
SOURCE = os.environ.get("ROCPD_SOURCE_DIR", "")
MIXED8 = os.path.join(os.environ.get("ROCPD_FIXTURES", ""), "sets", "mixed8")
PY_SITE = "lib/python{}.{}/dist-packages".format(*sys.version_info[:2])


def without_library_variable():
    return {k: v for k, v in os.environ.items() if k not in ("ROCPD_EXT_LIBRARY", "PYTHONPATH")}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prefix = os.path.join(cls.tmp.name, "prefix with space")
        run(["cmake", "--install", BUILD, "--prefix", cls.prefix])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_layout(self):
        p = self.prefix
        for rel in ["lib/librocpd_ext.so", "lib/.debug/librocpd_ext.so.debug", "lib/pkgconfig/rocpd_ext.pc",
                    "lib/cmake/rocpd_ext/rocpd_extConfig.cmake", "lib/cmake/rocpd_ext/rocpd_extConfigVersion.cmake",
                    "share/doc/rocpd_ext/README.md", "share/doc/rocpd_ext/docs/export.md",
                    "share/doc/rocpd_ext/docs/install.md", "share/rocpd_ext/sql/demo.sql",
                    "share/doc/rocpd_ext/docs/cli.md", "bin/rocpd-ext", "bin/.debug/rocpd-ext.debug",
                    f"{PY_SITE}/rocpd_ext/__init__.py", f"{PY_SITE}/rocpd_ext/_location.py",
                    f"{PY_SITE}/rocpd_ext/dask.py"]:
            self.assertTrue(os.path.isfile(os.path.join(p, rel)), rel)
        views = os.listdir(os.path.join(p, "share/rocpd_ext/sql/views"))
        self.assertEqual(sorted(views), sorted(f for f in os.listdir(os.path.join(SOURCE, "sql/views")) if f.endswith(".sql")))

    def test_library_is_stripped_with_debug_link(self):
        lib = os.path.join(self.prefix, "lib/librocpd_ext.so")
        sections = run(["readelf", "-S", "-W", lib])
        self.assertNotIn(".debug_info", sections)
        self.assertNotIn(".symtab", sections)
        self.assertIn(".gnu_debuglink", sections)
        self.assertIn(".debug_info", run(["readelf", "-S", "-W", os.path.join(self.prefix, "lib/.debug/librocpd_ext.so.debug")]))
        self.assertLess(os.path.getsize(lib), os.path.getsize(EXT + ".so"))

    def test_tool_is_stripped_with_debug_link(self):
        tool = os.path.join(self.prefix, "bin/rocpd-ext")
        sections = run(["readelf", "-S", "-W", tool])
        self.assertNotIn(".debug_info", sections)
        self.assertIn(".gnu_debuglink", sections)

    def tool_and_package_answer(self, prefix):
        # The tool finds <prefix>/lib/librocpd_ext.so through bin/../lib, the package through its
        # _location.py; neither is told where by ROCPD_EXT_LIBRARY.
        env = without_library_variable()
        out = run([os.path.join(prefix, "bin/rocpd-ext"), "query", MIXED8, "SELECT count(*) AS n FROM rocpd_members",
                   "--format", "csv"], env=env)
        self.assertEqual(out, "n\n8\n")
        env["PYTHONPATH"] = os.path.join(prefix, PY_SITE)
        code = ("import json, rocpd_ext\n"
                "con = rocpd_ext.connect()\n"
                f"con.execute('SELECT rocpd_open(?)', ({MIXED8!r},))\n"
                "print(json.dumps([rocpd_ext.__file__, rocpd_ext.library_path(),\n"
                "                  con.execute('SELECT count(*) FROM rocpd_ops').fetchone()[0]]))")
        package, library, ops = json.loads(run([sys.executable, "-c", code], env=env, cwd=self.tmp.name))
        self.assertEqual(os.path.realpath(package), os.path.realpath(os.path.join(prefix, PY_SITE, "rocpd_ext/__init__.py")))
        self.assertEqual(os.path.realpath(library), os.path.realpath(os.path.join(prefix, "lib/librocpd_ext.so")))
        self.assertEqual(ops, 16000)

    def test_tool_and_package_find_the_installed_library(self):
        self.tool_and_package_answer(self.prefix)

    def test_shell_loads_from_prefix(self):
        # The README's form: .load PREFIX/lib/librocpd_ext (no suffix, no entry point).
        out = run([SHELL, ":memory:", f".load '{self.prefix}/lib/librocpd_ext'",
                   "SELECT rocpd_version(), (SELECT count(*) FROM rocpd_members);"])
        self.assertEqual(out.strip(), "0.1.0|0")

    def test_pkg_config(self):
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(self.prefix, "lib/pkgconfig"))
        libs = shlex.split(run(["pkg-config", "--libs", "rocpd_ext"], env=env))
        self.assertIn("-lrocpd_ext", libs)
        libdir = [a[2:] for a in libs if a.startswith("-L")]
        self.assertEqual(len(libdir), 1)
        self.assertEqual(os.path.realpath(libdir[0]), os.path.realpath(os.path.join(self.prefix, "lib")))
        self.assertEqual(run(["pkg-config", "--modversion", "rocpd_ext"], env=env).strip(), "0.1.0")
        # pkg-config escapes spaces for the shell: one shell word.
        ext, = shlex.split(run(["pkg-config", "--variable=extension", "rocpd_ext"], env=env))
        out = run([SHELL, ":memory:", f".load '{ext}'", "SELECT rocpd_version();"])
        self.assertEqual(out.strip(), "0.1.0")

    def test_moved_prefix_still_works(self):
        moved = os.path.join(self.tmp.name, "moved")
        shutil.copytree(self.prefix, moved, symlinks=True)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(moved, "lib/pkgconfig"))
        # pkg-config escapes spaces for the shell: one shell word.
        ext, = shlex.split(run(["pkg-config", "--variable=extension", "rocpd_ext"], env=env))
        self.assertEqual(os.path.realpath(ext + ".so"), os.path.realpath(os.path.join(moved, "lib/librocpd_ext.so")))
        self.tool_and_package_answer(moved)

    @unittest.skipUnless(shutil.which("cmake"), "cmake absent")
    def test_find_package(self):
        src = os.path.join(self.tmp.name, "consumer")
        os.makedirs(src, exist_ok=True)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.20)\nproject(consumer NONE)\n"
                    "find_package(rocpd_ext 0.1 REQUIRED)\n"
                    "get_target_property(loc rocpd_ext::rocpd_ext IMPORTED_LOCATION)\n"
                    'message(STATUS "ROCPD_LOC=${loc}")\nmessage(STATUS "ROCPD_EXT=${rocpd_ext_EXTENSION}")\n'
                    'message(STATUS "ROCPD_SQL=${rocpd_ext_SQL_DIR}")\n')
        out = run(["cmake", "-S", src, "-B", os.path.join(src, "build"), f"-DCMAKE_PREFIX_PATH={self.prefix}"])
        got = dict(line.split("-- ", 1)[1].split("=", 1) for line in out.splitlines() if "-- ROCPD_" in line)
        self.assertEqual(os.path.realpath(got["ROCPD_LOC"]), os.path.realpath(os.path.join(self.prefix, "lib/librocpd_ext.so")))
        self.assertEqual(got["ROCPD_EXT"] + ".so", got["ROCPD_LOC"])
        self.assertTrue(os.path.isdir(got["ROCPD_SQL"]))


if __name__ == "__main__":
    if not EXT or not os.path.exists(EXT + ".so"):
        print(f"ROCPD_EXT not set or missing: {EXT!r}")
        sys.exit(1)
    unittest.main(verbosity=2)
