#!/bin/sh
# The demo (sql/demo.sql, installed as share/rocpd_ext/sql/demo.sql) runs from any directory: here
# from an empty one, with every statement required to succeed (-bail, so a renamed column cannot
# break the demo unseen). It must leave the directory empty (it reads and writes no file), print
# each section with rows, and show what it sets out to show: 8 members in natural order, rank5 as
# the straggler, the three training phases.
# usage: run_demo.sh SQLITE3 LIBRARY SOURCE_DIR
set -eu
sqlite3=$1 lib=$2 src=$3
# As run_sql_test.sh: sanitizer runtimes preloaded into the uninstrumented shell (not into this
# /bin/sh), and the current SQLite's shell when tests/sqlite_current runs the suite.
preload=${ROCPD_SHELL_PRELOAD:-${LD_PRELOAD:-}}
if [ -n "${ROCPD_SQLITE_DIR:-}" ]; then sqlite3=$ROCPD_SQLITE_DIR/sqlite3; fi
work=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$work" "$out"' EXIT
cd "$work"
fail() { cat "$out"; echo "demo.sql: $1"; exit 1; }
LD_PRELOAD=$preload "$sqlite3" -bail -cmd ".load $lib" :memory: ".read $src/sql/demo.sql" >"$out" 2>&1 ||
  fail "failed"
[ -z "$(ls -A "$work")" ] || fail "left files in the directory it ran in: $(ls -A "$work")"
sections=$(grep -c '^== ' "$out")
[ "$sections" -eq 9 ] || fail "printed $sections sections, expected 9"
# Members in natural order: the rows of rocpd_members, one per rank.
members=$(sed -n '/^== The members/,/^$/p' "$out" | grep -o '│ rank[0-9]* ' | tr -d '│ ' | tr '\n' ' ')
[ "$members" = "rank0 rank1 rank2 rank3 rank4 rank5 rank6 rank7 " ] || fail "members listed as: $members"
straggler=$(sed -n '/^== Ranks by kernel time/,/^$/p' "$out" | sed -n 5p | grep -o 'rank[0-9]*' || true)
[ "$straggler" = "rank5" ] || fail "the first rank of rocpd_rank_summary is '$straggler', not rank5"
for phase in forward backward optimizer.step; do
  grep -q "│ $phase " "$out" || fail "no GPU time for phase $phase"
done
echo "demo.sql: $sections sections, from an empty directory"
