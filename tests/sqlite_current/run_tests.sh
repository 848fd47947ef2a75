#!/bin/sh
# Runs the CTest suite of an existing build against the SQLite built by build.sh, without
# recompiling the extension (compiled against Debian's 3.40 headers: SQLite's extension API table
# only ever grows, so a 3.40 extension runs on a newer library).
#
#   tests/sqlite_current/run_tests.sh BUILD_DIR SQLITE_DIR [ctest arguments...]
#
# SQL scripts run through SQLITE_DIR/sqlite3 (tests/run_sql_test.sh reads ROCPD_SQLITE_DIR); every
# other program - /usr/bin/python3's _sqlite3 module, rocpd_gen, the units - loads
# SQLITE_DIR/libsqlite3.so.0 through LD_LIBRARY_PATH; Python tests that run a shell get
# SQLITE_DIR/sqlite3 as ROCPD_SQLITE3 (python/sitecustomize.py). ROCPD_SQLITE_VERSION is the version
# the tests must see: run_sql_test.sh, every Python process (sitecustomize.py) and the surface test
# fail on any other, so a silent fallback to Debian's library cannot pass.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR SQLITE_DIR [ctest arguments...]" >&2; exit 2; }
build=$1 dir=$(cd "$2" && pwd)
shift 2
[ -x "$dir/sqlite3" ] && [ -f "$dir/libsqlite3.so.0" ] && [ -f "$dir/version" ] ||
  { echo "no SQLite build in $dir (run tests/sqlite_current/build.sh $dir)" >&2; exit 1; }
ROCPD_SQLITE_DIR=$dir
ROCPD_SQLITE_VERSION=$(cat "$dir/version")
LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PYTHONPATH=$(cd "$(dirname "$0")" && pwd)/python${PYTHONPATH:+:$PYTHONPATH}
export ROCPD_SQLITE_DIR ROCPD_SQLITE_VERSION LD_LIBRARY_PATH PYTHONPATH

py=$(/usr/bin/python3 -c 'import os, sqlite3; print(sqlite3.sqlite_version, os.environ["ROCPD_SQLITE3"])')
sh=$("$dir/sqlite3" :memory: 'SELECT sqlite_version()')
echo "SQLite under test: python3 $py, shell $sh, expected $ROCPD_SQLITE_VERSION"
[ "$py" = "$ROCPD_SQLITE_VERSION $dir/sqlite3" ] && [ "$sh" = "$ROCPD_SQLITE_VERSION" ] ||
  { echo "version mismatch" >&2; exit 1; }
exec ctest --test-dir "$build" --output-on-failure "$@"
