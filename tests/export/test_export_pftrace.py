"""rocpd_export_trace to .pftrace: Perfetto's protobuf trace holds exactly the window's ops and API calls.

The file is decoded by a small protobuf wire-format reader written here (no protobuf package), with
the field numbers of Perfetto's protos (google/perfetto, protos/perfetto/trace/): Trace.packet = 1;
TracePacket.timestamp = 8, trusted_packet_sequence_id = 10, track_event = 11, track_descriptor = 60;
TrackDescriptor.uuid = 1, name = 2, process = 3, thread = 4, parent_uuid = 5, counter = 8;
ProcessDescriptor.pid = 1, process_name = 6; ThreadDescriptor.pid = 1, tid = 2, thread_name = 5;
TrackEvent.debug_annotations = 4, type = 9 (SLICE_BEGIN 1, SLICE_END 2, INSTANT 3, COUNTER 4),
track_uuid = 11, categories = 22, name = 23, double_counter_value = 44, flow_ids = 47,
terminating_flow_ids = 48; DebugAnnotation.name = 10, int_value = 4, string_value = 6.
The decoded slices, instants and flows are compared with independent SQL over the member files
(test_export.raw_rows) and with the JSON export of the same window.
"""
import collections
import os
import re
import sqlite3
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, ChecksumGuard, connect, main  # noqa: E402
import test_export  # noqa: E402
from test_export import OP_KINDS, Exported, members_of, raw_rows  # noqa: E402

import json  # noqa: E402


