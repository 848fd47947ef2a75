#!/usr/bin/python3
"""Busy table of a job as a pandas DataFrame (read through the standard sqlite3 module).

usage: busy.py EXTENSION JOB_DIR
"""
import sqlite3
import sys

import pandas as pd

QUERY = """SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu"""

ext, job = sys.argv[1:3]
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(ext)
con.enable_load_extension(False)
con.execute("SELECT rocpd_open(?)", (job,))

df = pd.read_sql_query(QUERY, con)
sys.stdout.write(df.to_csv(sep="\t", index=False))
