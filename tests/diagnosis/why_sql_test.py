"""The C++ tables under rocpd_queue_depth, rocpd_comm_overlap, rocpd_launch_stats,
rocpd_kernel_sequences, rocpd_kernel_counters and rocpd_launch_latency (rocpd_queue_steps,
rocpd_comm_classes, rocpd_op_launches, rocpd_sequence_groups, rocpd_op_counters,
rocpd_launch_groups; docs/diagnosis.md, docs/views.md) against the plain SQL that defined those
names before (kept here as the reference; for launch latency, with the launch every diagnosis
table uses): the same rows, also filtered by db, on
a generated job of several members and on the hostile members of the differential tester (NULL
times and correlation ids, repeated correlation ids, calls without a start, ops without a launch,
text and real values). Where the reference would read a time that is not an integer, the tables
refuse with the documented error instead. Run by /usr/bin/python3."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from collections import Counter

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "differential"))
import hostile_fixtures  # noqa: E402

EXT = os.environ.get("ROCPD_EXT", "")
GEN = os.environ.get("ROCPD_GEN", "")

REF_QUEUE_DEPTH = """
CREATE TEMP VIEW ref_queue_depth AS
WITH calls AS (
       SELECT db, correlation_id, start FROM (
         SELECT db, correlation_id, start,
                row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n
         FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL)
       WHERE n = 1),
     ops AS MATERIALIZED (
       SELECT o.db, o.gpu, o.queue, o.stream, c.start AS launched, o.start, o."end"
       FROM temp.rocpd_ops AS o CROSS JOIN calls AS c ON c.db = o.db AND c.correlation_id = o.correlation_id
       WHERE o.start IS NOT NULL AND o."end" IS NOT NULL),
     steps AS (
       SELECT db, gpu, queue, stream, ts, sum(d_depth) AS d_depth, sum(d_wait) AS d_wait
       FROM (SELECT db, gpu, queue, stream, launched AS ts, 1 AS d_depth, 1 AS d_wait FROM ops
             UNION ALL SELECT db, gpu, queue, stream, start, 0, -1 FROM ops
             UNION ALL SELECT db, gpu, queue, stream, "end", -1, 0 FROM ops)
       GROUP BY db, gpu, queue, stream, ts)
SELECT db, gpu, queue, stream, ts,
       sum(d_depth) OVER lane AS depth,
       sum(d_wait) OVER lane AS waiting,
       lead(ts) OVER lane - ts AS duration
FROM steps
WINDOW lane AS (PARTITION BY db, gpu, queue, stream ORDER BY ts ROWS UNBOUNDED PRECEDING);
"""

REF_COMM_OVERLAP = """
CREATE TEMP VIEW ref_comm_overlap AS
SELECT db, gpu, compute_ops, comm_ops, compute_ns, comm_ns,
       compute_ns + comm_ns - both_ns AS overlap_ns,
       both_ns - compute_ns AS exposed_comm_ns,
       CASE WHEN comm_ns > 0 THEN round(100.0 * (compute_ns + comm_ns - both_ns) / comm_ns, 2) END AS overlap_pct
FROM (SELECT db, gpu,
             count(*) FILTER (WHERE class = 'compute') AS compute_ops,
             count(*) FILTER (WHERE class = 'comm') AS comm_ops,
             coalesce(interval_union(start, "end") FILTER (WHERE class = 'compute'), 0) AS compute_ns,
             coalesce(interval_union(start, "end") FILTER (WHERE class = 'comm'), 0) AS comm_ns,
             coalesce(interval_union(start, "end") FILTER (WHERE class IS NOT NULL), 0) AS both_ns
      FROM (SELECT db, gpu, start, "end",
                   CASE WHEN kind = 'copy' THEN 'comm'
                        WHEN kind = 'kernel' THEN
                          CASE WHEN coalesce(name, '') LIKE '%nccl%' OR coalesce(name, '') LIKE '%rccl%'
                                    OR coalesce(name, '') LIKE '%cross_device_reduce%' THEN 'comm'
                               ELSE 'compute' END
                   END AS class
            FROM temp.rocpd_ops)
      GROUP BY db, gpu)
