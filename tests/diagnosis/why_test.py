"""rocpd_kernel_counters, rocpd_launch_stats, rocpd_queue_depth and rocpd_kernel_sequences
(docs/diagnosis.md) on generated jobs: every row equals a brute-force computation in Python over
the rows of rocpd_ops / rocpd_apis / rocpd_counters, and counter totals equal the generator's
truth (run by /usr/bin/python3)."""
import bisect
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest
from collections import Counter, defaultdict

import diagnosis_test as dt  # brute-force stacks and launches (no tests run from it here)

EXT = os.environ.get("ROCPD_EXT", "")
GEN = os.environ.get("ROCPD_GEN", "")
dt.EXT = EXT

JOB = None  # (directory, truth)


def setUpModule():
    global JOB
    d = tempfile.mkdtemp(prefix="rocpd_why_")
    # rpd v2, rpd v3 (counters in rocpd_counter), rocprofv3 (counters per XCC in rocpd_pmc_event).
    subprocess.run([GEN, "--out", d, "--procs", "3", "--format", "mixed", "--ops", "3000", "--seed", "31",
                    "--markers", "400", "--diagnosis", "1", "--counters", "8", "--rpd-counters", "8"], check=True)
    with open(os.path.join(d, "truth.json")) as f:
        JOB = (d, json.load(f))


def tearDownModule():
    if JOB:
        shutil.rmtree(JOB[0], ignore_errors=True)


def connect(path=None):
    dt.JOB = JOB
    return dt.connect(path or JOB[0])


def rows_of(con, sql, args=()):
    cur = con.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def first_launches(apis):
    """(db, correlation_id) -> the launch call (earliest start, then api_id) as a dict, end as stored."""
    best = {}
    for db, pid, tid, domain, name, start, end, corr, api_id in apis:
        if corr is None or start is None:
            continue
        k = (db, corr)
        if k not in best or (start, api_id) < (best[k]["start"], best[k]["api_id"]):
            best[k] = dict(pid=pid, tid=tid, name=name, start=start, end=end, api_id=api_id)
    return best


def sql_and(a, b):
    """SQL's three-valued AND of two booleans or None, as 0, 1 or None."""
    if a is False or b is False:
        return 0
    if a is None or b is None:
        return None
    return 1


def apis_with_names(con):
    return con.execute('SELECT db, pid, tid, domain, name, start, "end", correlation_id, api_id FROM rocpd_apis').fetchall()


