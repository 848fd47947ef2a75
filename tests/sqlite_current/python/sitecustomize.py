"""Imported by every Python process of tests/sqlite_current/run_tests.sh (its PYTHONPATH), before the
test itself: the run is against another SQLite, so

- a process whose sqlite3 module did not pick up the asked-for library (LD_LIBRARY_PATH) exits at
  once: no test can silently fall back to Debian's SQLite;
- ROCPD_SQLITE3, the shell tests run (CTest sets it to Debian's), becomes that SQLite's shell:
  Debian's shell refuses to run on another library ("SQLite header and source version mismatch").

Debian's own sitecustomize (the apport hook) is not needed by the tests."""
import os
import sys
import sqlite3

_want = os.environ.get("ROCPD_SQLITE_VERSION")
if _want and sqlite3.sqlite_version != _want:
    print(f"FAIL: Python's sqlite3 runs SQLite {sqlite3.sqlite_version}, expected {_want} (LD_LIBRARY_PATH?)",
          file=sys.stderr)
    sys.exit(1)
if os.environ.get("ROCPD_SQLITE_DIR"):
    os.environ["ROCPD_SQLITE3"] = os.path.join(os.environ["ROCPD_SQLITE_DIR"], "sqlite3")
