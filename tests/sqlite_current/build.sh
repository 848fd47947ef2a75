#!/bin/sh
# Builds a current SQLite (3.52.0) from its amalgamation into OUT_DIR: a shared libsqlite3.so.0 and
# the sqlite3 shell (linked against it), to run the test suite against a newer SQLite than
# Debian 12's 3.40 (tests/sqlite_current/run_tests.sh). Never writes into the source tree.
#
#   tests/sqlite_current/build.sh OUT_DIR
#
# The amalgamation comes from the npm registry (reachable where sqlite.org is not): the sqlite3
# package bundles SQLite's autoconf tarball. The download is pinned by its sha256 (its sha512 is
# the registry's `dist.integrity`). A second run with the same OUT_DIR does nothing.
set -eu

PKG_URL=https://registry.npmjs.org/sqlite3/-/sqlite3-6.0.1.tgz
PKG_SHA256=ab8d044a93e05bd031d7ea75547c7fa60387cdc259d27f93c0e3e2832c4b1df9
AUTOCONF=sqlite-autoconf-3520000
VERSION=3.52.0

[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
src_dir=$(cd "$(dirname "$0")/../.." && pwd)
case "$out/" in "$src_dir"/build*/) ;; "$src_dir"/*) echo "refusing to build into the source tree: $out" >&2; exit 2;; esac

if [ -x "$out/sqlite3" ] && [ -f "$out/libsqlite3.so.0" ] && [ "$(cat "$out/version" 2>/dev/null)" = "$VERSION" ]; then
  echo "SQLite $VERSION already built in $out"
  exit 0
fi

tgz="$out/download/sqlite3-6.0.1.tgz"
mkdir -p "$out/download"
if ! echo "$PKG_SHA256  $tgz" | sha256sum -c --status 2>/dev/null; then
  rm -f "$tgz"
  if command -v curl >/dev/null; then
    curl -fsSL --retry 3 -o "$tgz.part" "$PKG_URL"
    mv "$tgz.part" "$tgz"
  elif command -v npm >/dev/null; then
    (cd "$out/download" && npm pack --silent sqlite3@6.0.1 >/dev/null)
  else
    echo "need curl or npm to download $PKG_URL" >&2; exit 1
  fi
  echo "$PKG_SHA256  $tgz" | sha256sum -c --quiet || { echo "checksum mismatch: $tgz" >&2; exit 1; }
fi

rm -rf "$out/src" && mkdir -p "$out/src"
tar -xzf "$tgz" -C "$out/src" "package/deps/$AUTOCONF.tar.gz"
tar -xzf "$out/src/package/deps/$AUTOCONF.tar.gz" -C "$out/src"
amal="$out/src/$AUTOCONF"

# The compile-time options of Debian 12's libsqlite3 (PRAGMA compile_options) that change what
# SQL does: load_extension stays enabled (no SQLITE_OMIT_LOAD_EXTENSION), JSON is built in since
# 3.38, SQLITE_MAX_ATTACHED stays at its default 10 like Debian's.
DEFS="-DSQLITE_THREADSAFE=1 -DSQLITE_MAX_ATTACHED=10
 -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB
 -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS3_TOKENIZER
 -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE
 -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_ENABLE_STMTVTAB
 -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT
 -DSQLITE_SECURE_DELETE -DSQLITE_SOUNDEX -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_USE_URI=1
 -DSQLITE_TEMP_STORE=1 -DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_MAX_SCHEMA_RETRY=25
 -DSQLITE_DEFAULT_FILE_FORMAT=4 -DSQLITE_DEFAULT_RECURSIVE_TRIGGERS=1 -DSQLITE_OMIT_LOOKASIDE
 -DSQLITE_DEFAULT_AUTOVACUUM=0 -DSQLITE_MALLOC_SOFT_LIMIT=1024 -DSQLITE_MAX_MMAP_SIZE=0x7fff0000"
CC=${CC:-cc}
# Compiled through ccache when it is installed (CCACHE_DISABLE=1: without), as CMake's builds are:
# the amalgamation's compile is nearly all of this script's time (80 s), and CI builds the same
# sources on every run. Compiling and linking are separate commands, as ccache caches compiles only.
cc_launcher=
if command -v ccache >/dev/null; then cc_launcher=ccache; fi
echo "building SQLite $VERSION in $out"
# shellcheck disable=SC2086
$cc_launcher $CC -O2 -g -fPIC $DEFS -c -o "$out/sqlite3.o" "$amal/sqlite3.c"
$CC -shared -Wl,-soname,libsqlite3.so.0 -o "$out/libsqlite3.so.0.tmp" "$out/sqlite3.o" -lm
mv "$out/libsqlite3.so.0.tmp" "$out/libsqlite3.so.0"
ln -sf libsqlite3.so.0 "$out/libsqlite3.so"
# shellcheck disable=SC2086
$cc_launcher $CC -O2 -g $DEFS -I"$amal" -c -o "$out/shell.o" "$amal/shell.c"
$CC -o "$out/sqlite3" "$out/shell.o" -L"$out" -l:libsqlite3.so.0 -Wl,-rpath,"$out" -lm
rm -f "$out/sqlite3.o" "$out/shell.o"
cp "$amal/sqlite3.h" "$amal/sqlite3ext.h" "$out/"

got=$("$out/sqlite3" :memory: 'SELECT sqlite_version()')
[ "$got" = "$VERSION" ] || { echo "built shell reports $got, expected $VERSION" >&2; exit 1; }
echo "$VERSION" > "$out/version"
rm -rf "$out/src"
echo "SQLite $VERSION: $out/libsqlite3.so.0 and $out/sqlite3"