class KernelCounters(unittest.TestCase):
    def test_matches_brute_force_and_truth(self):
        con = connect()
        ops, apis = dt.load_rows(con)
        stacks = dt.brute_stacks(ops, apis)
        values = defaultdict(lambda: defaultdict(float))
        for db, pid, op_id, counter, value in con.execute("SELECT db, pid, op_id, counter, value FROM rocpd_counters"):
            if counter is not None:
                values[(db, pid, op_id)][counter] += value
        kernels = {(o[0], o[1], o[2]): o for o in ops if o[7] == "kernel"}
        rows = rows_of(con, "SELECT * FROM rocpd_kernel_counters_full")
        self.assertEqual(len(rows), len([k for k in values if k in kernels]))
        # The default view: the columns that fit 160 columns, the same rows in the same order.
        short = rows_of(con, "SELECT * FROM rocpd_kernel_counters")
        self.assertEqual(short, [{c: r[c] for c in ("db", "op_id", "kernel", "duration", "top_level", "bottom_level", "counters")} for r in rows])
        self.assertGreater(len(rows), 1000)
        for r in rows:
            k = (r["db"], r["pid"], r["op_id"])
            db, pid, op_id, corr, gpu, queue, stream, kind, name, start, end = kernels[k]
            self.assertEqual(json.loads(r["counters"]), dict(values[k]), k)
            self.assertEqual(r["n_counters"], len(values[k]))
            self.assertEqual((r["correlation_id"], r["gpu"], r["queue"], r["name"], r["start"], r["end"]),
                             (corr, gpu, queue, name, start, end))
            self.assertEqual((r["kernel"], r["demangled"]), con.execute(
                "SELECT rocpd_display_name(?1), demangle(?1)", (name,)).fetchone())
            self.assertEqual(r["duration"], end - start)
            want = stacks[(db, "kernel", op_id)][2]
            self.assertEqual((json.loads(r["stack"]), r["depth"]), (want, len(want)), k)
            self.assertEqual((r["top_level"], r["bottom_level"]), (want[0], want[-1]) if want else (None, None))
        # Per file, the counter totals equal the generator's (rpd v3 and rocprofv3 files hold counters).
        files = {f["db"]: f for f in JOB[1]["files"]}
        with_counters = [db for db, f in files.items() if "counter_sums" in f]
        self.assertEqual(len(with_counters), 2)
        for db in with_counters:
            sums = Counter()
            for r in rows:
                if r["db"] == db:
                    sums.update(json.loads(r["counters"]))
            self.assertEqual({k: int(v) for k, v in sums.items()}, files[db]["counter_sums"], db)
        # Stacks are present: counters can be attributed to operators.
        self.assertGreater(sum(1 for r in rows if r["depth"] > 0), 500)

    def test_docs_example_bandwidth(self):
        con = connect()
        got = con.execute(
            "SELECT sum(json_extract(counters, '$.FETCH_SIZE')) * 1024.0 / sum(duration) FROM rocpd_kernel_counters "
            "WHERE db = 'rank2'").fetchone()[0]
        fetch = sum(v for (db, c, v) in con.execute(
            "SELECT db, counter, value FROM rocpd_counters WHERE db = 'rank2'") if c == "FETCH_SIZE")
        spans = {(pid, op_id): e - s for pid, op_id, s, e in con.execute(
            "SELECT pid, op_id, start, \"end\" FROM rocpd_counters WHERE db = 'rank2'")}
        dur = sum(spans.values())
        self.assertGreater(got, 0)
        self.assertAlmostEqual(got, fetch * 1024.0 / dur, delta=got * 0.01)


# Every column of rocpd_launch_stats but the cutoffs; SELECT * shows DEFAULT_STATS only (160 columns).
STATS_COLUMNS = ('db, pid, tid, op_id, correlation_id, gpu, queue, stream, kind, name, api_name, launch_start, launch_end, '
                 'start, "end", cpu_ns, gpu_ns, launch_delay_ns, short_op, runtime_outlier, delay_outlier, graph_launch, '
                 'queue_delay_ns, other_delay_ns')
DEFAULT_STATS = ["db", "op_id", "gpu", "kind", "api_name", "cpu_ns", "gpu_ns", "launch_delay_ns", "queue_delay_ns",
                 "short_op", "runtime_outlier", "delay_outlier", "graph_launch"]


def brute_lane_free(rows):
    """rocpd_ops rows (rowid, db, gpu, queue, stream, start, end) -> rowid: the largest end among the ops
    ahead of it on its lane (those that start before it, then by rowid), None for a lane's first op."""
    lanes = defaultdict(list)
    for rowid, db, gpu, queue, stream, start, end in rows:
        if isinstance(start, int) and isinstance(end, int):
            lanes[(db, gpu, queue, stream)].append((start, rowid, end))
    out = {}
    for ops in lanes.values():
        ops.sort()
        ahead = None
        for start, rowid, end in ops:
            out[rowid] = ahead
            ahead = end if ahead is None else max(ahead, end)
    return out