ORDER BY db, gpu;
"""

REF_KERNEL_SEQUENCES = """
CREATE TEMP VIEW ref_kernel_sequences AS
WITH calls AS (
       SELECT db, correlation_id, start, "end" FROM (
         SELECT db, correlation_id, start, "end",
                row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n
         FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL)
       WHERE n = 1),
     ranges AS MATERIALIZED (SELECT db, pid, tid, name, start, "end", api_id FROM temp.rocpd_ranges),
     launched AS MATERIALIZED (
       SELECT s.db, s.pid, s.tid, s.op_id, s.name, s.start, s."end", s.bottom_level, c.start AS call_start,
              CASE WHEN c."end" IS NULL OR c."end" < c.start THEN c.start ELSE c."end" END AS call_end
       FROM temp.rocpd_kernel_stacks AS s
       CROSS JOIN calls AS c ON c.db = s.db AND c.correlation_id = s.correlation_id
       WHERE s.depth > 0),
     -- The innermost enclosing range of the launching thread with the bottom level's name is the
     -- bottom-level range (rocpd_kernel_stacks' order: start, then end descending, then api_id).
     placed AS MATERIALIZED (
       SELECT l.*, (SELECT r.api_id FROM ranges AS r
                    WHERE r.db = l.db AND r.pid = l.pid AND r.tid = l.tid AND r.name IS l.bottom_level
                      AND r.start <= l.call_start AND l.call_end <= r."end"
                    ORDER BY r.start DESC, r."end", r.api_id DESC LIMIT 1) AS range_id
       FROM launched AS l),
     occurrences AS (
       SELECT db, pid, tid, range_id, bottom_level AS operator,
              json_group_array(name) OVER occurrence AS pattern,
              sum("end" - start) OVER occurrence AS gpu_ns,
              row_number() OVER (PARTITION BY db, pid, tid, range_id ORDER BY start, op_id) AS n
       FROM placed
       WHERE range_id IS NOT NULL
       WINDOW occurrence AS (PARTITION BY db, pid, tid, range_id ORDER BY start, op_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
SELECT o.db, o.operator, json_array_length(o.pattern) AS kernels, o.pattern, count(*) AS count,
       sum(o.gpu_ns) AS gpu_ns, sum(r."end" - r.start) AS range_ns
FROM occurrences AS o
JOIN ranges AS r ON r.db = o.db AND r.pid = o.pid AND r.tid = o.tid AND r.api_id = o.range_id
WHERE o.n = 1
GROUP BY o.db, o.operator, o.pattern
ORDER BY o.db, count DESC, gpu_ns DESC, o.operator, o.pattern;
"""

# rocpd_kernel_counters' former definition.
REF_KERNEL_COUNTERS = """
CREATE TEMP VIEW ref_kernel_counters AS
WITH per_counter AS (
       SELECT db, pid, op_id, counter, sum(value) AS value
       FROM temp.rocpd_counters WHERE counter IS NOT NULL
       GROUP BY db, pid, op_id, counter),
     per_op AS (
       SELECT db, pid, op_id, count(*) AS n_counters, json_group_object(counter, value) AS counters
       FROM per_counter GROUP BY db, pid, op_id)
SELECT k.db, c.pid, k.op_id, k.correlation_id, k.gpu, k.queue, k.name, k.start, k."end",
       k."end" - k.start AS duration, c.n_counters, c.counters, k.depth, k.stack, k.top_level, k.bottom_level
FROM temp.rocpd_kernel_stacks AS k
CROSS JOIN per_op AS c ON c.db = k.db AND c.op_id = k.op_id AND c.pid = coalesce(k.pid, c.pid)
WHERE k.kind = 'kernel';
"""

# rocpd_launch_latency's former query, with the launch of docs/diagnosis.md (the first call of the
# member with the kernel's correlation id) in place of every call with it, and the API names in
# BINARY order.
REF_LAUNCH_LATENCY = """
CREATE TEMP VIEW ref_launch_latency AS
WITH calls AS (
       SELECT db, correlation_id, name, start FROM (
         SELECT db, correlation_id, name, start,
                row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n
         FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL)
       WHERE n = 1),
     launches AS MATERIALIZED (
       SELECT o.name, o.start - c.start AS latency_ns, c.name AS api_name
       FROM temp.rocpd_ops AS o CROSS JOIN calls AS c ON c.db = o.db AND c.correlation_id = o.correlation_id
       WHERE o.kind = 'kernel' AND typeof(o.correlation_id) = 'integer')
SELECT count(*) AS launches, round(avg(latency_ns), 1) AS avg_ns, median(latency_ns) AS med_ns,
       round(percentile(latency_ns, 95), 1) AS p95_ns, min(latency_ns) AS min_ns, max(latency_ns) AS max_ns,
       (SELECT group_concat(api_name) FROM (SELECT DISTINCT api_name FROM launches AS l2
                                             WHERE l2.name IS l.name AND api_name IS NOT NULL ORDER BY api_name))
         AS api_names,
       rocpd_display_name(name) AS kernel, name, demangle(name) AS demangled
FROM launches AS l
GROUP BY name;
"""

# rocpd_launch_stats' former query (its rowid is the op's rocpd_ops rowid), with graph launches
# (docs/diagnosis.md: their ops are never short ops nor runtime outliers).
REF_LAUNCH_STATS = """
CREATE TEMP VIEW ref_launch_stats AS
WITH calls AS (
  SELECT db, correlation_id, pid, tid, name, start, "end" FROM (
    SELECT db, correlation_id, pid, tid, name, start, "end",
           row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n
    FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL)
  WHERE n = 1)
SELECT db, pid, tid, op_id, correlation_id, gpu, queue, stream, kind, name, api_name, launch_start, launch_end,
       start, "end", cpu_ns, gpu_ns, launch_delay_ns,
       CASE WHEN graph_launch THEN 0 ELSE cpu_ns <= 50000 AND gpu_ns < cpu_ns END AS short_op,
       CASE WHEN graph_launch THEN 0 ELSE cpu_ns > 50000 END AS runtime_outlier,
       launch_delay_ns > 100000 AS delay_outlier, graph_launch, rowid_
FROM (SELECT o.db, c.pid, c.tid, o.op_id, o.correlation_id, o.gpu, o.queue, o.stream, o.kind, o.name,
             c.name AS api_name, c.start AS launch_start, c."end" AS launch_end, o.start, o."end",
             c."end" - c.start AS cpu_ns, o."end" - o.start AS gpu_ns, o.start - c."end" AS launch_delay_ns,
             (c.name GLOB 'hipGraphLaunch*' OR c.name GLOB 'cudaGraphLaunch*' OR o.graph_id IS NOT NULL)
               AS graph_launch,
             o.rowid AS rowid_
      FROM temp.rocpd_ops AS o CROSS JOIN calls AS c ON c.db = o.db AND c.correlation_id = o.correlation_id)
"""

LAUNCH_COLS = ("db, pid, tid, op_id, correlation_id, gpu, queue, stream, kind, name, api_name, launch_start, "
               "launch_end, start, \"end\", cpu_ns, gpu_ns, launch_delay_ns, short_op, runtime_outlier, delay_outlier, "
               "graph_launch")
CASES = (
    ("rocpd_queue_depth", "ref_queue_depth", "db, gpu, queue, stream, ts, depth, waiting, duration", ""),
    ("rocpd_comm_overlap", "ref_comm_overlap",
     "db, gpu, compute_ops, comm_ops, compute_ns, comm_ns, overlap_ns, exposed_comm_ns, overlap_pct", ""),
    ("rocpd_launch_stats", "ref_launch_stats", LAUNCH_COLS, "rowid"),
    ("rocpd_kernel_sequences", "ref_kernel_sequences", "db, operator, kernels, pattern, count, gpu_ns, range_ns", ""),
    ("rocpd_kernel_counters_full", "ref_kernel_counters",
     'db, pid, op_id, correlation_id, gpu, queue, name, start, "end", duration, n_counters, counters, depth, stack, '
     'top_level, bottom_level', ""),
    # Job-wide: the db filter does not apply (see compare()).
    ("rocpd_launch_latency_full", "ref_launch_latency",
     "launches, avg_ns, med_ns, p95_ns, min_ns, max_ns, api_names, kernel, name, demangled", ""),
)
JOB_WIDE = {"rocpd_launch_latency_full"}
# docs/diagnosis.md: a start or end that is not an integer is an error naming the member (rocpd_kernel_stacks,
# read by the former rocpd_kernel_sequences, and rocpd_sequence_groups, under the new one, refuse alike)
# (interval_union's own error for rocpd_comm_overlap, as before).
REFUSAL = re.compile(r"^(rocpd_(op_launches|queue_steps|kernel_stacks|sequence_groups|op_counters|launch_groups): "
                     r"member .*: (start|end) must be an integer"
                     # a difference of times past 64 bits, which the former SQL turned into a real
                     r"|integer overflow$"
                     r"|interval_union: (start|end) must be an integer)")


RPD2_DDL = """
CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, end INTEGER,
                       apiName_id INTEGER, args_id INTEGER);
CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER,
                      completionSignal TEXT, start INTEGER, end INTEGER, description_id INTEGER, opType_id INTEGER);
CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER, op_id INTEGER);
INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rocpd_string(id, string) VALUES (1, '');
"""

# (gpu, queue, op type, name (None: a missing string), start, end, call start (None: no start; False: no call))
EDGE_OPS = [
    (0, 0, "KernelExecution", "gemm", 1000, 2000, 900),
    (0, 0, "KernelExecution", "ncclDevKernel_AllReduce", 1500, 2500, 950),
    (0, 1, "KernelExecution", "RCCL_generic", 1400, 1600, 960),
    (0, 1, "KernelExecution", "my_Cross_Device_Reduce", 3000, 3100, 2990),
    (0, 1, "KernelExecution", "x\0nccl", 3000, 3500, 2995),  # compute: LIKE reads up to the NUL
    (0, 0, "KernelExecution", None, 4000, 4200, 3990),
    (0, 0, "CopyHostToDevice", "", 4100, 4400, 4000),
    (0, 0, "CopyDeviceToHost", "", 5000, 4000, 4900),  # reversed: counts, covers nothing
    (0, 0, "BarrierAnd", "", 100, 200000, 90),  # neither class
    (0, 1, "KernelExecution", "late", 6000, 6100, 5000),
    (0, 1, "KernelExecution", "same_instant", 6000, 6100, 5000),
    (0, 0, "KernelExecution", "no_start", None, 7000, 6900),
    (0, 0, "KernelExecution", "no_end", 7100, None, 7000),
    (0, 1, "KernelExecution", "call_without_start", 8000, 8100, None),
    (0, 1, "KernelExecution", "without_call", 8200, 8300, False),
    (1, 0, "KernelExecution", "gemm", 1000, 1300, 800),
    (1, 0, "CopyDeviceToDevice", "", 1200, 1400, 1100),
    (None, None, "KernelExecution", "gemm", 500, 600, 400),
]


def string_ids(con):
    """sid(text): the rocpd_string id of `text` in `con`, inserted on first use; None gives an id
    that names no string (a NULL name)."""
    strings = {"": 1}

    def sid(s):
        if s is None:
            return 999999
        if s not in strings:
            strings[s] = con.execute("INSERT INTO rocpd_string(string) VALUES (?)", (s,)).lastrowid
        return strings[s]
    return sid


def write_rpd2(path, pid, ops):
    con = sqlite3.connect(path)
    con.executescript(RPD2_DDL)
    sid = string_ids(con)

    for gpu, queue, op_type, name, start, end, call_start in ops:
        op = con.execute("INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, end, "
                         "description_id, opType_id) VALUES (?, ?, 0, '', ?, ?, ?, ?)",
                         (gpu, queue, start, end, sid(name), sid(op_type))).lastrowid
        if call_start is False:
            continue
        api = con.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, 1)",
                          (pid, pid, call_start, None if call_start is None else call_start + 5,
                           sid("hipLaunchKernel"))).lastrowid
        con.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (api, op))
    con.commit()
    con.close()


def write_rpd2_ranges(path, pid, occurrences):
    """One thread's marker ranges (rpd v2 UserMarker calls), each enclosing the launch calls of its ops."""
    con = sqlite3.connect(path)
    con.executescript(RPD2_DDL)
    sid = string_ids(con)

    t = 1000
    for range_name, ops in occurrences:
        con.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, ?)",
                    (pid, pid, t, t + 1000, sid("UserMarker"), sid(range_name)))
        gpu = t + 100000
        for k, (name, duration) in enumerate(ops):
            call = t + 10 + 20 * k
            api = con.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) VALUES (?, ?, ?, ?, ?, 1)",
                              (pid, pid, call, call + 5, sid("hipLaunchKernel"))).lastrowid
            op = con.execute("INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, end, "
                             "description_id, opType_id) VALUES (0, 0, 0, '', ?, ?, ?, ?)",
                             (gpu, gpu + duration, sid(name), sid("KernelExecution"))).lastrowid
            con.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (api, op))
            gpu += duration + 1
        t += 2000
    con.commit()
    con.close()


