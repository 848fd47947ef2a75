#!/bin/sh
# The README's demo (sql/demo.sql on the generator's 8-process mixed job, as the `demo` target
# runs it): every statement must succeed (-bail), so a renamed column cannot break the demo unseen.
# usage: run_demo.sh SQLITE3 LIBRARY GENERATOR SOURCE_DIR
set -eu
sqlite3=$1 lib=$2 gen=$3 src=$4
# As run_sql_test.sh: sanitizer runtimes preloaded into the uninstrumented shell (not into this
# /bin/sh), and the current SQLite's shell when tests/sqlite_current runs the suite.
preload=${ROCPD_SHELL_PRELOAD:-${LD_PRELOAD:-}}
if [ -n "${ROCPD_SQLITE_DIR:-}" ]; then sqlite3=$ROCPD_SQLITE_DIR/sqlite3; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" --out "$work/demo" --procs 8 --format mixed --ops 20000 --seed 42 >/dev/null
cd "$work/demo"
LD_PRELOAD=$preload "$sqlite3" -bail -cmd ".load $lib" :memory: ".read $src/sql/demo.sql" >"$work/out.txt" 2>&1 || {
  cat "$work/out.txt"
  echo "demo.sql failed"
  exit 1
}
# Each section printed its rows: the last section's header is there.
grep -q '^== ' "$work/out.txt" || { cat "$work/out.txt"; echo "demo.sql printed no section"; exit 1; }
echo "demo.sql: $(grep -c '^== ' "$work/out.txt") sections"
