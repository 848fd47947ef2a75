"""Job-wide summaries computed in two steps, so that any engine can run the first step where the
files are and the second anywhere (docs/distributed.md):

  partial(query, files, ...) opens a share of the member files with the extension and returns
                              rows holding mergeable states (rocpd_stats_state,
                              interval_union_state) or finished per-member rows;
  reduce(query, partials)     merges them with rocpd_stats_merge and friends in an in-memory
                              SQLite and returns the rows of the matching view, same columns.

Every member file must be read by exactly one partial call. Files given as (path, member name)
pairs (members()) keep the names rocpd_open gives them over the whole job (their paths under
the pattern's directory, so host1/123_results and host2/123_results stay apart); plain paths are
named by their stems.
"""
import os
import sqlite3

from . import connect

QUERIES = ("kernel_summary", "op_summary", "busy", "utilization", "stragglers")
TRACE_SUFFIXES = (".rpd", ".db", ".sqlite", ".sqlite3")

# Step 1, per share of files. Kernel and op summaries: one state per name (and kind).
_PARTIAL = {
    "kernel_summary": "SELECT name, rocpd_stats_state(duration) FROM temp.rocpd_ops "
                      "WHERE kind = 'kernel' GROUP BY name",
    "op_summary": "SELECT kind, name, rocpd_stats_state(duration) FROM temp.rocpd_ops GROUP BY kind, name",
    # Busy time is per member and gpu: a member lives in one share, so its rows are final.
    "busy": "SELECT * FROM rocpd_busy",
    "utilization": "SELECT db, gpu, bucket, bucket_start, bucket_end, busy_ns, utilization "
                   "FROM rocpd_utilization(?, ?, ?)",
    # Stragglers compare members: each share sends its members' collective lists (the columns of
    # rocpd_collectives that depend on the member alone: participant, family, instance, start);
    # the reducer matches them across the job (docs/distributed.md).
    "stragglers": "SELECT db, pid, gpu, family, instance, start FROM rocpd_collectives",
}

# The stats columns of the summary views, from a merged state `s`.
_STATS = ("rocpd_stats_get(s, 'sum') AS total_ns, rocpd_stats_get(s, 'count') AS instances, "
          "rocpd_stats_get(s, 'mean') AS avg_ns, rocpd_stats_get(s, 'median') AS med_ns, "
          "rocpd_stats_get(s, 'min') AS min_ns, rocpd_stats_get(s, 'max') AS max_ns, "
          "rocpd_stats_get(s, 'stddev') AS stddev_ns")

# The summary columns of the views as they round them (docs/views.md): percents to 2 decimals,
# averages and standard deviations to 0.1 ns, exact figures as they are.
_SHOWN = ("round(100.0 * total_ns / sum(total_ns) OVER (), 2) AS time_pct, total_ns, instances, "
          "round(avg_ns, 1) AS avg_ns, med_ns, min_ns, max_ns, round(stddev_ns, 1) AS stddev_ns")

# Step 2: the views' own SELECT lists and orders (sql/views/30_*, 33_*, 20_*), over merged states.
_REDUCE = {
    "kernel_summary": (
        "CREATE TEMP TABLE part(name, state)",
        f"SELECT {_SHOWN}, rocpd_display_name(name) AS kernel "
        f"FROM (SELECT name, {_STATS} FROM (SELECT name, rocpd_stats_merge(state) AS s FROM temp.part "
        "GROUP BY name)) ORDER BY total_ns DESC, name"),
    "op_summary": (
        "CREATE TEMP TABLE part(kind, name, state)",
        f"SELECT {_SHOWN}, kind, rocpd_display_name(name) AS op "
        f"FROM (SELECT kind, name, {_STATS} FROM (SELECT kind, name, rocpd_stats_merge(state) AS s "
        "FROM temp.part GROUP BY kind, name)) ORDER BY total_ns DESC, kind, name"),
    "busy": (
        "CREATE TEMP TABLE part(db, gpu, busy_ns, span_ns, busy, busy_pct, sum_ns, overlap_ns, ops)",
        "SELECT * FROM temp.part ORDER BY db, gpu"),
    "utilization": (
        "CREATE TEMP TABLE part(db, gpu, bucket, bucket_start, bucket_end, busy_ns, utilization)",
        "SELECT * FROM temp.part ORDER BY db, gpu, bucket"),
    # rocpd_collectives' matching (docs/ranks.md) over every member's list, then the
    # rocpd_stragglers view (sql/views/70_rocpd_stragglers.sql): a family's instances are matched on
    # its participants' common prefix; the rows beyond it stay unmatched.
    "stragglers": (
        "CREATE TEMP TABLE part(db, pid, gpu, family, instance, start)",
        "WITH counts AS (SELECT family, db, pid, gpu, count(*) AS n FROM temp.part GROUP BY family, db, pid, gpu), "
        "fam AS (SELECT family, min(n) AS matched, count(*) AS participants FROM counts GROUP BY family), "
        "inst AS (SELECT p.family, p.instance, min(p.start) AS first, max(p.start) AS last "
        "         FROM temp.part AS p JOIN fam AS f ON f.family = p.family WHERE p.instance < f.matched "
        "         GROUP BY p.family, p.instance), "
        "matched AS (SELECT p.db, p.pid, p.gpu, p.family, p.instance, f.participants, i.first IS NOT NULL AS m, "
        "                   p.start - i.first AS late_ns, i.last - p.start AS wait_ns "
        "            FROM temp.part AS p JOIN fam AS f ON f.family = p.family "
        "            LEFT JOIN inst AS i ON i.family = p.family AND i.instance = p.instance), "
        "waited AS (SELECT family, instance, sum(wait_ns) AS total FROM matched WHERE m GROUP BY family, instance), "
        "rows AS (SELECT r.*, CASE WHEN NOT r.m THEN NULL WHEN r.wait_ns = 0 AND r.participants > 1 THEN w.total "
        "                          ELSE 0 END AS caused_wait_ns "
        "         FROM matched AS r LEFT JOIN waited AS w ON w.family = r.family AND w.instance = r.instance) "
        "SELECT db, pid, gpu, count(*) FILTER (WHERE m) AS collectives, "
        "       count(*) FILTER (WHERE m AND wait_ns = 0 AND participants > 1) AS times_last, "
        "       sum(late_ns) AS late_ns, percentile(late_ns, 50) AS late_p50_ns, percentile(late_ns, 95) AS late_p95_ns, "
        "       max(late_ns) AS late_max_ns, sum(wait_ns) AS wait_ns, sum(caused_wait_ns) AS caused_wait_ns, "
        "       count(*) FILTER (WHERE NOT m) AS unmatched "
        "FROM rows GROUP BY db, pid, gpu ORDER BY caused_wait_ns DESC, late_ns DESC, db, pid, gpu"),
}