def connect(path):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.enable_load_extension(False)
    con.execute("SELECT rocpd_open(?)", (path,))
    for sql in (REF_QUEUE_DEPTH, REF_COMM_OVERLAP, REF_LAUNCH_STATS, REF_KERNEL_SEQUENCES, REF_KERNEL_COUNTERS,
                REF_LAUNCH_LATENCY):
        con.execute(sql)
    return con


def key(row):
    """A multiset key that tells 1 from 1.0 and text from blob, as a plain table's rows differ."""
    return tuple((type(v).__name__, v) for v in row)


class SameRowsAsSql(unittest.TestCase):
    def rows(self, con, sql, args=()):
        try:
            return Counter(key(r) for r in con.execute(sql, args)), None
        except sqlite3.Error as e:
            return None, str(e)

    def compare(self, con, label):
        """Compares every case in full and per member; returns how many (case, filter) pairs had rows to compare."""
        con.text_factory = bytes  # hostile names are not UTF-8
        dbs = [r[0].decode() for r in con.execute("SELECT db FROM rocpd_members")]
        self.assertGreater(len(dbs), 1, label)
        compared = 0
        for name, ref, cols, rowid in CASES:
            ref_sel = cols + (", " + rowid + "_" if rowid else "")
            sel = cols + (", " + rowid if rowid else "")
            for db in [None] if name in JOB_WIDE else [None] + dbs + ["nope"]:
                where, args = ("", ()) if db is None else (" WHERE db = ?", (db,))
                want, want_err = self.rows(con, f"SELECT {ref_sel} FROM {ref}{where}", args)
                got, got_err = self.rows(con, f"SELECT {sel} FROM {name}{where}", args)
                context = (label, name, db, want_err, got_err)
                erring = re.search(r"member (\S+):", want_err or "")
                if (want_err is not None and got_err is None and name == "rocpd_kernel_counters_full" and erring and
                        con.execute("SELECT count(*) FROM rocpd_counters WHERE db = ?",
                                    (erring.group(1),)).fetchone()[0] == 0):
                    # The former view read the stacks of every member; the table reads those of kernels with
                    # counters only, so a member without counters is not read.
                    continue
                if want_err is not None and got_err is None and db is not None and f"member {db}:" not in want_err:
                    # The former SQL read every member despite `db =` and refused over another member's value; the
                    # table reads only the member asked for.
                    if db == "nope":
                        self.assertFalse(got, context)
                    continue
                if want_err is not None:
                    # The reference refuses (interval_union): the table refuses alike, with the same kind of text
                    # for rocpd_comm_overlap (whose view still calls its errors interval_union's; which member's
                    # value it names depends on which member's core got there first).
                    self.assertIsNotNone(got_err, context)
                    if want_err.startswith("interval_union"):
                        self.assertEqual(re.sub(r"(got|is) .*", "", got_err), re.sub(r"(got|is) .*", "", want_err),
                                         context)
                    else:
                        self.assertRegex(got_err, REFUSAL, context)
                    continue
                if got_err is not None:
                    self.assertRegex(got_err, REFUSAL, context)
                    continue
                self.assertEqual(got, want, context)
                compared += 1 if want else 0
        return compared

    def test_generated_job(self):
        d = tempfile.mkdtemp(prefix="rocpd_whysql_")
        try:
            subprocess.run([GEN, "--out", d, "--procs", "3", "--format", "mixed", "--ops", "1500", "--seed", "41",
                            "--markers", "200", "--diagnosis", "1", "--counters", "4", "--rpd-counters", "4"],
                           check=True, stdout=subprocess.DEVNULL)
            con = connect(d)
            # In full and per member (rank0, rpd v2, holds no counters); launch latency is job-wide (once).
            self.assertEqual(self.compare(con, "generated"), (len(CASES) - len(JOB_WIDE)) * 4 - 1 + len(JOB_WIDE))
            self.assertGreater(con.execute("SELECT count(*) FROM rocpd_queue_depth").fetchone()[0], 1000)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_hand_made_edges(self):
        """Two rpd v2 members: comm names in any case, a NUL before 'nccl' (LIKE stops there), a NULL name,
        barriers, NULL and reversed times, NULL gpus, a call without a start, an op without a call."""
        d = tempfile.mkdtemp(prefix="rocpd_whysql_edges_")
        try:
            for rank in range(2):
                write_rpd2(os.path.join(d, f"m{rank}.rpd"), 10 + rank, EDGE_OPS)
            con = connect(d)
            # No ranges: no sequences; no counters; launch latency once.
            self.assertEqual(self.compare(con, "edges"), (len(CASES) - 3) * 3 + 1)
            rows = con.execute("SELECT gpu, compute_ops, comm_ops FROM rocpd_comm_overlap WHERE db = 'm0'").fetchall()
            self.assertEqual(rows, [(None, 1, 0), (0, 9, 5), (1, 1, 1)])
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_launch_api_names(self):
        """Launch calls whose API names the tables read once per (API name id, marker arguments id): one
        API name with several arguments, roctx markers as launch calls (each message its own name), and
        API name ids that are dangling, NULL, text, real or a numeric text; the arguments of a marker
        call text or NULL."""
        d = tempfile.mkdtemp(prefix="rocpd_whysql_apinames_")
        try:
            for rank in range(2):
                con = sqlite3.connect(os.path.join(d, f"m{rank}.rpd"))
                con.executescript(RPD2_DDL)
                sid = string_ids(con)
                launch, marker = sid("hipLaunchKernel"), sid("UserMarker")
                calls = [  # (kernel, apiName_id, args_id)
                    ("k1", launch, sid("a1")), ("k1", launch, sid("a2")),
                    ("k2", marker, sid("msgA")), ("k2", marker, sid("msgB")), ("k2", marker, sid("msgA")),
                    ("k3", 99999, 1), ("k3", None, 1), ("k3", "abc", 1),
                    ("k4", 2.5, 1), ("k4", str(launch), 1),
                    ("k5", marker, "x"), ("k5", marker, None), ("k5", marker, 99999),
                ]
                for i, (kernel, api_name, args) in enumerate(calls):
                    t = 1000 * (i + 1)
                    api = con.execute("INSERT INTO rocpd_api(pid, tid, start, end, apiName_id, args_id) "
                                      "VALUES (?, ?, ?, ?, ?, ?)", (10 + rank, 10 + rank, t, t + 5, api_name,
                                                                    args)).lastrowid
                    op = con.execute("INSERT INTO rocpd_op(gpuId, queueId, sequenceId, completionSignal, start, end, "
                                     "description_id, opType_id) VALUES (0, 0, 0, '', ?, ?, ?, ?)",
                                     (t + 50 + i, t + 100, sid(kernel), sid("KernelExecution"))).lastrowid
                    con.execute("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", (api, op))
                con.commit()
                con.close()
            con = connect(d)
            self.compare(con, "api names")
            con.text_factory = str
            # By construction: the names of each kernel's launching calls.
            got = dict(con.execute("SELECT kernel, api_names FROM rocpd_launch_latency").fetchall())
            self.assertEqual(got, {"k1": "hipLaunchKernel", "k2": "msgA,msgB", "k3": None, "k4": "hipLaunchKernel",
                                   "k5": None})
            got = Counter(con.execute("SELECT name, api_name FROM rocpd_launch_stats WHERE db = 'm0'"))
            self.assertEqual(got, Counter([("k1", "hipLaunchKernel")] * 2 + [("k2", "msgA")] * 2 + [("k2", "msgB")] +
                                          [("k3", None)] * 3 + [("k4", None), ("k4", "hipLaunchKernel")] +
                                          [("k5", None)] * 3))
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_pattern_order_ties(self):
        """rocpd_kernel_sequences' own order against the reference's ORDER BY (SQLite's sort) where count,
        gpu_ns and operator tie, so that the patterns' texts decide: a pattern that is another's prefix,
        names with quotes, backslashes, control bytes, non-ASCII bytes, empty and NULL names."""
        d = tempfile.mkdtemp(prefix="rocpd_whysql_ties_")
        try:
            # (range name (None: NULL), [(op name (None: NULL), GPU duration)]): every occurrence's ops
            # last 10 ns in all, one per range.
            occurrences = [
                ("op", [("a", 10)]), ("op", [("a", 4), ("b", 6)]), ("op", [("a", 3), ("b", 3), ("c", 4)]),
                ("op", [('a"', 10)]), ("op", [("a\\", 10)]), ("op", [(None, 10)]), ("op", [("a", 5), (None, 5)]),
                ("op", [("\u00e9", 10)]), ("op", [("a\n", 10)]), ("op", [("a\x01", 10)]), ("op", [("", 10)]),
                ("op", [("b", 5)]), ("op", [("b", 5)]), ("op", [("ab", 10)]), ("Op", [("a", 10)]),
                (None, [("a", 10)]), (None, [("a", 4), ("b", 6)]), ("op", [("b", 5), ("a", 5)]),
            ]
            for rank in range(2):
                write_rpd2_ranges(os.path.join(d, f"m{rank}.rpd"), 10 + rank, occurrences)
            con = connect(d)
            cols = "db, operator, kernels, pattern, count, gpu_ns, range_ns"
            got = con.execute(f"SELECT {cols} FROM rocpd_kernel_sequences").fetchall()
            want = con.execute(f"SELECT {cols} FROM ref_kernel_sequences").fetchall()
            self.assertEqual(got, want)
            # The ties exist: one (db, count, gpu_ns, operator) holds most patterns.
            ties = con.execute("SELECT max(n) FROM (SELECT count(*) AS n FROM rocpd_kernel_sequences "
                               "GROUP BY db, count, gpu_ns, operator)").fetchone()[0]
            self.assertGreaterEqual(ties, 10)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_hostile_members(self):
        d = tempfile.mkdtemp(prefix="rocpd_whysql_hostile_")
        try:
            sets = hostile_fixtures.build(os.path.join(d, "hostile"))
            total = 0
            for name, path in sorted(sets.items()):
                total += self.compare(connect(path), name)
            self.assertGreaterEqual(total, 10)
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