class LaunchStats(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.load(cls.con)

    @classmethod
    def load(cls, con):
        cls.ops, cls.apis = dt.load_rows(con)
        cls.calls = first_launches(apis_with_names(con))
        cls.op_rowids = {(r[0], r[1], r[2], r[3]): r[4] for r in con.execute(
            "SELECT db, pid, kind, op_id, rowid FROM rocpd_ops")}
        cls.graph_ids = dict(con.execute("SELECT rowid, graph_id FROM rocpd_ops"))
        cls.lane_free = brute_lane_free(con.execute(
            "SELECT rowid, db, gpu, queue, stream, start, \"end\" FROM rocpd_ops").fetchall())

    def expected(self, runtime_cutoff, delay_cutoff):
        out = {}
        for db, pid, op_id, corr, gpu, queue, stream, kind, name, start, end in self.ops:
            c = self.calls.get((db, corr))
            if c is None:
                continue
            rowid = self.op_rowids[(db, pid, kind, op_id)]
            cpu = c["end"] - c["start"] if c["end"] is not None else None
            gpu_ns = end - start if start is not None and end is not None else None
            delay = start - c["end"] if start is not None and c["end"] is not None else None
            short = sql_and(None if cpu is None else cpu <= runtime_cutoff,
                            None if cpu is None or gpu_ns is None else gpu_ns < cpu)
            graph = int(str(c["name"]).startswith(("hipGraphLaunch", "cudaGraphLaunch"))
                        or self.graph_ids[rowid] is not None)
            free = self.lane_free.get(rowid)
            queued = None if delay is None else 0 if free is None else max(0, min(start, free) - c["end"])
            out[rowid] = dict(
                db=db, pid=c["pid"], tid=c["tid"], op_id=op_id, correlation_id=corr, gpu=gpu, queue=queue,
                stream=stream, kind=kind, name=name, api_name=c["name"], launch_start=c["start"],
                launch_end=c["end"], start=start, end=end, cpu_ns=cpu, gpu_ns=gpu_ns, launch_delay_ns=delay,
                short_op=0 if graph else short,
                runtime_outlier=0 if graph else None if cpu is None else int(cpu > runtime_cutoff),
                delay_outlier=None if delay is None else int(delay > delay_cutoff),
                graph_launch=graph, queue_delay_ns=queued, other_delay_ns=None if delay is None else delay - queued)
        return out

    def check(self, rows, runtime_cutoff, delay_cutoff):
        self.check_against(self.expected(runtime_cutoff, delay_cutoff), rows, runtime_cutoff, delay_cutoff)

    def check_against(self, want, rows, runtime_cutoff, delay_cutoff):
        self.assertEqual(len(rows), len(want))
        for r in rows:
            rowid = r.pop("rowid")
            self.assertEqual(r.pop("runtime_cutoff_ns"), runtime_cutoff)
            self.assertEqual(r.pop("launch_delay_cutoff_ns"), delay_cutoff)
            self.assertEqual(r, want[rowid], rowid)

    def test_defaults_match_brute_force(self):
        rows = rows_of(self.con, f"SELECT rowid, {STATS_COLUMNS}, runtime_cutoff_ns, launch_delay_cutoff_ns "
                                 "FROM rocpd_launch_stats")
        self.check(rows, 50000, 100000)
        # HTA's three findings all occur in the generated job, and ops queued behind others.
        for flag in ("short_op", "runtime_outlier", "delay_outlier", "queue_delay_ns", "other_delay_ns"):
            self.assertGreater(sum(r[flag] or 0 for r in rows), 0, flag)

    def test_graph_launches_and_queueing(self):
        # rocprofv3 3.0.2 files record graph launches (graph_id on their ops, hipGraphLaunch calls),
        # and so do the rpd files of the same workload (hipGraphLaunch calls linked to several ops).
        d = tempfile.mkdtemp(prefix="rocpd_graphs_")
        try:
            subprocess.run([GEN, "--out", d, "--procs", "3", "--format", "mixed", "--ops", "2500", "--seed", "8",
                            "--rocpd-version", "3.0.2"], check=True, stdout=subprocess.DEVNULL)
            con = dt.connect(d)

            class Graphs(LaunchStats):
                pass
            Graphs.load(con)
            rows = rows_of(con, f"SELECT rowid, {STATS_COLUMNS}, runtime_cutoff_ns, launch_delay_cutoff_ns "
                                f"FROM rocpd_launch_stats(0, 0)")
            self.check_against(Graphs().expected(0, 0), rows, 0, 0)
            graph = [r for r in rows if r["graph_launch"]]
            self.assertGreater(len(graph), 300)
            self.assertEqual({r["db"] for r in graph}, {"rank0", "rank1", "rank2"})
            # With a 0 ns cutoff every other launch is slow; a graph's ops never are.
            self.assertTrue(all(r["runtime_outlier"] == 0 and r["short_op"] == 0 for r in graph))
            self.assertTrue(all(r["runtime_outlier"] == 1 for r in rows if not r["graph_launch"] and r["cpu_ns"] > 0))
            # The nodes of a graph wait behind the earlier ones on their queue.
            self.assertGreater(sum(r["queue_delay_ns"] for r in graph), sum(r["other_delay_ns"] for r in graph))
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_cutoffs(self):
        for rc, dc in ((0, 0), (10000, 20000), (10**12, -(10**12))):
            rows = rows_of(self.con, f"SELECT rowid, {STATS_COLUMNS}, runtime_cutoff_ns, launch_delay_cutoff_ns "
                                     "FROM rocpd_launch_stats(?, ?)", (rc, dc))
            self.check(rows, rc, dc)
        rows = rows_of(self.con, f"SELECT rowid, {STATS_COLUMNS}, runtime_cutoff_ns, launch_delay_cutoff_ns FROM rocpd_launch_stats "
                                 "WHERE launch_delay_cutoff_ns = 5000 AND db = 'rank1'")
        want = self.expected(50000, 5000)
        self.assertEqual(len(rows), sum(1 for w in want.values() if w["db"] == "rank1"))
        for r in rows:
            rowid = r.pop("rowid")
            r.pop("runtime_cutoff_ns"), r.pop("launch_delay_cutoff_ns")
            self.assertEqual(r, want[rowid])

    def test_default_columns(self):
        cur = self.con.execute("SELECT * FROM rocpd_launch_stats(1000, 2000) LIMIT 1")
        self.assertEqual([d[0] for d in cur.description], DEFAULT_STATS)
        # The arguments are still the first hidden columns (a table-valued call binds them).
        self.assertEqual(self.con.execute("SELECT runtime_cutoff_ns, launch_delay_cutoff_ns FROM rocpd_launch_stats(1000, 2000) "
                                          "LIMIT 1").fetchone(), (1000, 2000))
        full = rows_of(self.con, f"SELECT rowid, {STATS_COLUMNS} FROM rocpd_launch_stats WHERE db = 'rank1'")
        short = rows_of(self.con, "SELECT rowid, * FROM rocpd_launch_stats WHERE db = 'rank1'")
        self.assertEqual(short, [{c: r[c] for c in ["rowid"] + DEFAULT_STATS} for r in full])

    def test_plain_table_behaviour(self):
        rows = self.con.execute("SELECT rowid, db, op_id, kind FROM rocpd_launch_stats").fetchall()
        self.assertEqual(len({r[0] for r in rows}), len(rows))
        n = self.con.execute("SELECT count(*) FROM rocpd_launch_stats WHERE db = 'rank0' OR kind = 'copy'").fetchone()[0]
        self.assertEqual(n, sum(1 for r in rows if r[1] == "rank0" or r[3] == "copy"))
        n = self.con.execute("SELECT count(*) FROM rocpd_launch_stats WHERE db = 'rank0' AND db = 'rank1'").fetchone()[0]
        self.assertEqual(n, 0)
        n = self.con.execute("SELECT count(*) FROM rocpd_launch_stats WHERE runtime_cutoff_ns = 1 "
                             "AND runtime_cutoff_ns = 2").fetchone()[0]
        self.assertEqual(n, 0)
        n = self.con.execute("SELECT count(*) FROM rocpd_launch_stats WHERE db = 'RANK0' COLLATE NOCASE").fetchone()[0]
        self.assertEqual(n, sum(1 for r in rows if r[1] == "rank0"))
        n = self.con.execute("SELECT count(*) FROM rocpd_launch_stats s JOIN rocpd_ops o ON o.rowid = s.rowid "
                             "WHERE s.db = 'rank2' AND o.op_id = s.op_id AND o.kind = s.kind").fetchone()[0]
        self.assertEqual(n, sum(1 for r in rows if r[1] == "rank2"))

    def test_errors(self):
        for sql, msg in (("SELECT * FROM rocpd_launch_stats(-1)", "rocpd_launch_stats: runtime_cutoff_ns must be >= 0, got -1"),
                         ("SELECT * FROM rocpd_launch_stats('x')",
                          "rocpd_launch_stats: runtime_cutoff_ns must be an integer (ns), got text 'x'"),
                         ("SELECT * FROM rocpd_launch_stats(1, 2.5)",
                          "rocpd_launch_stats: launch_delay_cutoff_ns must be an integer (ns), got real 2.5")):
            with self.assertRaises(sqlite3.Error) as e:
                self.con.execute(sql).fetchall()
            self.assertEqual(str(e.exception), msg)


def brute_depth(events):
    """events: [(launch, start, end)] of one lane -> [(ts, depth, waiting)] at every instant."""
    launches = sorted(e[0] for e in events)
    starts = sorted(e[1] for e in events)
    ends = sorted(e[2] for e in events)
    out = []
    for ts in sorted({t for e in events for t in e}):
        launched = bisect.bisect_right(launches, ts)
        out.append((ts, launched - bisect.bisect_right(ends, ts), launched - bisect.bisect_right(starts, ts)))
    return out


class QueueDepth(unittest.TestCase):
    def test_matches_brute_force(self):
        con = connect()
        ops, apis = dt.load_rows(con)
        calls = first_launches(apis_with_names(con))
        lanes = defaultdict(list)
        for db, pid, op_id, corr, gpu, queue, stream, kind, name, start, end in ops:
            c = calls.get((db, corr))
            if c is None or start is None or end is None:
                continue
            self.assertLessEqual(c["start"], start)  # the generator launches before the op starts
            lanes[(db, gpu, queue, stream)].append((c["start"], start, end))
        got = defaultdict(list)
        for db, gpu, queue, stream, ts, depth, waiting, duration in con.execute(
                "SELECT db, gpu, queue, stream, ts, depth, waiting, duration FROM rocpd_queue_depth"):
            got[(db, gpu, queue, stream)].append((ts, depth, waiting, duration))
        self.assertEqual(set(got), set(lanes))
        deepest = 0
        for lane, events in lanes.items():
            want = brute_depth(events)
            rows = sorted(got[lane])
            self.assertEqual([r[:3] for r in rows], want, lane)
            self.assertEqual([r[3] for r in rows], [b[0] - a[0] for a, b in zip(want, want[1:])] + [None])
            self.assertEqual(want[-1][1:], (0, 0))
            deepest = max(deepest, max(w[1] for w in want))
        # A few lanes by the definition itself: count the ops launched and not finished at each instant.
        for lane in sorted(lanes, key=str)[:3]:
            for ts, depth, waiting, _ in got[lane]:
                self.assertEqual(depth, sum(1 for l, s, e in lanes[lane] if l <= ts < e))
                self.assertEqual(waiting, sum(1 for l, s, e in lanes[lane] if l <= ts < s))
        self.assertGreater(deepest, 3)  # launches run ahead of the GPU by construction


def brute_sequences(ops, apis):
    """{(db, operator, pattern tuple): [count, gpu_ns, range_ns]} by the definition."""
    ranges = defaultdict(list)
    for db, pid, tid, domain, name, start, end, corr, api_id in apis:
        if domain == "marker" and start is not None and end is not None and end > start:
            ranges[(db, pid, tid)].append((start, end, api_id, name))
    calls = dt.launches(apis)
    occ = defaultdict(list)
    for db, pid, op_id, corr, gpu, queue, stream, kind, name, start, end in ops:
        if kind not in ("kernel", "copy"):
            continue
        call = calls.get((db, corr))
        if call is None:
            continue
        cs, ce, tid, _, call_pid = call
        ce = max(ce, cs)
        enclosing = sorted((r for r in ranges[(db, call_pid, tid)] if r[0] <= cs and ce <= r[1]),
                           key=lambda r: (r[0], -r[1], r[2]))
        if enclosing:
            occ[(db, call_pid, tid, enclosing[-1])].append((start, op_id, name, end - start))
    out = defaultdict(lambda: [0, 0, 0])
    for (db, pid, tid, rng), items in occ.items():
        items.sort(key=lambda x: (x[0], x[1]))
        k = (db, rng[3], tuple(x[2] for x in items))
        out[k][0] += 1
        out[k][1] += sum(x[3] for x in items)
        out[k][2] += rng[1] - rng[0]
    return out


class KernelSequences(unittest.TestCase):
    def test_matches_brute_force(self):
        con = connect()
        ops, apis = dt.load_rows(con)
        want = brute_sequences(ops, apis)
        rows = rows_of(con, "SELECT * FROM rocpd_kernel_sequences")
        got = {}
        for r in rows:
            pattern = tuple(json.loads(r["pattern"]))
            self.assertEqual(r["kernels"], len(pattern))
            got[(r["db"], r["operator"], pattern)] = [r["count"], r["gpu_ns"], r["range_ns"]]
        self.assertEqual(got, dict(want))
        # Ordered per db by count, then gpu_ns, descending.
        for db in {r["db"] for r in rows}:
            keys = [(r["count"], r["gpu_ns"]) for r in rows if r["db"] == db]
            self.assertEqual(keys, sorted(keys, reverse=True))
        self.assertEqual([r["db"] for r in rows], sorted(r["db"] for r in rows))
        # Repeated patterns and patterns of several kernels exist by construction.
        self.assertTrue(any(r["count"] > 1 for r in rows))
        self.assertTrue(any(r["kernels"] >= 2 for r in rows))
        self.assertTrue(any(r["kernels"] >= 3 for r in rows))


class OtherLayouts(unittest.TestCase):
    """rocpd 4.x and rocprofiler-systems files: launch statistics, queue depth and sequences."""

    def test_rocpd4_and_rocprofsys(self):
        for fmt in ("rocpd4", "rocprofsys"):
            d = os.path.join(JOB[0], fmt)
            subprocess.run([GEN, "--out", d, "--procs", "1", "--format", fmt, "--ops", "1200", "--seed", "37",
                            "--markers", "200", "--diagnosis", "1"], check=True)
            con = connect(d)
            ops, apis = dt.load_rows(con)
            calls = first_launches(apis_with_names(con))
            n = con.execute("SELECT count(*) FROM rocpd_launch_stats").fetchone()[0]
            self.assertEqual(n, sum(1 for o in ops if (o[0], o[3]) in calls), fmt)
            got = {(r[0], r[1], tuple(json.loads(r[2]))): [r[3], r[4], r[5]] for r in con.execute(
                "SELECT db, operator, pattern, count, gpu_ns, range_ns FROM rocpd_kernel_sequences")}
            self.assertEqual(got, dict(brute_sequences(ops, apis)), fmt)
            self.assertGreater(len(got), 10, fmt)
            total = con.execute("SELECT count(*), max(depth) FROM rocpd_queue_depth").fetchone()
            self.assertGreater(total[0], 0, fmt)


class GeneratorOption(unittest.TestCase):
    def test_rpd_counters_needs_rpd3(self):
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([GEN, "--out", d, "--procs", "1", "--format", "rpd2", "--ops", "10", "--seed", "1",
                                "--rpd-counters", "2"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr.splitlines()[0],
                             "rocpd_gen: option --rpd-counters applies to rpd3 files only (--format rpd3 or mixed)")


if __name__ == "__main__":
    unittest.main()
