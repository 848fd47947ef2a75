"""Hostile and odd PyTorch profiler (Kineto) JSON through rocpd_open: every bad file gives one clear
error naming the file (never a crash, a hang or an unbounded allocation), adds no member and
leaves no temporary file; edge cases that are valid read exactly (times from the numbers' text,
duplicate correlations, counter ranges that do not match, the JSON Array Format); the temporary
database of a converted member is private and goes with the member."""
import gzip
import json
import os
import resource
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import EXT, GEN, connect, main  # noqa: E402

SANITIZED = any(s in os.environ.get("LD_PRELOAD", "") for s in ("asan", "tsan"))

KERNEL = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2,
          "args": {"device": 0, "stream": 7, "correlation": 1}}
CALL = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 42, "tid": 43, "ts": 9, "dur": 1,
        "args": {"correlation": 1}}


def doc(*events, **top):
    d = {"schemaVersion": 1}
    d.update(top)
    d["traceEvents"] = list(events)
    return json.dumps(d)


class KinetoHostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_kineto_hostile_")
        cls.tempdir = os.path.join(cls.tmp, "sqlite_tmp")  # where converted members go
        os.mkdir(cls.tempdir)
        os.environ["SQLITE_TMPDIR"] = cls.tempdir
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def write(self, text, name=None, gz=False):
        KinetoHostile.n += 1
        path = os.path.join(self.tmp, name or f"t{self.n}.json" + (".gz" if gz else ""))
        data = text.encode() if isinstance(text, str) else text
        with open(path, "wb") as f:
            f.write(gzip.compress(data) if gz else data)
        return path

    def refused(self, path, *fragments):
        before = sorted(os.listdir(self.tempdir))
        con = connect()
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute("SELECT rocpd_open(?)", (path,)).fetchall()
        msg = str(cm.exception)
        self.assertIn(path, msg)
        for f in fragments:
            self.assertIn(f, msg)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members").fetchone(), (0,))
        self.assertEqual(sorted(os.listdir(self.tempdir)), before, "a temporary database was left behind")
        con.close()
        return msg

    def opened(self, path):
        con = connect()
        self.addCleanup(con.close)
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (path,)).fetchone(), (1,))
        return con

    # --- malformed files -------------------------------------------------------------------
    def test_truncated(self):
        text = doc(CALL, KERNEL, KERNEL)
        self.refused(self.write(text[:len(text) // 2]), "invalid JSON at byte", "ends early")
        gz = gzip.compress(text.encode())
        self.refused(self.write(gz[:len(gz) - 12], name="cut.json.gz"), "truncated gzip data")
        bad = bytearray(gz)
        bad[len(bad) // 2] ^= 0xFF
        bad[len(bad) // 2 + 1] ^= 0xFF
        self.refused(self.write(bytes(bad), name="bad.json.gz"))
        self.refused(self.write(""), "invalid JSON")
        self.refused(self.write("{}"), 'no "traceEvents" array')
        self.refused(self.write("5"), "not a trace object")

    def test_unterminated_list_and_whitespace(self):
        """The JSON Array Format may omit its closing bracket (the trace event format allows it): the
        events before the end are read, also after a trailing comma and whitespace; an event cut
        short, or an object format's list, is still truncated. Whitespace is read whatever its
        length (issue 31, item 16: 16 MiB of it was "a string or number longer than ...")."""
        events = [json.dumps(CALL), json.dumps(KERNEL)]
        for tail in ("", ",", ",\n  ", "\n"):
            with self.subTest(tail=tail):
                con = self.opened(self.write("[" + ",".join(events) + tail))
                self.assertEqual(con.execute("SELECT count(*), sum(duration) FROM rocpd_ops").fetchone(), (1, 2000))
                self.assertEqual(con.execute("SELECT correlation_id FROM rocpd_apis").fetchall(), [(1,)])
        self.refused(self.write("[" + events[0] + "," + events[1][:-1]), "ends early (truncated file?)")
        self.refused(self.write('{"traceEvents":[' + events[0]), "ends early (truncated file?)")
        self.refused(self.write('{"traceEvents":[' + events[0] + "]"), "ends early (truncated file?)")
        spaces = " " * (17 << 20)
        con = self.opened(self.write(spaces + "[" + events[0] + "," + spaces + events[1] + spaces + "]" + spaces))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops").fetchone(), (1,))
        # Long tokens are named for what they are.
        self.refused(self.write('[{"ph":"X","name":"' + "a" * (17 << 20) + '"}]'), "a string longer than 16777216 bytes")
        self.refused(self.write('[{"ph":"X","' + "a" * (17 << 20) + '":1}]'), "a key longer than 16777216 bytes")

    def test_deeply_nested(self):
        depth = 1_000_000
        self.refused(self.write('{"traceEvents":[{"ph":"X","args":{"a":' + "[" * depth + "]" * depth + "}}]}"),
                     "nested deeper than 100 levels")
        self.refused(self.write('{"meta":' + "{\"a\":" * depth + "1" + "}" * depth + ',"traceEvents":[]}'),
                     "nested deeper than 100 levels")

    def test_huge_string(self):
        # 1 GiB of name in a 1 MB file of concatenated gzip members (one stream to a reader).
        path = os.path.join(self.tmp, "huge.json.gz")
        member = gzip.compress(b"a" * (1 << 24), 1)
        with open(path, "wb") as f:
            f.write(gzip.compress(b'{"traceEvents":[{"ph":"X","name":"'))
            for _ in range(64):
                f.write(member)
            f.write(gzip.compress(b'"}]}'))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.refused(path, "a string or number longer than 16777216 bytes")
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        self.assertLess(grown_mb, 200, "reading a 1 GiB string must not hold it")
        # An args object past 16 MiB, made of small values.
        many = ",".join(f'"k{i}":{i}' for i in range(1_500_000))
        self.refused(self.write('{"traceEvents":[{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":1,'
                                '"args":{' + many + "}}]}"), "args longer than 16777216 bytes")

    def test_wrong_types(self):
        cases = [
            (dict(CALL, ts="12"), '"ts" is a string, not a number'),
            (dict(CALL, pid={"a": 1}), '"pid" is an object'),
            (dict(CALL, args=[1]), '"args" is an array, not an object'),
            (dict(CALL, name=3), '"name" is a number, not a string'),
            (dict(KERNEL, args=dict(KERNEL["args"], correlation="x")), 'args."correlation" is a string, not an integer'),
            (dict(KERNEL, args=dict(KERNEL["args"], device=1.5)), 'args."device" is a number with a fraction'),
            (dict(KERNEL, args=dict(KERNEL["args"], grid=[1, 2])), "args.grid is not an array of three integers"),
            (dict(KERNEL, args=dict(KERNEL["args"], block={"x": 1})), "args.block is not an array of three integers"),
            ({k: v for k, v in CALL.items() if k != "ph"}, 'no "ph"'),
            ({k: v for k, v in CALL.items() if k != "ts"}, 'a "ph": "X" event without "ts"'),
            (dict(CALL, pid=1.5), '"pid" 1.5 is not an integer'),
        ]
        for event, fragment in cases:
            with self.subTest(fragment=fragment):
                self.refused(self.write(doc(CALL, event)), "traceEvents[1]", fragment)
        self.refused(self.write('{"traceEvents":{}}'), '"traceEvents" is an object, not an array')
        self.refused(self.write('{"traceEvents":[5]}'), "traceEvents[0] is a number, not an object")
        self.refused(self.write(doc(CALL, baseTimeNanoseconds="7")), '"baseTimeNanoseconds" is a string, not a number')
        self.refused(self.write(doc(CALL, distributedInfo={"rank": "0"})), "distributedInfo.rank is text, not an integer")
        self.refused(self.write(doc(CALL, distributedInfo=[1])), '"distributedInfo" is not an object')

    def test_duplicate_keys(self):
        self.refused(self.write('{"traceEvents":[{"ph":"X","ts":1,"ts":2}]}'), 'key "ts" appears twice')
        self.refused(self.write('{"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"args":{"correlation":1,'
                                '"correlation":2}}]}'), 'args key "correlation" appears twice')
        self.refused(self.write('{"traceEvents":[],"traceEvents":[]}'), 'top-level key "traceEvents" appears twice')
        # One rule for every object of the file: a key given twice is refused (issue 31, item 10:
        # counter values in a profiler range's args were summed).
        self.refused(self.write('{"traceEvents":[{"ph":"X","cat":"cuda_profiler_range","name":"k","pid":0,"tid":0,'
                                '"ts":1,"dur":1,"args":{"sm__inst":1,"sm__inst":2}}]}'), 'traceEvents[0]',
                     'args key "sm__inst" appears twice')
        self.refused(self.write('{"traceEvents":[{"ph":"C","name":"c","pid":"GPU 0 Counters","tid":0,"ts":1,'
                                '"args":{"":1,"":2}}]}'), 'traceEvents[0]', 'args key "" appears twice')
        self.refused(self.write('{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":1,"dur":1,'
                                '"args":{"Input":{"a":1,"a":1}}}]}'), "traceEvents[0] ('op')",
                     'key "a" appears twice in one object')
        self.refused(self.write('{"traceEvents":[{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":1,"x":1,"x":1}]}'),
                     'traceEvents[0]', 'key "x" appears twice')
        self.refused(self.write('{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"other":[{"b":1,"b":2}]}]}'),
                     'traceEvents[0]', 'key "b" appears twice in one object')
        self.refused(self.write('{"deviceProperties":[{"id":0,"id":1}],"traceEvents":[]}'),
                     "top-level value 'deviceProperties': key \"id\" appears twice in one object")
        self.refused(self.write('{"distributedInfo":{"rank":0,"rank":1},"traceEvents":[]}'),
                     "top-level value 'distributedInfo': key \"rank\" appears twice in one object")
        self.refused(self.write('[{"ph":"X","ts":1,"ts":2}]'), 'traceEvents[0]', 'key "ts" appears twice')
        # Repeated keys in different objects are no repetition.
        con = self.opened(self.write('{"a":{"k":1},"b":{"k":{"k":2}},"traceEvents":[{"ph":"X","cat":"cpu_op","pid":1,'
                                     '"tid":1,"ts":1,"dur":1,"args":{"k":{"k":1},"j":[{"k":1},{"k":1}]}}]}'))
        self.assertEqual(con.execute("SELECT args FROM rocpd_apis").fetchall(), [('{"k":{"k":1},"j":[{"k":1},{"k":1}]}',)])
        # Many keys in one object (past the linear search) and a repeat at the end.
        many = ",".join(f'"k{i}":{i}' for i in range(5000))
        self.opened(self.write('{"traceEvents":[{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":1,"args":{' + many +
                               "}}]}"))
        self.refused(self.write('{"traceEvents":[{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1,"dur":1,"args":{' + many +
                                ',"k4321":0}}]}'), 'args key "k4321" appears twice')

    def test_nan_and_infinity(self):
        for v in ("NaN", "Infinity", "-Infinity"):
            with self.subTest(v=v):
                self.refused(self.write('{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":' + v + ',"dur":1}]}'),
                             "invalid JSON")

    def test_numbers_past_int64(self):
        self.refused(self.write(doc(dict(CALL, ts=1e30))), "past the int64 range of ns")
        self.refused(self.write(doc(CALL).replace('"ts": 9', '"ts": 9223372036854775.808')), "past the int64 range of ns")
        self.refused(self.write(doc(CALL).replace('"pid": 42', '"pid": 99999999999999999999')), "past the int64 range")
        self.refused(self.write(doc(KERNEL).replace('"correlation": 1', '"correlation": 99999999999999999999')),
                     'args."correlation" is a number past the int64 range')
        self.refused(self.write(doc(CALL, baseTimeNanoseconds=2 ** 63 - 1)), "plus baseTimeNanoseconds is past")
        self.refused(self.write('{"traceEvents":[' + json.dumps(CALL) + '],"baseTimeNanoseconds":9223372036854775807}'),
                     "plus baseTimeNanoseconds is past the int64 range")

    def test_invalid_utf8_and_not_files(self):
        self.refused(self.write(b'{"traceEvents":[{"ph":"X","name":"\xff\xfe"}]}'), "Invalid encoding")
        self.refused(os.path.join(self.tmp, "absent.json"), "no such file")
        fifo = os.path.join(self.tmp, "fifo.json")
        os.mkfifo(fifo)
        self.refused(fifo, "not a regular file")

    # --- valid edge cases, read exactly --------------------------------------------------------
    def test_exact_times(self):
        # Every ts/dur below is exact in ns from its text; float arithmetic gets several wrong.
        texts = ["9007199254740.993", "9007199254740.992", "0.0005", "1.5e3", "68.0", "1682725898082228",
                 "4203669604595.407", "-0.0005", "12.3456"]
        want = [9007199254740993, 9007199254740992, 1, 1500000, 68000, 1682725898082228000, 4203669604595407, -1,
                12346]
        events = ",".join('{"ph":"X","cat":"cpu_op","name":"n%d","pid":1,"tid":1,"ts":%s,"dur":%s}' % (i, t, t)
                          for i, t in enumerate(texts))
        con = self.opened(self.write('{"traceEvents":[' + events + "]}"))
        got = con.execute("SELECT start, duration FROM rocpd_apis ORDER BY CAST(substr(name, 2) AS INTEGER)").fetchall()
        self.assertEqual(got, [(w, max(w, 0)) for w in want])
        con = self.opened(self.write('{"baseTimeNanoseconds":1735632360000000000,"traceEvents":[' + events + "]}"))
        got = con.execute("SELECT start FROM rocpd_apis ORDER BY CAST(substr(name, 2) AS INTEGER)").fetchall()
        self.assertEqual(got, [(1735632360000000000 + w,) for w in want])

    def test_array_format_and_unknown_events(self):
        events = [CALL, KERNEL, {"ph": "i", "name": "mark", "pid": "", "tid": "", "ts": 1, "s": "g"},
                  {"ph": "X", "cat": "Trace", "name": "span", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1,
                   "dur": 5}, {"ph": "B", "name": "begin", "pid": 1, "tid": 1, "ts": 1}]
        con = self.opened(self.write(json.dumps(events)))
        self.assertEqual(con.execute("SELECT count(*), sum(duration) FROM rocpd_ops").fetchone(), (1, 2000))
        self.assertEqual(con.execute("SELECT name, domain FROM rocpd_apis").fetchall(), [("cudaLaunchKernel", "cuda")])
        con.execute("CREATE VIRTUAL TABLE temp.other USING rocpd_union(kineto_other)")
        self.assertEqual(con.execute("SELECT ph, pid FROM temp.other ORDER BY event").fetchall(),
                         [("i", ""), ("X", "Spans"), ("B", 1)])

    def test_duplicate_correlations(self):
        second = dict(CALL, ts=20, tid=44)
        con = self.opened(self.write(doc(CALL, second, KERNEL)))
        self.assertEqual(con.execute("SELECT start, correlation_id FROM rocpd_apis ORDER BY start").fetchall(),
                         [(9000, 1), (20000, None)])
        con.execute("CREATE VIRTUAL TABLE temp.km USING rocpd_union(kineto_metadata)")
        self.assertEqual(con.execute("SELECT value FROM temp.km WHERE tag = 'import.duplicate_correlations'").fetchone(),
                         (1,))

    def main_pid_brute(self, events):
        """The trace's main process computed from the events: most calls that are not drawn on a GPU's
        row (gpu_user_annotation, cuda_sync), the smallest pid on a tie."""
        counts = {}
        for e in events:
            if e.get("ph") == "X" and isinstance(e.get("pid"), int) and \
                    e.get("cat", "").lower() not in ("kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset",
                                                     "cuda_profiler_range", "gpu_user_annotation", "cuda_sync"):
                counts[e["pid"]] = counts.get(e["pid"], 0) + 1
        return min(counts, key=lambda p: (-counts[p], p)), len(counts)

    def test_main_process(self):
        # Processes 5 and 3 tie on 3 calls (3 wins), 9 has 2; GPU-row calls (pid 1) outnumber them all
        # but never count. Two processes launch: each op takes its launching call's pid.
        op = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "tid": 1, "dur": 1}
        gpu_row = {"ph": "X", "cat": "gpu_user_annotation", "name": "a", "pid": 1, "tid": 1, "dur": 1}
        sync = {"ph": "X", "cat": "cuda_sync", "name": "s", "pid": 1, "tid": 2, "dur": 1}
        events = [dict(op, pid=5, ts=1), dict(op, pid=5, ts=2), dict(CALL, pid=5, ts=3, args={"correlation": 1}),
                  dict(op, pid=3, ts=4), dict(op, pid=3, ts=5), dict(CALL, pid=3, ts=6, args={"correlation": 2}),
                  dict(op, pid=9, ts=7), dict(op, pid=9, ts=8)]
        events += [dict(gpu_row, ts=10 + i) for i in range(5)] + [dict(sync, ts=20 + i) for i in range(5)]
        events += [dict(KERNEL, ts=30, args={"device": 0, "stream": 7, "correlation": 1}),
                   dict(KERNEL, ts=40, args={"device": 0, "stream": 7, "correlation": 2}),
                   dict(KERNEL, ts=50, args={"device": 0, "stream": 7})]  # unlinked: the main process
        main_pid, pids = self.main_pid_brute(events)
        self.assertEqual((main_pid, pids), (3, 3))
        con = self.opened(self.write(doc(*events)))
        con.execute("CREATE VIRTUAL TABLE temp.km USING rocpd_union(kineto_metadata)")
        self.assertEqual(con.execute("SELECT value FROM temp.km WHERE tag = 'import.main_pid'").fetchone(), (main_pid,))
        self.assertEqual(con.execute("SELECT start, pid FROM rocpd_ops ORDER BY start").fetchall(),
                         [(30000, 5), (40000, 3), (50000, main_pid)])
        # More processes than the import counts while storing (4096): the same answer, from SQL.
        many = [dict(op, pid=1000 + i, ts=100 + i) for i in range(5000)] + \
            [dict(op, pid=1000 + 4321, ts=6000 + i) for i in range(3)]
        main_pid, pids = self.main_pid_brute(events + many)
        self.assertEqual((main_pid, pids), (1000 + 4321, 5003))
        con = self.opened(self.write(doc(*(events + many))))
        con.execute("CREATE VIRTUAL TABLE temp.km USING rocpd_union(kineto_metadata)")
        self.assertEqual(con.execute("SELECT value FROM temp.km WHERE tag = 'import.main_pid'").fetchone(), (main_pid,))
        self.assertEqual(con.execute("SELECT start, pid FROM rocpd_ops ORDER BY start").fetchall(),
                         [(30000, 5), (40000, 3), (50000, main_pid)])

    def test_profiler_ranges_unmatched(self):
        rng = {"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 0, "dur": 5,
               "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 10}}
        con = self.opened(self.write(doc(CALL, dict(rng, ts=20), dict(rng, ts=30))))
        self.assertEqual(con.execute("SELECT count(*), count(op_id) FROM rocpd_counters").fetchone(), (2, 2))
        self.assertEqual(con.execute("SELECT count(*), count(correlation_id) FROM rocpd_ops").fetchone(), (2, 0))
        self.assertEqual(con.execute("SELECT count(*), max(depth) FROM rocpd_kernel_counters_full").fetchone(), (2, 0))
        con.execute("CREATE VIRTUAL TABLE temp.km USING rocpd_union(kineto_metadata)")
        self.assertEqual(con.execute("SELECT value FROM temp.km WHERE tag = 'import.counter_ranges'").fetchone(),
                         ("unmatched: 2 cuda_profiler_range events but 1 cudaLaunchKernel calls",))
        # Matched when the counts agree: the i-th range to the i-th launch, in time order.
        later = dict(CALL, ts=15, args={"correlation": 2})
        con = self.opened(self.write(doc(later, CALL, dict(rng, ts=30), dict(rng, ts=20))))
        self.assertEqual(con.execute("SELECT start, correlation_id FROM rocpd_ops ORDER BY start").fetchall(),
                         [(20000, 1), (30000, 2)])

    def test_flows_link_launches(self):
        call = dict(CALL, args={})
        kernel = dict(KERNEL, args={"device": 0, "stream": 7})
        flows = [{"ph": "s", "id": 77, "pid": 42, "tid": 43, "ts": 9, "cat": "ac2g", "name": "ac2g"},
                 {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 10.5, "cat": "async_cpu_to_gpu", "name": "ac2g",
                  "bp": "e"}]
        con = self.opened(self.write(doc(call, kernel, *flows)))
        self.assertEqual(con.execute("SELECT o.correlation_id, a.name FROM rocpd_ops AS o JOIN rocpd_apis AS a "
                                     "ON a.correlation_id = o.correlation_id").fetchall(), [(77, "cudaLaunchKernel")])
        # What an event writes itself wins: a flow starting at a call with another correlation (5)
        # links the kernel at its end to the call with the flow's id (9), never re-links it to the
        # call it starts at (issue 31, item 10).
        a = dict(CALL, name="a", ts=9, args={"correlation": 5})
        b = dict(CALL, name="b", ts=30, args={"correlation": 9})
        flows = [dict(flows[0], id=9), dict(flows[1], id=9)]
        con = self.opened(self.write(doc(a, b, kernel, *flows)))
        self.assertEqual(con.execute("SELECT a.name, a.correlation_id FROM rocpd_ops AS o JOIN rocpd_apis AS a "
                                     "ON a.correlation_id = o.correlation_id").fetchall(), [("b", 9)])
        self.assertEqual(con.execute("SELECT name, correlation_id FROM rocpd_apis ORDER BY name").fetchall(),
                         [("a", 5), ("b", 9)])

    # --- out of memory ---------------------------------------------------------------------------
    @unittest.skipIf(SANITIZED, "the sanitizers' allocators abort on an address-space limit by design")
    def test_out_of_memory(self):
        """Conversions under an address-space limit (the process's own size plus a few MB, set after
        the extension is loaded) end with SQLITE_NOMEM (Python: MemoryError) and leave no temporary
        database, whichever allocation fails: the parsing thread's start (its stack), a string on
        that thread (whose first throw needs thread-local memory glibc cannot allocate then), or
        RapidJSON's buffers (an args object of 12 MB). None of these conversions fits: it needs
        more than 64 MB above the loaded process."""
        out = os.path.join(self.tmp, "oom")
        subprocess.run([GEN, "--out", out, "--procs", "1", "--format", "kineto", "--ops", "3000", "--seed", "5"],
                       check=True, stdout=subprocess.DEVNULL)
        big_args = self.write(doc({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
                                   "args": {f"k{i}": "x" * (1 << 20) for i in range(12)}}))
        rank0 = os.path.join(out, "rank0.json")
        # (function, file, MB above the process's size): one process runs them all in turn, lowering
        # its soft limit for each conversion and lifting it after.
        cases = [("open", rank0, 8), ("open", rank0, 16), ("open", rank0, 24), ("import", rank0, 16),
                 ("open", big_args, 16), ("open", big_args, 32), ("import", big_args, 16)]
        script = r"""
import json, resource, sqlite3, sys
ext, cases = sys.argv[1], json.loads(sys.argv[2])
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(ext)
_, hard = resource.getrlimit(resource.RLIMIT_AS)
for fn, path, margin_mb in cases:
    with open("/proc/self/status") as f:
        size = next(int(l.split()[1]) for l in f if l.startswith("VmSize:")) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + margin_mb * 2**20, hard))
    try:
        if fn == "open":
            con.execute("SELECT rocpd_open(?)", (path,)).fetchall()
        else:
            con.execute("SELECT rocpd_import(?, ?)", (path, path + ".db")).fetchall()
        result = "converted"
    except MemoryError:
        result = "SQLITE_NOMEM"
    except sqlite3.Error as e:
        result = f"error {getattr(e, 'sqlite_errorcode', None)} {e}"
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    print(result, flush=True)
"""
        run = subprocess.run([sys.executable, "-c", script, EXT, json.dumps(cases)], capture_output=True, text=True,
                             env=dict(os.environ, SQLITE_TMPDIR=self.tempdir), timeout=300)
        results = run.stdout.split("\n")[:-1]
        self.assertEqual(run.returncode, 0, f"the process ended after {len(results)} conversions: {run.stderr[-2000:]}")
        for (fn, path, margin), result in zip(cases, results):
            with self.subTest(fn=fn, path=os.path.basename(path), margin_mb=margin):
                self.assertEqual(result, "SQLITE_NOMEM")
        self.assertEqual(os.listdir(self.tempdir), [], "a temporary database was left behind")
        self.assertEqual([f for f in os.listdir(out) + os.listdir(self.tmp) if ".db" in f], [],
                         "rocpd_import left a file")

    # --- the temporary database ----------------------------------------------------------------
    def test_temporary_database(self):
        d = os.path.join(self.tmp, "traces")
        os.mkdir(d)
        path = self.write(doc(CALL, KERNEL), name=os.path.join("traces", "r0.pt.trace.json"))
        with open(os.path.join(d, "summary.json"), "w") as f:
            f.write('{"not": "a trace"}')
        listing = sorted(os.listdir(d))
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (d,)).fetchone(), (1,))  # summary.json is skipped
        self.assertEqual(con.execute("SELECT db, path, format FROM rocpd_members").fetchall(),
                         [("r0", path, "kineto")])
        files = sorted(os.listdir(self.tempdir))  # the database, then the process's lock file
        self.assertEqual(len(files), 2)
        self.assertRegex(files[0], r"^rocpd-kineto-[A-Za-z0-9]{8}-[A-Za-z0-9]{8}\.db$")
        self.assertEqual(files[1], files[0][:len("rocpd-kineto-") + 8] + ".lock")
        for f in files:
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.tempdir, f)).st_mode), 0o600)
        self.assertEqual(sorted(os.listdir(d)), listing, "nothing is written beside the trace")
        con.execute("SELECT rocpd_close('r0')")
        self.assertEqual(os.listdir(self.tempdir), [])
        con.execute("SELECT rocpd_open(?)", (path,))
        self.assertEqual(len(os.listdir(self.tempdir)), 2)
        con.close()
        self.assertEqual(os.listdir(self.tempdir), [], "closing the connection removes it")
        self.assertEqual(sorted(os.listdir(d)), listing)

    def test_killed_conversion_swept(self):
        # Issue 31 item 13: a process killed (SIGKILL) while a converted member was open left its
        # rocpd-kineto-*.db for ever. Its lock is gone with it: the first conversion of a later process in
        # that directory removes the file; a living process's file is never touched.
        path = self.write(doc(CALL, KERNEL))
        tmpdir = tempfile.mkdtemp(dir=self.tmp)  # one this test process has not converted into yet
        env = dict(os.environ, SQLITE_TMPDIR=tmpdir)
        holder = (f"import sqlite3, sys, time\ncon = sqlite3.connect(':memory:')\ncon.enable_load_extension(True)\n"
                  f"con.load_extension({EXT!r})\ncon.execute('SELECT rocpd_open(?)', ({path!r},))\n"
                  "print('open', flush=True)\ntime.sleep(60)\n")
        owner = subprocess.Popen([sys.executable, "-c", holder], env=env, stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(owner.stdout.readline(), "open\n")
            owners = os.listdir(tmpdir)
            self.assertEqual(len(owners), 2)  # its database and its lock file
            # A living owner's file survives a sweep (this process's first conversion in tmpdir).
            os.environ["SQLITE_TMPDIR"] = tmpdir
            try:
                con = connect()
                con.execute("SELECT rocpd_open(?)", (path,))
            finally:
                os.environ["SQLITE_TMPDIR"] = self.tempdir
            ours = set(os.listdir(tmpdir)) - set(owners)
            self.assertEqual(len(ours), 2)
        finally:
            owner.kill()
            owner.wait()
            owner.stdout.close()
        self.assertEqual(set(os.listdir(tmpdir)), set(owners) | ours, "SIGKILL leaves the file")
        opener = (f"import sqlite3\ncon = sqlite3.connect(':memory:')\ncon.enable_load_extension(True)\n"
                  f"con.load_extension({EXT!r})\ncon.execute('SELECT rocpd_open(?)', ({path!r},))\n")
        subprocess.run([sys.executable, "-c", opener], env=env, check=True, timeout=60)
        self.assertEqual(set(os.listdir(tmpdir)), ours, "the dead owner's file is removed, ours (alive) kept")
        con.close()
        self.assertEqual(os.listdir(tmpdir), [])

    def test_members_share_one_descriptor(self):
        # Issue 31 item 13: each open converted member held a descriptor (its lock), so that a job of
        # ~870 Kineto traces failed "Too many open files" under the usual limit of 1024. The process
        # holds one lock file per temporary directory instead. Counted past the registry's pool of
        # open member connections (registry.h: max_open_connections, a quarter of the descriptor
        # limit: 64 under the limit of 256 set here), which holds one each by design.
        paths = [self.write(doc(CALL, KERNEL), name=f"fd{i}.json") for i in range(100)]
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        try:
            con = connect()
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        try:
            for p in paths[:70]:
                con.execute("SELECT rocpd_open(?)", (p,))
            before = len(os.listdir("/proc/self/fd"))
            for p in paths[70:]:
                con.execute("SELECT rocpd_open(?)", (p,))
            self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members").fetchone(), (100,))
            self.assertLessEqual(len(os.listdir("/proc/self/fd")), before + 2, "30 more members, 30 more descriptors")
            self.assertEqual(len([f for f in os.listdir(self.tempdir) if f.endswith(".lock")]), 1)
        finally:
            con.close()
        self.assertEqual(os.listdir(self.tempdir), [], "the last member's close removes the lock file")

    def test_attach_is_not_possible(self):
        con = connect()
        with self.assertRaises(sqlite3.Error):
            con.execute("ATTACH ? AS k", (self.write(doc(CALL, KERNEL)),))
            con.execute("SELECT * FROM rocpd_members").fetchall()

    def test_interrupt(self):
        """An interrupted conversion stops within 0.5 s and leaves nothing behind."""
        out = os.path.join(self.tmp, "big")
        subprocess.run([GEN, "--out", out, "--procs", "1", "--format", "kineto", "--ops", "30000", "--seed", "3"],
                       check=True, stdout=subprocess.DEVNULL)
        path = os.path.join(out, "rank0.json")
        times = []
        for _ in range(3):
            con = connect()
            timer = threading.Timer(0.3, con.interrupt)
            started = time.monotonic()
            timer.start()
            try:
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    con.execute("SELECT rocpd_open(?)", (path,)).fetchall()
            finally:
                timer.cancel()
            times.append(time.monotonic() - started - 0.3)
            self.assertEqual(str(cm.exception), "interrupted")
            self.assertEqual(os.listdir(self.tempdir), [])
            con.close()
            if times[-1] < 0.5:
                return
        self.fail(f"stopped {times} s after the interrupt")


if __name__ == "__main__":
    main()
