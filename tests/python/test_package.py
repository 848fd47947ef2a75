"""rocpd_ext's loader: ROCPD_EXT_LIBRARY wins and is checked, the search list is reported, a
renamed copy of the library loads, and every connection loads on its own."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, PACKAGE_DIR)

import rocpd_ext  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SETS, main  # noqa: E402

LIB = os.environ["ROCPD_EXT_LIBRARY"]


class Loader(unittest.TestCase):
    def test_environment_variable_is_used(self):
        self.assertEqual(rocpd_ext.library_path(), os.path.abspath(LIB))
        con = rocpd_ext.connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "same_rpd2"),)).fetchone(), (4,))

    def test_missing_file_in_the_variable_is_an_error(self):
        old = os.environ[rocpd_ext.ENV]
        os.environ[rocpd_ext.ENV] = "/nonexistent/librocpd_ext.so"
        try:
            with self.assertRaises(rocpd_ext.LibraryNotFound) as cm:
                rocpd_ext.library_path()
            self.assertIn("ROCPD_EXT_LIBRARY='/nonexistent/librocpd_ext.so': no such file", str(cm.exception))
        finally:
            os.environ[rocpd_ext.ENV] = old

    def test_search_without_the_variable(self):
        # In a child without the variable: the source tree's build/ is searched (candidates lists it),
        # and when nothing is found the error names every place looked at.
        code = ("import rocpd_ext, sys\n"
                "try:\n"
                "    print(rocpd_ext.library_path())\n"
                "except rocpd_ext.LibraryNotFound as e:\n"
                "    print('ERR', e)\n")
        env = {k: v for k, v in os.environ.items() if k != "ROCPD_EXT_LIBRARY"}
        env["PYTHONPATH"] = PACKAGE_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        cands = rocpd_ext.candidates()
        if out.startswith("ERR"):
            for c in cands:
                self.assertIn(c, out)
        else:
            self.assertIn(out.strip(), cands)

    def test_renamed_copy_loads(self):
        tmp = tempfile.mkdtemp(prefix="rocpd_pkg_")
        try:
            other = os.path.join(tmp, "rocpd_renamed.so")
            shutil.copy(LIB, other)
            old = os.environ[rocpd_ext.ENV]
            os.environ[rocpd_ext.ENV] = other
            try:
                con = rocpd_ext.connect()
                self.assertEqual(con.execute("SELECT demangle('_Z3foov')").fetchone(), ("foo()",))
            finally:
                os.environ[rocpd_ext.ENV] = old
        finally:
            shutil.rmtree(tmp)

    def test_each_connection_loads_its_own(self):
        import sqlite3
        a = rocpd_ext.connect()
        b = sqlite3.connect(":memory:")
        self.assertEqual(a.execute("SELECT demangle('_Z3foov')").fetchone(), ("foo()",))
        with self.assertRaises(sqlite3.OperationalError):
            b.execute("SELECT demangle('_Z3foov')")
        rocpd_ext.load(b)
        self.assertEqual(b.execute("SELECT demangle('_Z3foov')").fetchone(), ("foo()",))
        # Extension loading is switched off again after loading.
        with self.assertRaises(sqlite3.OperationalError):
            b.execute("SELECT load_extension('x')")


if __name__ == "__main__":
    main()