COLUMNS = {
    "kernel_summary": ["time_pct", "total_ns", "instances", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns",
                       "kernel"],
    "op_summary": ["time_pct", "total_ns", "instances", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns", "kind",
                   "op"],
    "busy": ["db", "gpu", "busy_ns", "span_ns", "busy", "busy_pct", "sum_ns", "overlap_ns", "ops"],
    "utilization": ["db", "gpu", "bucket", "bucket_start", "bucket_end", "busy_ns", "utilization"],
    "stragglers": ["db", "pid", "gpu", "collectives", "times_last", "late_ns", "late_p50_ns", "late_p95_ns",
                   "late_max_ns", "wait_ns", "caused_wait_ns", "unmatched"],
}

# What the single-connection answer is, for comparison (`view_sql`).
_VIEW = {
    "kernel_summary": "SELECT * FROM rocpd_kernel_summary",
    "op_summary": "SELECT * FROM rocpd_op_summary",
    "busy": "SELECT * FROM rocpd_busy ORDER BY db, gpu",
    "utilization": "SELECT db, gpu, bucket, bucket_start, bucket_end, busy_ns, utilization "
                   "FROM rocpd_utilization(?) ORDER BY db, gpu, bucket",
    "stragglers": "SELECT * FROM rocpd_stragglers",
}


def members(pattern):
    """What rocpd_open(pattern) opens, as it opens it (a file, a glob, or a directory and its
    subdirectories; SQLite files holding no trace skipped): ([(path, member name)], [(path, why
    skipped)]). Raises sqlite3.Error with rocpd_open's message when nothing can be opened."""
    con = connect()
    try:
        con.execute("SELECT rocpd_open(?)", (pattern,))
        found = [tuple(r) for r in con.execute("SELECT path, db FROM rocpd_members ORDER BY rowid")]
        skipped = [tuple(r) for r in con.execute("SELECT path, reason FROM rocpd_skipped")]
    finally:
        con.close()
    return found, skipped


def expand(pattern):
    """The member files of `pattern` as rocpd_open reads it (see members())."""
    try:
        return [path for path, _ in members(pattern)[0]]
    except sqlite3.Error as e:
        raise FileNotFoundError(str(e)) from None


def _open(files):
    """A connection holding `files`: paths, or (path, member name) pairs as members() gives them."""
    con = connect()
    for f in files:
        con.execute("SELECT rocpd_open(?)", (f[0] if isinstance(f, tuple) else f,))
    return con


def _renamer(con, files):
    """db -> the member name given with each (path, name) of `files`: a share opened on its own
    names its files by their stems, the whole job by their paths under the pattern's directory."""
    wanted = {os.path.realpath(f[0]): f[1] for f in files if isinstance(f, tuple)}
    return {db: wanted.get(os.path.realpath(path), db)
            for db, path in con.execute("SELECT db, path FROM rocpd_members")}


def spans(files):
    """Step 0 of `utilization`: the members' first and last timestamps (the job's grid)."""
    con = _open(files)
    return con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()


def partial(query, files, bucket_ns=None, lo=None, hi=None):
    """Step 1 over `files`: a list of row tuples (states are bytes)."""
    if query not in _PARTIAL:
        raise ValueError(f"unknown query {query!r}; one of {', '.join(QUERIES)}")
    con = _open(files)
    args = (bucket_ns, lo, hi) if query == "utilization" else ()
    rows = [tuple(r) for r in con.execute(_PARTIAL[query], args)]
    if query in ("busy", "utilization"):  # rows per member: db first
        names = _renamer(con, files)
        rows = [(names.get(r[0], r[0]),) + r[1:] for r in rows]
    return rows


def reduce(query, partials):
    """Step 2: the view's rows from the partial results of every share."""
    create, select = _REDUCE[query]
    con = connect()
    con.execute(create)
    width = len(create.split("(", 1)[1].split(","))
    con.executemany(f"INSERT INTO temp.part VALUES ({', '.join('?' * width)})",
                    (row for rows in partials for row in rows))
    return [tuple(r) for r in con.execute(select)]


def view_rows(query, files, bucket_ns=None):
    """The same rows from one connection holding every file (what the recipe must equal)."""
    con = _open(files)
    args = (bucket_ns,) if query == "utilization" else ()
    return [tuple(r) for r in con.execute(_VIEW[query], args)]
