"""rocpd_export_trace: the exported Chrome trace JSON holds exactly the window's ops and API calls.

Expected rows come from independent SQL over the member files (raw rpd / rocpd tables through
Python's sqlite3, no extension), compared with the events of the file loaded by json.
"""
import bisect
import collections
import glob
import gzip
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, SHARED_DATA, ChecksumGuard, connect, generate, main  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from names_truth import DEMANGLED  # noqa: E402

MATMUL = os.path.join(SHARED_DATA, "matmul_result.rpd")
OP_KINDS = {"kernel", "copy", "barrier", "fill", "other"}


def overlaps_sql(lo, hi, s='start', e='"end"'):
    """The window predicate of docs/export.md, as SQL over raw columns."""
    cond = ["1"]
    if hi is not None:
        cond.append(f"{s} < {int(hi)}")
    if lo is not None:
        cond.append(f"({e} > {int(lo)} OR {s} >= {int(lo)})")
    return " AND ".join(cond)


def raw_rows(path, lo, hi, names=DEMANGLED):
    """Independent brute force: (ops, apis, flows) of one member file in [lo, hi).

    ops: Counter of (start, end, name or None) (names as the export shows them by default: `names`
    of the recorded name, the op type when there is none); apis: Counter of (tid, start, end);
    flows: Counter of ((api start, api end), (op start, op end)). rocpd files give no names.
    """
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    ops, apis, flows = collections.Counter(), collections.Counter(), collections.Counter()
    if "rocpd_op" in tables:
        w_op = overlaps_sql(lo, hi, "o.start", 'o."end"')
        rows = con.execute(
            "SELECT o.start, o.\"end\", d.string, t.string FROM rocpd_op o "
            "LEFT JOIN rocpd_string d ON d.id = o.description_id "
            f"LEFT JOIN rocpd_string t ON t.id = o.opType_id WHERE {w_op}").fetchall()
        if hasattr(names, "prime"):
            names.prime(desc for _, _, desc, _ in rows)
        for s, e, desc, optype in rows:
            ops[(s, e, names(desc) if desc else optype)] += 1
        for tid, s, e in con.execute(f"SELECT tid, start, \"end\" FROM rocpd_api WHERE {overlaps_sql(lo, hi)}"):
            apis[(tid, s, e)] += 1
        w_api = overlaps_sql(lo, hi, "a.start", 'a."end"')
        seen = set()
        for op_id, a_s, a_e, o_s, o_e in con.execute(
                "SELECT o.id, a.start, a.\"end\", o.start, o.\"end\" FROM rocpd_api_ops l "
                "JOIN rocpd_api a ON a.id = l.api_id JOIN rocpd_op o ON o.id = l.op_id "
                f"WHERE {w_op} AND {w_api} ORDER BY l.op_id, l.api_id"):
            if op_id not in seen:  # an op linked twice: its first launch
                seen.add(op_id)
                flows[((a_s, a_e), (o_s, o_e))] += 1
    else:
        for t in sorted(tables):
            if t.startswith(("rocpd_kernel_dispatch_", "rocpd_memory_copy_")):
                for s, e in con.execute(f'SELECT start, "end" FROM "{t}" WHERE {overlaps_sql(lo, hi)}'):
                    ops[(s, e, None)] += 1
            elif t.startswith("rocpd_region_"):
                th = "rocpd_info_thread_" + t[len("rocpd_region_"):]
                for tid, s, e in con.execute(f'SELECT h.tid, r.start, r."end" FROM "{t}" r JOIN "{th}" h ON h.id = r.tid '
                                             f'WHERE {overlaps_sql(lo, hi, "r.start", "r.end")}'):
                    apis[(tid, s, e)] += 1
            elif t.startswith("rocpd_sample_"):
                for (ts,) in con.execute(f'SELECT timestamp FROM "{t}" WHERE {overlaps_sql(lo, hi, "timestamp", "timestamp")}'):
                    apis[(None, ts, ts)] += 1
        flows = None
    con.close()
    return ops, apis, flows


def ns(us_value):
    return round(us_value * 1000)


