"""`pip install` of the package, offline, as docs/python.md says: into a venv of Debian's python3
that sees the system's packages (setuptools, wheel, pandas, APSW), with --no-build-isolation (an
isolated build would download setuptools). The package is copied with an empty build/ beside it
holding a link to the library, as in a checkout: the installed package finds that library with no
ROCPD_EXT_LIBRARY, and answers a query from a directory outside the sources."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SRC = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SETS, main  # noqa: E402

LIB = os.environ["ROCPD_EXT_LIBRARY"]
MIXED8 = os.path.join(SETS, "mixed8")


def clean_env():
    # PIP_NO_INDEX: a download attempt fails at once instead of passing unnoticed where a network is.
    env = {k: v for k, v in os.environ.items() if k not in ("ROCPD_EXT_LIBRARY", "PYTHONPATH", "PYTHONHOME")}
    env["PIP_NO_INDEX"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


class PipInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="rocpd_pip_")
        checkout = os.path.join(cls.tmp.name, "checkout")
        shutil.copytree(PACKAGE_SRC, os.path.join(checkout, "python"),
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        os.makedirs(os.path.join(checkout, "build"))
        cls.lib = os.path.join(checkout, "build", "librocpd_ext.so")
        os.symlink(os.path.abspath(LIB), cls.lib)
        cls.venv = os.path.join(cls.tmp.name, "v")
        env = clean_env()
        p = subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", cls.venv],
                           capture_output=True, text=True, env=env, timeout=300)
        if p.returncode != 0:
            raise unittest.SkipTest(f"python3 -m venv failed (apt-get install python3-venv): {p.stderr.strip()}")
        cls.pip = subprocess.run([os.path.join(cls.venv, "bin", "pip"), "install", "--no-build-isolation",
                                  os.path.join(checkout, "python")], capture_output=True, text=True, env=env,
                                 cwd=cls.tmp.name, timeout=300)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def python(self, code):
        p = subprocess.run([os.path.join(self.venv, "bin", "python"), "-c", code], capture_output=True, text=True,
                           env=clean_env(), cwd=self.tmp.name, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_installs_offline(self):
        self.assertEqual(self.pip.returncode, 0, self.pip.stdout + self.pip.stderr)
        self.assertIn("Successfully installed rocpd_ext-0.1.0", self.pip.stdout.replace("rocpd-ext", "rocpd_ext"))

    def test_installed_package_finds_the_build_tree_and_answers(self):
        got = json.loads(self.python(
            "import json, rocpd_ext\n"
            "con = rocpd_ext.connect()\n"
            f"n = con.execute('SELECT rocpd_open(?)', ({MIXED8!r},)).fetchone()[0]\n"
            "ops = con.execute('SELECT count(*) FROM rocpd_ops').fetchone()[0]\n"
            "print(json.dumps([rocpd_ext.__file__, rocpd_ext.library_path(), n, ops]))"))
        self.assertTrue(got[0].startswith(os.path.join(self.venv, "lib")), got[0])
        self.assertEqual(got[1], self.lib)
        with open(os.path.join(MIXED8, "truth.json")) as f:
            truth = json.load(f)
        self.assertEqual(got[2:], [len(truth["files"]), truth["job"]["ops"]])

    def test_read_sql_and_the_dask_command(self):
        out = self.python("import rocpd_ext\n"
                          f"df = rocpd_ext.read_sql('SELECT db, ops FROM rocpd_members', {MIXED8!r})\n"
                          "print(type(df).__name__, len(df), int(df['ops'].sum()))")
        self.assertEqual(out.split(), ["DataFrame", "8", "16000"])
        p = subprocess.run([os.path.join(self.venv, "bin", "python"), "-m", "rocpd_ext.dask", "--help"],
                           capture_output=True, text=True, env=clean_env(), cwd=self.tmp.name, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("usage: python3 -m rocpd_ext.dask", p.stdout)


if __name__ == "__main__":
    main()
