"""Shared helpers of the federation Python tests (run by Debian's /usr/bin/python3)."""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

EXT = os.environ.get("ROCPD_EXT", "")
GEN = os.environ.get("ROCPD_GEN", "")
FIXTURES = os.environ.get("ROCPD_FIXTURES", "")
SHARED_DATA = os.environ.get("ROCPD_SHARED_DATA", "")
SETS = os.path.join(FIXTURES, "sets")


def connect(path=":memory:"):
    con = sqlite3.connect(path)
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.enable_load_extension(False)
    return con


def generate(out, procs, fmt, ops, seed, *extra):
    subprocess.run([GEN, "--out", out, "--procs", str(procs), "--format", fmt, "--ops", str(ops),
                    "--seed", str(seed), *map(str, extra)], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "truth.json")) as f:
        return json.load(f)


def truth(set_name):
    with open(os.path.join(SETS, set_name, "truth.json")) as f:
        return json.load(f)


def set_files(set_name):
    d = os.path.join(SETS, set_name)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f != "truth.json")


def checksums(paths):
    out = {}
    for p in paths:
        with open(p, "rb") as f:
            out[p] = hashlib.sha256(f.read()).hexdigest()
    return out


class ChecksumGuard(unittest.TestCase):
    """Asserts after every test that no member file changed: the extension never writes to a trace."""

    watched = []

    @classmethod
    def setUpClass(cls):
        cls._sums = checksums(cls.watched)

    def tearDown(self):
        self.assertEqual(checksums(self.watched), self._sums, "a member file changed")


def main():
    if not EXT or not os.path.exists(EXT + ".so"):
        print(f"ROCPD_EXT not set or missing: {EXT!r}")
        sys.exit(1)
    unittest.main(verbosity=2)