def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def fields(buf):
    """(field number, wire type, value) of one message: int for varint / fixed, bytes otherwise."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v = int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wt == 2:
            size, i = varint(buf, i)
            v = bytes(buf[i:i + size])
            assert i + size <= n, "truncated field"
            i += size
        elif wt == 5:
            v = int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise AssertionError(f"wire type {wt}")
        yield f, wt, v


def message(buf):
    """Field number -> list of values."""
    out = collections.defaultdict(list)
    for f, _, v in fields(buf):
        out[f].append(v)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


class PfExported:
    """The tracks and events of a .pftrace, in the shape of test_export.Exported."""

    def __init__(self, data):
        self.packets = 0
        self.proc_name, self.thread_name, self.tracks = {}, {}, {}
        self.counters = []  # (counter track name, ts, value)
        self.ops = collections.defaultdict(collections.Counter)
        self.apis = collections.defaultdict(collections.Counter)
        self.flow_out, self.flow_in = {}, {}  # flow id -> (db, slice)
        open_slices = {}
        for f, wt, packet in fields(data):
            assert (f, wt) == (1, 2), (f, wt)
            self.packets += 1
            p = message(packet)
            assert p[10] and p[10][0] != 0, "trusted_packet_sequence_id missing"
            if 60 in p:
                self.descriptor(message(p[60][0]))
            if 11 in p:
                ts = signed(p[8][0])
                e = message(p[11][0])
                track = e[11][0]
                kind = self.tracks[track]  # a track is described before its first event
                etype = e[9][0]
                if etype == 4:
                    assert kind[0] == "counter"
                    self.counters.append((kind[1], ts, struct.unpack("<d", struct.pack("<Q", e[44][0]))[0]))
                    continue
                assert kind[0] == "thread", kind
                if etype == 2:
                    begin = open_slices.pop(track)
                    self.add_slice(kind, begin, ts)
                    continue
                assert track not in open_slices, "a BEGIN not followed by its END"
                ev = dict(ts=ts, cat=e[22][0].decode(), name=e[23][0].decode(), out=e[47], into=e[48],
                          args={})
                for a in e[4]:
                    a = message(a)
                    name = a[10][0].decode()
                    ev["args"][name] = signed(a[4][0]) if 4 in a else a[6][0].decode()
                if etype == 1:
                    open_slices[track] = ev
                else:
                    assert etype == 3, etype
                    self.add_slice(kind, ev, ts)
        assert not open_slices, "slices left open"

    def descriptor(self, d):
        uuid = d[1][0]
        assert uuid not in self.tracks, "track described twice"
        if 3 in d:
            pr = message(d[3][0])
            pid = signed(pr[1][0])
            self.proc_name[pid] = pr[6][0].decode()
            self.tracks[uuid] = ("process", pid)
        elif 4 in d:
            th = message(d[4][0])
            pid, tid = signed(th[1][0]), signed(th[2][0])
            self.thread_name[(pid, tid)] = th[5][0].decode()
            self.tracks[uuid] = ("thread", pid, tid)
            assert self.tracks[d[5][0]] == ("process", pid), "thread's parent is its process"
        else:
            assert 8 in d, d
            self.tracks[uuid] = ("counter", d[2][0].decode(), self.tracks[d[5][0]])

    def add_slice(self, kind, ev, end):
        _, pid, tid = kind
        db = self.proc_name[pid].split(" pid ")[0]
        tname = self.thread_name[(pid, tid)]
        s = ev["ts"]
        if "recorded_dur_ns" in ev["args"]:  # a zero-length op ending an arrow: written 1 ns long
            assert end == s + 1 and ev["args"]["recorded_dur_ns"] == 0, ev
            end = s
        key = (s, end)
        if tname.startswith("GPU "):
            assert ev["cat"] in OP_KINDS, ev
            self.ops[db][(s, end, ev["name"])] += 1
        else:
            assert tname.startswith("thread "), tname
            self.apis[db][(int(tname.split()[1]), s, end)] += 1
        for fid in ev["out"]:
            assert fid not in self.flow_out
            self.flow_out[fid] = (db, key)
        for fid in ev["into"]:
            assert fid not in self.flow_in
            self.flow_in[fid] = (db, key)

    def flow_pairs(self):
        assert set(self.flow_out) == set(self.flow_in), "every arrow has both ends"
        out = collections.defaultdict(collections.Counter)
        for fid, (db, api) in self.flow_out.items():
            db2, op = self.flow_in[fid]
            assert db == db2
            out[db][(api, op)] += 1
        return out


class PftraceTest(ChecksumGuard):
    watched = test_export.ExportTest.watched

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()
        super().tearDown()

    def export(self, con, name, *args):
        path = os.path.join(self.tmp.name, name)
        n = con.execute(f"SELECT rocpd_export_trace({', '.join('?' * (1 + len(args)))})", (path, *args)).fetchone()[0]
        with open(path, "rb") as f:
            got = PfExported(f.read())
        self.assertEqual(n, got.packets)
        return got

    def check(self, con, got, lo, hi):
        """Rows against brute-force SQL over the member files (as test_export.check_exact)."""
        for db, path in members_of(con).items():
            ops, apis, flows = raw_rows(path, lo, hi)
            exp_ops = collections.Counter()
            for (s, e, name), c in ops.items():
                exp_ops[(s, e if e > s else s, name)] += c
            got_ops = got.ops.get(db, collections.Counter())
            if flows is None:  # rocpd: times only
                got_ops = collections.Counter()
                for (s, e, _), c in got.ops.get(db, {}).items():
                    got_ops[(s, e, None)] += c
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
        # Names as in the JSON export; every tid unique in the file.
        hosts = dict(con.execute("SELECT db, hostname FROM rocpd_members"))
        for name in got.proc_name.values():
            db = name.split(" pid ")[0]
            host = f" \\({re.escape(hosts[db])}\\)" if hosts[db] else ""
            self.assertRegex(name, rf"^{db} pid \d+{host}$")
        tids = [t for (_, t) in got.thread_name]
        self.assertEqual(len(tids), len(set(tids)))

    def same_as_json(self, con, got, *args):
        path = os.path.join(self.tmp.name, "same.json")
        con.execute(f"SELECT rocpd_export_trace({', '.join('?' * (1 + len(args)))})", (path, *args)).fetchone()
        with open(path, encoding="utf-8") as f:
            js = Exported(json.load(f))
        self.assertEqual(dict(got.ops), dict(js.ops))
        self.assertEqual(dict(got.apis), dict(js.apis))
        self.assertEqual(dict(got.flow_pairs()), dict(js.flow_pairs()))
        self.assertEqual(sorted(got.proc_name.values()), sorted(js.proc_name.values()))
        self.assertEqual(sorted(got.thread_name.values()), sorted(js.thread_name.values()))
        jc = sorted((e["name"], round(e["ts"] * 1000), e["args"]["utilization"]) for e in js.events if e["ph"] == "C")
        self.assertEqual(sorted(got.counters), jc)

    def test_window_of_generated_rpd_job(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "same_rpd3"),))
        first, last = con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()
        lo, hi = first + (last - first) * 2 // 5, first + (last - first) * 3 // 5
        got = self.export(con, "w.pftrace", lo, hi)
        self.assertGreater(len(got.flow_out), 100)
        self.check(con, got, lo, hi)
        self.assertTrue(got.counters)
        self.assertTrue(all(0 <= v <= 1 and lo <= ts <= hi for _, ts, v in got.counters))
        self.same_as_json(con, got, lo, hi)

    def test_mixed_job_whole_and_window(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        got = self.export(con, "all.PFTRACE")
        self.check(con, got, None, None)
        total_ops, total_apis = con.execute("SELECT sum(ops), sum(apis) FROM rocpd_members").fetchone()
        self.assertEqual(sum(sum(c.values()) for c in got.ops.values()), total_ops)
        self.assertEqual(sum(sum(c.values()) for c in got.apis.values()), total_apis)
        self.same_as_json(con, got)
        first, last = con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()
        lo, hi = first + (last - first) // 3, first + (last - first) // 2
        got = self.export(con, "w.pftrace", lo, hi, '{"utilization_buckets": 50}')
        self.check(con, got, lo, hi)
        self.same_as_json(con, got, lo, hi, '{"utilization_buckets": 50}')

    def test_same_pid_on_two_members(self):
        con = connect()
        con.execute("ATTACH ? AS a", (f"file:{os.path.join(SETS, 'same_rpd3', 'rank0.rpd')}?mode=ro",))
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "same_rpd2", "rank0.rpd"),))
        got = self.export(con, "dup.pftrace")
        self.assertEqual(sorted(n.split(" pid ")[0] for n in got.proc_name.values()), ["a", "rank0"])
        self.check(con, got, None, None)

    def test_interrupt_leaves_old_file(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        path = os.path.join(self.tmp.name, "t.pftrace")
        with open(path, "w") as f:
            f.write("old")
        calls = [0]

        def handler():
            calls[0] += 1
            return 1 if calls[0] > 20 else 0

        con.set_progress_handler(handler, 1)
        with self.assertRaises(Exception) as cm:
            con.execute("SELECT rocpd_export_trace(?)", (path,)).fetchone()
        self.assertIn("interrupt", str(cm.exception))
        con.set_progress_handler(None, 0)
        with open(path) as f:
            self.assertEqual(f.read(), "old")
        self.assertEqual(os.listdir(self.tmp.name), ["t.pftrace"])
        # sqlite3_interrupt from another thread (Ctrl-C) stops it well within 0.5 s.
        timer = threading.Timer(0.03, con.interrupt)
        timer.start()
        t0 = time.perf_counter()
        with self.assertRaises(sqlite3.OperationalError) as cm:
            con.execute("SELECT rocpd_export_trace(?)", (path,)).fetchone()
        timer.join()
        self.assertIn("interrupt", str(cm.exception))
        self.assertLess(time.perf_counter() - t0, 0.03 + 0.5 * float(os.environ.get("ROCPD_TIMING_SCALE", "1")))
        with open(path) as f:
            self.assertEqual(f.read(), "old")
        self.assertEqual(os.listdir(self.tmp.name), ["t.pftrace"])


if __name__ == "__main__":
    main()
