#!/usr/bin/python3
"""Busy table of a job through Python's standard sqlite3 module.

usage: busy.py EXTENSION JOB_DIR   (EXTENSION: the library path, suffix optional)
"""
import sqlite3
import sys

QUERY = """SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu"""

ext, job = sys.argv[1:3]
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)   # per connection; needs a Python built with extension loading
con.load_extension(ext)
con.enable_load_extension(False)  # SQL's load_extension() stays off
con.execute("SELECT rocpd_open(?)", (job,))

cur = con.execute(QUERY)
print("\t".join(d[0] for d in cur.description))
for row in cur:
    print("\t".join(str(v) for v in row))