class Exported:
    """The events of an exported file, by member."""

    def __init__(self, doc):
        self.doc = doc
        ev = doc["traceEvents"]
        self.events = ev
        self.proc_name = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
        self.thread_name = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
                            if e["ph"] == "M" and e["name"] == "thread_name"}
        self.ops = collections.defaultdict(collections.Counter)
        self.apis = collections.defaultdict(collections.Counter)
        self.slices = {}  # (pid, tid) -> list of (start, end)
        for e in ev:
            if e["ph"] not in ("X", "i"):
                continue
            db = self.proc_name[e["pid"]].split(" pid ")[0]
            s = ns(e["ts"])
            end = s + ns(e["dur"]) if e["ph"] == "X" else s
            if "recorded_dur_ns" in e["args"]:  # a zero-length op ending an arrow: written 1 ns long
                assert e["ph"] == "X" and ns(e["dur"]) == 1 and e["args"]["recorded_dur_ns"] == 0, e
                end = s
            tname = self.thread_name[(e["pid"], e["tid"])]
            self.slices.setdefault((e["pid"], e["tid"]), []).append((s, end))
            if tname.startswith("GPU "):
                assert e["cat"] in OP_KINDS, e
                self.ops[db][(s, end, e["name"])] += 1
            else:
                assert tname.startswith("thread "), tname
                self.apis[db][(int(tname.split()[1]), s, end)] += 1
        self.flows = collections.defaultdict(dict)
        for e in ev:
            if e["ph"] in ("s", "f"):
                self.flows[e["id"]][e["ph"]] = e

    def flow_pairs(self):
        """Counter per db of ((api start, end), (op start, end)) the arrows bind (computed once)."""
        if not hasattr(self, "_flow_pairs"):
            self._flow_pairs = self.compute_flow_pairs()
        return self._flow_pairs

    def compute_flow_pairs(self):
        out = collections.defaultdict(collections.Counter)
        by_thread = {k: sorted(v) for k, v in self.slices.items()}
        op_at = {(k, x[0]): x for k, v in self.slices.items() for x in v}
        longest = max((x[1] - x[0] for v in self.slices.values() for x in v), default=0)
        for fid, pair in self.flows.items():
            s, f = pair["s"], pair["f"]
            s_ts, f_ts = ns(s["ts"]), ns(f["ts"])
            # "s" binds to the API slice enclosing its ts on its thread; "f" (bp=e) to the op starting at ts.
            lst = by_thread[(s["pid"], s["tid"])]
            i = bisect.bisect_right(lst, (s_ts, float("inf")))
            api = []
            while i > 0 and lst[i - 1][0] >= s_ts - longest:
                i -= 1
                if lst[i][0] <= s_ts <= lst[i][1]:
                    api.append(lst[i])
            op = [op_at[((f["pid"], f["tid"]), f_ts)]] if ((f["pid"], f["tid"]), f_ts) in op_at else []
            assert api and op, (s, f)
            db = self.proc_name[f["pid"]].split(" pid ")[0]
            out[db][(min(api, key=lambda x: x[1] - x[0]), op[0])] += 1
        return out


def members_of(con):
    return {db: path for db, path in con.execute("SELECT db, path FROM rocpd_members")}


