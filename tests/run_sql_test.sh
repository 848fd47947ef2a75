#!/bin/sh
# Runs one self-asserting SQL script through the real sqlite3 shell with the extension loaded.
# Fails when the shell fails (-bail stops at the first error) or any output line starts "FAIL".
set -u
shell=$1 ext=$2 script=$3
# Sanitizer builds: the runtimes to preload into the uninstrumented shell (not into this /bin/sh).
preload=${ROCPD_SHELL_PRELOAD:-${LD_PRELOAD:-}}
# tests/sqlite_current/run_tests.sh: another SQLite's shell, and the version it must report.
if [ -n "${ROCPD_SQLITE_DIR:-}" ]; then shell=$ROCPD_SQLITE_DIR/sqlite3; fi
if [ -n "${ROCPD_SQLITE_VERSION:-}" ]; then
  v=$(LD_PRELOAD=$preload "$shell" -batch :memory: 'SELECT sqlite_version()' 2>&1)
  echo "sqlite_version() $v"
  if [ "$v" != "$ROCPD_SQLITE_VERSION" ]; then echo "FAIL: $shell runs SQLite $v, expected $ROCPD_SQLITE_VERSION"; exit 1; fi
fi
out=$(LD_PRELOAD=$preload "$shell" -bail -batch -cmd ".load $ext" :memory: ".read $script" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -ne 0 ]; then echo "sqlite3 exited with $rc"; exit 1; fi
if printf '%s\n' "$out" | grep -q '^FAIL'; then exit 1; fi
exit 0
