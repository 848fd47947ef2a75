#!/bin/sh
# Runs one self-asserting SQL script through the real sqlite3 shell with the extension loaded.
# Fails when the shell fails (-bail stops at the first error) or any output line starts "FAIL".
set -u
shell=$1 ext=$2 script=$3
out=$("$shell" -bail -batch -cmd ".load $ext" :memory: ".read $script" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -ne 0 ]; then echo "sqlite3 exited with $rc"; exit 1; fi
if printf '%s\n' "$out" | grep -q '^FAIL'; then exit 1; fi
exit 0