class ExportTest(ChecksumGuard):
    watched = sorted(glob.glob(os.path.join(SETS, "mixed8", "rank*")) + glob.glob(os.path.join(SETS, "same_rpd3", "rank*")))

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()
        super().tearDown()

    def export(self, con, name, *args):
        path = os.path.join(self.tmp.name, name)
        n = con.execute(f"SELECT rocpd_export_trace({', '.join('?' * (1 + len(args)))})", (path, *args)).fetchone()[0]
        opener = gzip.open if name.lower().endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(n, len(doc["traceEvents"]))
        return Exported(doc), path

    def check_exact(self, con, got, lo, hi, names_for_rpd=True):
        for db, path in members_of(con).items():
            ops, apis, flows = raw_rows(path, lo, hi)
            got_ops = got.ops.get(db, collections.Counter())
            if flows is None or not names_for_rpd:  # rocpd: times only
                got_ops = collections.Counter({(s, e, None): c for (s, e, _), c in got_ops.items()})
                got_ops = collections.Counter()
                for (s, e, _), c in got.ops.get(db, {}).items():
                    got_ops[(s, e, None)] += c
            # Exported zero-length and reversed rows are instants: compare their end as the start.
            exp_ops = collections.Counter()
            for (s, e, name), c in ops.items():
                exp_ops[(s, e if e > s else s, name)] += c
            self.assertEqual(got_ops, exp_ops, f"ops of {db}")
            exp_apis = collections.Counter()
            for (tid, s, e), c in apis.items():
                exp_apis[(tid, s, e if e > s else s)] += c
            got_apis = got.apis.get(db, collections.Counter())
            if any(t is None for t, _, _ in exp_apis):  # rocpd samples: thread not compared
                got_apis = collections.Counter({(None, s, e) if s == e else (t, s, e): c for (t, s, e), c in got_apis.items()})
                merged = collections.Counter()
                for (t, s, e), c in exp_apis.items():
                    merged[(None, s, e) if s == e else (t, s, e)] += c
                exp_apis = merged
            self.assertEqual(got_apis, exp_apis, f"API calls of {db}")
            if flows is not None:
                exp_flows = collections.Counter()
                for (a, o), c in flows.items():
                    exp_flows[((a[0], max(a)), (o[0], max(o)))] += c
                self.assertEqual(got.flow_pairs().get(db, collections.Counter()), exp_flows, f"flows of {db}")
        self.assertEqual(got.doc["otherData"]["ops"], sum(sum(c.values()) for c in got.ops.values()))
        ExportTest.check_gpu_tracks_disjoint(self, got)  # also called with a RealTraceTest

    def check_gpu_tracks_disjoint(self, got):
        """The slices of each GPU track neither cross nor nest (Perfetto drops a slice that starts
        inside another of its track and ends after it): overlapping ops sit on overlap lanes."""
        for (pid, tid), spans in got.slices.items():
            if not got.thread_name[(pid, tid)].startswith("GPU "):
                continue
            ordered = sorted((s, e) for s, e in spans if e > s)
            for (s0, e0), (s1, e1) in zip(ordered, ordered[1:]):
                self.assertLessEqual(e0, s1, f"{got.thread_name[(pid, tid)]}: [{s0}, {e0}) and [{s1}, {e1}) overlap")

    def check_utilization(self, con, got, lo, hi, buckets=1000):
        """The counter samples equal rocpd_utilization's rows (another implementation: its own
        read of the members through rocpd_ops) plus a 0 at each gpu's last bucket end."""
        exp = collections.Counter()
        where = "buckets = ?" + (" AND lo = ?" if lo is not None else "") + (" AND hi = ?" if hi is not None else "")
        params = [buckets] + [v for v in (lo, hi) if v is not None]
        dbs = {n.split(" pid ")[0] for n in got.proc_name.values()}
        last = {}
        for db, gpu, b_start, b_end, u in con.execute(
                f"SELECT db, gpu, bucket_start, bucket_end, utilization FROM rocpd_utilization WHERE {where}", params):
            if db in dbs:
                exp[(db, gpu, b_start, u)] += 1
                last[(db, gpu)] = max(last.get((db, gpu), b_end), b_end)
        for (db, gpu), end in last.items():
            exp[(db, gpu, end, 0.0)] += 1
        counters = collections.Counter()
        for e in got.events:
            if e["ph"] == "C":
                gpu = e["name"].split()[1]
                counters[(self.proc_name_db(got, e["pid"]), None if gpu == "?" else int(gpu), ns(e["ts"]),
                          e["args"]["utilization"])] += 1
        self.assertTrue(exp)
        self.assertEqual(counters, exp)

    @staticmethod
    def proc_name_db(got, pid):
        return got.proc_name[pid].split(" pid ")[0]

    def check_names(self, con, got):
        used = {(e["pid"], e["tid"]) for e in got.events if e["ph"] in ("X", "i", "s", "f")}
        self.assertTrue(used <= set(got.thread_name), used - set(got.thread_name))
        hosts = dict(con.execute("SELECT db, hostname FROM rocpd_members"))
        for pid, name in got.proc_name.items():
            db = name.split(" pid ")[0]
            host = f" \\({hosts[db]}\\)" if hosts[db] else ""
            self.assertRegex(name, rf"^{db} pid \d+{host}$")
        # Every tid is unique in the file (viewers key threads by tid).
        tids = [t for (_, t) in got.thread_name]
        self.assertEqual(len(tids), len(set(tids)))

    def job_span(self, con):
        return con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()

    def test_window_of_generated_rpd_job(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "same_rpd3"),))
        first, last = self.job_span(con)
        lo, hi = first + (last - first) * 2 // 5, first + (last - first) * 3 // 5
        got, _ = self.export(con, "w.json", lo, hi)
        self.assertGreater(len(got.flows), 100)
        self.check_exact(con, got, lo, hi)
        self.check_names(con, got)
        counters = [e for e in got.events if e["ph"] == "C"]
        self.assertTrue(counters)
        self.assertTrue(all(0 <= e["args"]["utilization"] <= 1 for e in counters))
        self.assertTrue(all(lo / 1000 <= e["ts"] <= hi / 1000 for e in counters))
        self.check_utilization(con, got, lo, hi)

    def test_one_fresh_file_whole_and_interrupted(self):
        # One opened file whose profile is not known yet: the export computes it beside the read of
        # the API calls (export/profile_ahead.h) and formats on a second thread (export/row_pipe.h).
        gen_dir = os.path.join(self.tmp.name, "gen")
        generate(gen_dir, 1, "rpd3", 60000, 5)
        (rpd,) = glob.glob(os.path.join(gen_dir, "*.rpd"))
        con = connect()
        con.execute("SELECT rocpd_open(?)", (rpd,))
        got, _ = self.export(con, "one.json")
        self.check_exact(con, got, None, None)
        self.check_names(con, got)
        self.check_utilization(con, got, None, None)
        # A window of it, on a fresh connection: the profile is computed beside the window's calls.
        first, last = self.job_span(con)
        lo, hi = first + (last - first) // 3, first + (last - first) // 2
        con = connect()
        con.execute("SELECT rocpd_open(?)", (rpd,))
        window, _ = self.export(con, "window.json", lo, hi)
        self.check_exact(con, window, lo, hi)
        # Interrupted at several moments (while the profile runs, while rows are formatted): the
        # plain "interrupted" error within 0.5 s and no file; the connection exports again after it.
        out = os.path.join(self.tmp.name, "cut.json")
        stopped = 0
        for delay, bounds, expected in ((0.002, (), got), (0.01, (), got), (0.03, (), got), (0.08, (), got),
                                        (0.002, (lo, hi), window), (0.02, (lo, hi), window)):
            con = connect()
            con.execute("SELECT rocpd_open(?)", (rpd,))
            call = f"SELECT rocpd_export_trace({', '.join('?' * (1 + len(bounds)))})"
            timer = threading.Timer(delay, con.interrupt)
            t0 = time.perf_counter()
            timer.start()
            try:
                con.execute(call, (out, *bounds)).fetchone()
            except sqlite3.OperationalError as e:
                self.assertEqual(str(e), "interrupted")
                self.assertLess(time.perf_counter() - t0, delay + 0.5 * float(os.environ.get("ROCPD_TIMING_SCALE", "1")))
                self.assertFalse(os.path.exists(out))
                stopped += 1
            timer.join()
            if os.path.exists(out):
                os.remove(out)
            self.assertEqual(con.execute(call, (out, *bounds)).fetchone()[0], len(expected.events))
            os.remove(out)
        self.assertGreater(stopped, 0)

    def test_attached_member_read_as_the_host_reads_it(self):
        # An attached member is read on a private connection of its file (Registry::shadow) only when
        # that reads what the host reads: not inside a transaction of the user's.
        gen_dir = os.path.join(self.tmp.name, "gen_w")
        generate(gen_dir, 1, "rpd3", 40000, 9)
        (path,) = glob.glob(os.path.join(gen_dir, "*.rpd"))
        # Files from 4 MB on get the private connection (export/trace_export.cpp, kHelpersFromBytes).
        self.assertGreater(os.path.getsize(path), 4 << 20)
        con = connect()
        con.execute("ATTACH ? AS w", (path,))
        con.execute("PRAGMA w.journal_mode = WAL").fetchone()
        got, _ = self.export(con, "plain.json")
        self.check_exact(con, got, None, None)
        extra_id = 10**9

        def exported_ids(name):
            doc, _ = self.export(con, name)
            return {e["args"].get("correlation_id") for e in doc.events if e["ph"] in ("X", "i")
                    and e.get("cat") not in OP_KINDS}

        def add_call(c):
            c.execute("CREATE TEMP TABLE IF NOT EXISTS one AS SELECT * FROM w.rocpd_api LIMIT 1")
            c.execute("UPDATE one SET id = ?", (extra_id,))
            c.execute("INSERT INTO w.rocpd_api SELECT * FROM one")

        # The user's uncommitted change: the export shows it, as a query of the host would.
        con.execute("BEGIN")
        add_call(con)
        self.assertTrue(extra_id in exported_ids("uncommitted.json"), "the uncommitted call is missing")
        con.execute("ROLLBACK")
        self.assertFalse(extra_id in exported_ids("rolled_back.json"), "the rolled back call is shown")
        # The user's read snapshot: a commit by another connection after it began is not shown.
        con.execute("BEGIN")
        con.execute("SELECT count(*) FROM w.rocpd_api").fetchone()
        other = sqlite3.connect(path)
        other.execute("ATTACH ? AS w", (path,))
        add_call(other)
        other.commit()
        other.close()
        self.assertFalse(extra_id in exported_ids("snapshot.json"), "a call committed after the snapshot is shown")
        con.execute("COMMIT")
        self.assertTrue(extra_id in exported_ids("after_commit.json"), "the committed call is missing")

    def test_window_finds_rows_ending_before_they_start(self):
        # A window reads rows whose end reaches it, then rows starting in it whose end is missing or
        # earlier: the second pass, made only when the member's profile counted such rows or when
        # the user's transaction may hold them.
        gen_dir = os.path.join(self.tmp.name, "gen_rev")
        generate(gen_dir, 1, "rpd2", 4000, 21)
        (path,) = glob.glob(os.path.join(gen_dir, "*.rpd"))
        raw = sqlite3.connect(path)
        first, last = raw.execute('SELECT min(start), max("end") FROM rocpd_api').fetchone()
        lo, hi = first + (last - first) * 2 // 5, first + (last - first) * 3 // 5

        def reverse_one(c, table):
            """The first row of `table` starting in the window now ends before it; its (start, end)."""
            rid, start = c.execute(f"SELECT id, start FROM {table} WHERE start >= ? AND start < ? ORDER BY start "
                                   "LIMIT 1", (lo, hi)).fetchone()
            c.execute(f'UPDATE {table} SET "end" = ? WHERE id = ?', (lo - 7, rid))
            return start

        # No such rows: the profile says so, one pass per table.
        con = connect()
        con.execute("ATTACH ? AS w", (path,))
        got, _ = self.export(con, "clean.json", lo, hi)
        self.check_exact(con, got, lo, hi)
        # Inside the user's transaction, uncommitted: the profile of the file cannot know them.
        con.execute("BEGIN")
        op_start, api_start = reverse_one(con, "w.rocpd_op"), reverse_one(con, "w.rocpd_api")
        got, _ = self.export(con, "uncommitted.json", lo, hi)
        self.assertTrue(any(s == op_start and e == op_start for s, e, _ in got.ops["w"]), "the reversed op is missing")
        self.assertTrue(any(s == api_start and e == api_start for _, s, e in got.apis["w"]), "the reversed call is missing")
        con.execute("ROLLBACK")
        con.close()
        # Committed: a fresh profile counts them.
        op_start, api_start = reverse_one(raw, "rocpd_op"), reverse_one(raw, "rocpd_api")
        raw.commit()
        raw.close()
        for how in ("attach", "open"):
            con = connect()
            if how == "attach":
                con.execute("ATTACH ? AS w", (path,))
            else:
                con.execute("SELECT rocpd_open(?)", (path,)).fetchone()
            db = con.execute("SELECT db FROM rocpd_members").fetchone()[0]
            got, _ = self.export(con, f"{how}.json", lo, hi)
            self.check_exact(con, got, lo, hi)
            self.assertIn((op_start, op_start), {(s, e) for s, e, _ in got.ops[db]}, how)
            self.assertIn((api_start, api_start), {(s, e) for _, s, e in got.apis[db]}, how)
            con.close()

    def test_overlapping_ops_of_a_queue_go_to_overlap_lanes(self):
        gen_dir = os.path.join(self.tmp.name, "gen_lanes")
        generate(gen_dir, 1, "rpd2", 3000, 23)
        (path,) = glob.glob(os.path.join(gen_dir, "*.rpd"))
        raw = sqlite3.connect(path)
        # Three consecutive ops of one queue: the first now ends after the second starts (they
        # cross), and the third starts inside the first and ends before it (nested in it).
        rows = raw.execute('SELECT id, start, "end" FROM rocpd_op WHERE (gpuId, queueId) = '
                           '(SELECT gpuId, queueId FROM rocpd_op GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1) '
                           'AND "end" > start ORDER BY start LIMIT 3 OFFSET 100').fetchall()
        (a, a_s, _), (_, b_s, b_e), (c, _, _) = rows
        raw.execute('UPDATE rocpd_op SET "end" = ? WHERE id = ?', (b_e + 1000, a))
        raw.execute('UPDATE rocpd_op SET start = ?, "end" = ? WHERE id = ?', (b_s + 1, b_s + 2, c))
        raw.commit()
        raw.close()
        con = connect()
        con.execute("ATTACH ? AS w", (path,))
        got, _ = self.export(con, "lanes.json")
        self.check_exact(con, got, None, None)  # every op, and GPU tracks without overlaps
        lanes = sorted(n for n in got.thread_name.values() if "(overlap" in n)
        self.assertTrue(lanes and all(n.endswith("(overlap 1)") or n.endswith("(overlap 2)") for n in lanes), lanes)

    def test_mixed_job_whole_and_window(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        got, _ = self.export(con, "all.json")
        self.check_exact(con, got, None, None)
        self.check_names(con, got)
        self.check_utilization(con, got, None, None)
        total_ops, total_apis = con.execute("SELECT sum(ops), sum(apis) FROM rocpd_members").fetchone()
        self.assertEqual(got.doc["otherData"]["ops"], total_ops)
        self.assertEqual(got.doc["otherData"]["apis"], total_apis)
        first, last = self.job_span(con)
        lo, hi = first + (last - first) // 3, first + (last - first) // 2
        got, _ = self.export(con, "w.json.gz", lo, hi)
        self.check_exact(con, got, lo, hi)
        self.check_utilization(con, got, lo, hi)
        # Open sides.
        got, _ = self.export(con, "lo.json", lo, None)
        self.check_exact(con, got, lo, None)
        self.check_utilization(con, got, lo, None)
        got, _ = self.export(con, "hi.json", None, hi, '{"utilization_buckets": 7}')
        self.check_exact(con, got, None, hi)
        self.check_utilization(con, got, None, hi, 7)

    def test_gzip_matches_plain(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        a, pa = self.export(con, "a.json")
        b, pb = self.export(con, "b.JSON.GZ")
        self.assertEqual(a.doc, b.doc)
        self.assertLess(os.path.getsize(pb) * 4, os.path.getsize(pa))

    def test_db_option(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        got, _ = self.export(con, "one.json", None, None, '{"db": "rank2"}')
        self.assertEqual({n.split(" pid ")[0] for n in got.proc_name.values()}, {"rank2"})
        got, _ = self.export(con, "two.json", None, None, '{"db": ["rank1", "rank3"], "utilization_buckets": 0}')
        self.assertEqual({n.split(" pid ")[0] for n in got.proc_name.values()}, {"rank1", "rank3"})
        self.assertFalse([e for e in got.events if e["ph"] == "C"])
        self.assertEqual(got.doc["otherData"]["ops"],
                         con.execute("SELECT sum(ops) FROM rocpd_members WHERE db IN ('rank1', 'rank3')").fetchone()[0])

    def test_same_pid_on_two_members_gets_distinct_tracks(self):
        con = connect()
        con.execute("ATTACH ? AS a", (f"file:{os.path.join(SETS, 'same_rpd3', 'rank0.rpd')}?mode=ro",))
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "same_rpd2", "rank0.rpd"),))
        got, _ = self.export(con, "dup.json")
        dbs = sorted(n.split(" pid ")[0] for n in got.proc_name.values())
        self.assertEqual(dbs, ["a", "rank0"])
        self.check_names(con, got)
        self.check_exact(con, got, None, None)

    def test_errors(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        d = self.tmp.name
        cases = [
            ((os.path.join(d, "x.txt"),), "rocpd_export_trace: unknown file extension '.txt' of"),
            ((os.path.join(d, "x"),), "rocpd_export_trace: unknown file extension '' of"),
            ((os.path.join(d, "x.json"), 10, 10), "rocpd_export_trace: end_ns (10) must be greater than start_ns (10)"),
            ((os.path.join(d, "x.json"), "abc", 10), "rocpd_export_trace: start_ns must be an integer (ns), got text 'abc'"),
            ((os.path.join(d, "x.json"), 1, 2.5), "rocpd_export_trace: end_ns must be an integer (ns), got real 2.5"),
            ((os.path.join(d, "no", "such", "x.json"),), "rocpd_export_trace: cannot create '"),
            ((d + "/sub.json",), "rocpd_export_trace: cannot write '"),
            ((os.path.join(d, "x.json"), None, None, '{"dbs": 1}'), "rocpd_export_trace: unknown option 'dbs' (known: args, counters, db, drop_domains, members, names, utilization_buckets)"),
            ((os.path.join(d, "x.json"), None, None, '{"db": "nope"}'), "rocpd_export_trace: option db: no member is named 'nope'"),
            ((os.path.join(d, "x.json"), None, None, '{"db": [1]}'), "rocpd_export_trace: option db must be a member name or an array of names"),
            ((os.path.join(d, "x.json"), None, None, '[1]'), "rocpd_export_trace: options must be a JSON object"),
            ((os.path.join(d, "x.json"), None, None, '{"utilization_buckets": -1}'), "rocpd_export_trace: option utilization_buckets must be"),
            ((None,), "rocpd_export_trace: path must be a non-empty text, got null"),
            (("",), "rocpd_export_trace: path must be a non-empty text, got ''"),
        ]
        os.mkdir(os.path.join(d, "sub.json"))
        for args, message in cases:
            with self.subTest(args=args):
                with self.assertRaises(sqlite3.Error) as cm:
                    con.execute(f"SELECT rocpd_export_trace({', '.join('?' * len(args))})", args).fetchone()
                self.assertTrue(str(cm.exception).startswith(message), str(cm.exception))
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT rocpd_export_trace(1, 2, 3, 4, 5)").fetchone()
        self.assertIn("wrong number of arguments to function rocpd_export_trace()", str(cm.exception))
        # Nothing is left behind by the failures (no partial or temporary file).
        self.assertEqual(sorted(os.listdir(d)), ["sub.json"])
        # DIRECTONLY: not from a view (a hostile database's schema cannot write files).
        con.execute(f"CREATE VIEW main.v AS SELECT rocpd_export_trace('{d}/v.json') AS n")
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT n FROM v").fetchone()
        self.assertIn("unsafe use of rocpd_export_trace", str(cm.exception))

    def test_overwrites_and_interrupt_leaves_old_file(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        path = os.path.join(self.tmp.name, "t.json")
        with open(path, "w") as f:
            f.write("old")
        con.execute("SELECT rocpd_export_trace(?)", (path,)).fetchone()
        with open(path) as f:
            self.assertEqual(json.load(f)["otherData"]["members"], 8)
        # Interrupted from a progress handler: an SQLITE_INTERRUPT error, the previous file intact.
        with open(path, "w") as f:
            f.write("old")
        calls = [0]

        def handler():
            calls[0] += 1
            return 1 if calls[0] > 20 else 0

        con.set_progress_handler(handler, 1)
        with self.assertRaises(sqlite3.OperationalError) as cm:
            con.execute("SELECT rocpd_export_trace(?)", (path,)).fetchone()
        self.assertIn("interrupt", str(cm.exception))
        con.set_progress_handler(None, 0)
        with open(path) as f:
            self.assertEqual(f.read(), "old")
        self.assertEqual(os.listdir(self.tmp.name), ["t.json"])


@unittest.skipUnless(os.path.exists(MATMUL), f"{MATMUL} absent (../shared/data is not part of the project)")
class RealTraceTest(ChecksumGuard):
    watched = [MATMUL] if os.path.exists(MATMUL) else []

    def test_window_of_matmul(self):
        con = connect()
        con.execute("ATTACH ? AS matmul", (f"file:{MATMUL}?mode=ro",))
        # 40 ms of the run with most of its ops (copies, the GEMM, their launches); both edges cut
        # through a series of copies and API calls.
        lo, hi = 8306020592150000, 8306020633500000
        with tempfile.TemporaryDirectory() as d:
            n = con.execute("SELECT rocpd_export_trace(?, ?, ?)", (os.path.join(d, "m.json"), lo, hi)).fetchone()[0]
            with open(os.path.join(d, "m.json"), encoding="utf-8") as f:
                got = Exported(json.load(f))
        self.assertEqual(n, len(got.events))
        ExportTest.check_exact(self, con, got, lo, hi)
        ExportTest.check_names(self, con, got)
        self.assertGreater(got.doc["otherData"]["ops"], 30)
        self.assertGreater(len(got.flows), 15)


if __name__ == "__main__":
    main()
