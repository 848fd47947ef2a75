"""Export as an intermediate format (issue 44, item 7): the filters of rocpd_export_trace (options
drop_domains, members, counters, args) and rocpd_export_split (by time, steps, ranks), and the
same through `rocpd-ext export`.

Expected values are independent of the export: per-category counts from the generator's truth
(truth.json: kernels, copies, API calls, markers per file), rows and arrows from the member files
read with Python's sqlite3 (rpd's rocpd_op, rocpd_api, rocpd_api_ops), each row placed in the
part its start falls in. Every file is checked as a viewer reads it (tracks nest, arrows inside
slices: test_export_trust's checkers).
"""
import collections
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rocpd_testlib import connect, generate, main  # noqa: E402
from test_export import Exported  # noqa: E402
from test_export_pftrace import PfExported, fields, message  # noqa: E402
from test_export_trust import json_flow_errors, json_nesting_errors, pftrace_nesting_errors  # noqa: E402

CLI = os.environ.get("ROCPD_CLI", "")


def categories(doc):
    """Slices and instants per cat, counter samples as 'C'."""
    c = collections.Counter()
    for e in doc["traceEvents"]:
        if e["ph"] in ("X", "i"):
            c[e["cat"]] += 1
        elif e["ph"] == "C":
            c["C"] += 1
    return c


def rpd_rows(path):
    """One rpd member's rows, brute force: ops [(start, end)], API calls [(tid, start, end)],
    arrows [(api (start, end), op (start, end))] (an op's first launch)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    ops = con.execute('SELECT start, "end" FROM rocpd_op').fetchall()
    apis = con.execute('SELECT tid, start, "end" FROM rocpd_api').fetchall()
    flows, seen = [], set()
    for op_id, a_s, a_e, o_s, o_e in con.execute(
            'SELECT o.id, a.start, a."end", o.start, o."end" FROM rocpd_api_ops l JOIN rocpd_api a ON a.id = l.api_id '
            "JOIN rocpd_op o ON o.id = l.op_id ORDER BY l.op_id, l.api_id"):
        if op_id not in seen:
            seen.add(op_id)
            flows.append(((a_s, a_e), (o_s, o_e)))
    con.close()
    return ops, apis, flows


def shown(s, e):
    """A row's (start, end) as the export shows it: zero-length and reversed rows are instants."""
    return (s, e if e > s else s)


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="export_split_")
        cls.dir = cls._tmp.name

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def load(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if path.endswith(".pftrace"):
            self.assertEqual(pftrace_nesting_errors(data), [], path)
            return PfExported(data)
        doc = json.loads(data)
        self.assertEqual(json_nesting_errors(doc), [], path)
        self.assertEqual(json_flow_errors(doc), [], path)
        return doc

    def error(self, con, fn, *args):
        with self.assertRaises(sqlite3.Error) as caught:
            con.execute(f"SELECT {fn}({', '.join('?' * len(args))})", args).fetchone()
        return str(caught.exception)


class Filters(Base):
    """Per-category counts of filtered exports against the generator's truth."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.job = os.path.join(cls.dir, "mixed")
        cls.truth = generate(cls.job, 3, "mixed", 500, 5)  # rank0 rpd2, rank1 rpd3, rank2 rocpd
        cls.files = {f["db"]: f for f in cls.truth["files"]}
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.job,)).fetchone()

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        super().tearDownClass()

    def export(self, name, options=None, lo=None, hi=None):
        path = self.path(name)
        n, = self.con.execute("SELECT rocpd_export_trace(?, ?, ?, ?)", (path, lo, hi, options)).fetchone()
        doc = self.load(path)
        if not name.endswith(".pftrace"):
            self.assertEqual(n, len(doc["traceEvents"]))
        return doc

    def expected(self, dbs, domains=("hip", "marker")):
        f = [self.files[d] for d in dbs]
        c = collections.Counter(kernel=sum(x["kernels"] for x in f), copy=sum(x["copies"] for x in f))
        if "hip" in domains:
            c["hip"] = sum(x["apis"] for x in f)
        if "marker" in domains:
            c["marker"] = sum(x["markers"] for x in f)
        return +c

    def test_unfiltered_counts_match_truth(self):
        doc = self.export("all.json")
        got = categories(doc)
        self.assertGreater(got.pop("C"), 0)
        self.assertEqual(got, self.expected(self.files))

    def test_drop_domains(self):
        whole = Exported(self.export("whole.json"))
        for options, kept in (('{"drop_domains": ["marker"]}', ("hip",)), ('{"drop_domains": "HIP"}', ("marker",)),
                              ('{"drop_domains": ["hip", "Marker", "hsa"]}', ())):
            with self.subTest(options=options):
                doc = self.export("d.json", options)
                got = categories(doc)
                got.pop("C")
                self.assertEqual(got, self.expected(self.files, kept))
                self.assertEqual(doc["otherData"]["apis"], sum(got[d] for d in kept))
                self.assertEqual(doc["otherData"]["drop_domains"], [d.lower() for d in json.loads(options)["drop_domains"]]
                                 if isinstance(json.loads(options)["drop_domains"], list) else ["hip"])
                flows = Exported(doc).flow_pairs()
                if "hip" in kept:  # every launch is a hip call: the same arrows as unfiltered
                    self.assertEqual(flows, whole.flow_pairs())
                else:
                    self.assertEqual(sum(sum(c.values()) for c in flows.values()), 0)

    def test_members_by_pattern(self):
        for options, dbs in (('{"members": "rank[02]"}', ("rank0", "rank2")), ('{"members": ["rank1", "r*2"]}', ("rank1", "rank2")),
                             ('{"members": "rank*", "db": "rank1"}', ("rank1",))):
            with self.subTest(options=options):
                doc = self.export("m.json", options)
                got = categories(doc)
                got.pop("C")
                self.assertEqual(got, self.expected(dbs))
                procs = {e["args"]["name"].split(" pid ")[0] for e in doc["traceEvents"] if e.get("name") == "process_name"}
                self.assertEqual(procs, set(dbs))

    def test_counters_and_args(self):
        full = self.export("full.json")
        bare = self.export("bare.json", '{"counters": false, "args": false, "utilization_buckets": 50}')
        self.assertEqual(categories(bare), categories(full) - collections.Counter(C=categories(full)["C"]))
        self.assertFalse([e for e in bare["traceEvents"] if e["ph"] == "C"])
        self.assertEqual((full["otherData"]["args"], bare["otherData"]["args"]), (True, False))
        # Every slice without annotations except the note on 1 ns arrows' ends; else the same events.
        self.assertFalse([e for e in bare["traceEvents"] if e["ph"] in ("X", "i") and set(e["args"]) - {"recorded_dur_ns"}])
        self.assertTrue([e for e in full["traceEvents"] if e["ph"] == "X" and "correlation_id" in e["args"]])

        def strip(doc):
            return collections.Counter(json.dumps({k: v for k, v in e.items() if k != "args"}, sort_keys=True)
                                       for e in doc["traceEvents"] if e["ph"] not in ("C", "M"))
        self.assertEqual(strip(bare), strip(full))

    def test_pftrace_filtered(self):
        got = self.export("f.pftrace", '{"drop_domains": ["marker"], "members": "rank[01]", "counters": false}')
        self.assertEqual(sum(sum(c.values()) for c in got.apis.values()), self.expected(("rank0", "rank1"))["hip"])
        self.assertEqual(sum(sum(c.values()) for c in got.ops.values()), self.files["rank0"]["ops"] + self.files["rank1"]["ops"])
        self.assertEqual(got.counters, [])

    def test_pftrace_without_args(self):
        def annotations(name, options):
            path = self.path(name)
            self.con.execute("SELECT rocpd_export_trace(?, NULL, NULL, ?)", (path, options)).fetchone()
            with open(path, "rb") as f:
                data = f.read()
            names = collections.Counter()
            for _, _, packet in fields(data):
                event = message(packet).get(11)  # TracePacket.track_event
                for a in message(event[0]).get(4, []) if event else []:  # TrackEvent.debug_annotations
                    names[message(a)[10][0].decode()] += 1  # DebugAnnotation.name
            return names
        full = annotations("a.pftrace", None)
        self.assertGreater(full["correlation_id"], 0)
        self.assertGreater(full["op_id"], 0)
        bare = annotations("b.pftrace", '{"args": false}')
        self.assertEqual(bare, collections.Counter(recorded_dur_ns=full["recorded_dur_ns"]))

    def test_bad_options(self):
        out = self.path("bad.json")
        for options, message in (
                ('{"drop_domains": 3}', "rocpd_export_trace: option drop_domains must be an API domain such as 'hsa' or "
                                        "'marker' or an array of domains, got integer"),
                ('{"drop_domains": [""]}', "rocpd_export_trace: option drop_domains: an empty domain name"),
                ('{"members": "x*"}', "rocpd_export_trace: option members: no member matches 'x*' (a GLOB pattern, "
                                      "case-sensitive)"),
                ('{"members": []}', "rocpd_export_trace: option members: an empty array keeps no member"),
                ('{"members": [1]}', "rocpd_export_trace: option members must be a GLOB pattern of member names or an "
                                     "array of patterns, found integer '1'"),
                ('{"members": "rank1", "db": "rank0"}', "rocpd_export_trace: option db: no member is named 'rank0' among "
                                                        "those option members keeps"),
                ('{"counters": 0}', "rocpd_export_trace: option counters must be true or false, got integer '0'"),
                ('{"args": "off"}', "rocpd_export_trace: option args must be true or false, got text 'off'"),
                ('{"arg": false}', "rocpd_export_trace: unknown option 'arg' (known: args, counters, db, drop_domains, "
                                   "members, names, utilization_buckets)")):
            with self.subTest(options=options):
                self.assertEqual(self.error(self.con, "rocpd_export_trace", out, None, None, options), message)
        self.assertFalse(os.path.exists(out))
        # Everything left out: an error, no file.
        self.assertEqual(self.error(self.con, "rocpd_export_trace", out, None, None,
                                    '{"drop_domains": ["hip", "marker"], "members": "rank0", "db": []}'),
                         "rocpd_export_trace: no member to export (rocpd_open a job or ATTACH a trace first); "
                         f"'{out}' was not written")


class Split(Base):
    """rocpd_export_split's parts against the member files: each part holds exactly the rows that
    start in it (the first also those reaching into the window from before, as the whole export),
    and the arrows whose launch and op are both in it."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.job = os.path.join(cls.dir, "job")
        generate(cls.job, 2, "rpd3", 600, 7, "--steps", 3)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.job,)).fetchone()
        cls.members = dict(cls.con.execute("SELECT db, path FROM rocpd_members"))
        cls.raw = {db: rpd_rows(path) for db, path in cls.members.items()}
        cls.first, cls.last = cls.con.execute("SELECT min(first_ns), max(last_ns) FROM rocpd_members").fetchone()

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        super().tearDownClass()

    def split(self, name, by, lo=None, hi=None, options=None):
        parts, = self.con.execute("SELECT rocpd_export_split(?, ?, ?, ?, ?)",
                                  (self.path(name), by, lo, hi, options)).fetchone()
        return json.loads(parts)

    def expected(self, db, lo, hi, first):
        """(ops, apis, flows) of member `db` in part [lo, hi) (None: open); `first`: the window's
        first part, which also holds rows starting before lo and ending after it."""
        def inside(s, e):
            if hi is not None and s >= hi:
                return False
            return lo is None or s >= lo or (first and e > lo)
        ops, apis, flows = self.raw[db]
        return (collections.Counter(shown(s, e) for s, e in ops if inside(s, e)),
                collections.Counter((t, *shown(s, e)) for t, s, e in apis if inside(s, e)),
                collections.Counter((shown(*a), shown(*o)) for a, o in flows if inside(*a) and inside(*o)))

    def check_parts(self, parts, window, dbs=None):
        """Each part's file against the member files; the parts together hold each row of the
        window once."""
        total_ops, total_apis = collections.Counter(), collections.Counter()
        for k, p in enumerate(parts):
            members = [p["db"]] if p["db"] else sorted(self.members)
            if dbs:
                members = [m for m in members if m in dbs]
            exp = {db: self.expected(db, p["start_ns"], p["end_ns"], k == 0 or p["db"] is not None) for db in members}
            if p["events"] == 0:
                self.assertFalse(os.path.exists(p["file"]), p)
                self.assertFalse(any(sum(o.values()) + sum(a.values()) for o, a, _ in exp.values()), p)
                continue
            doc = self.load(p["file"])
            self.assertEqual(len(doc["traceEvents"]), p["events"])
            self.assertEqual(doc["otherData"]["rows"], "starting" if k and p["db"] is None else "overlapping")
            got = Exported(doc)
            for db, (ops, apis, flows) in exp.items():
                got_ops = collections.Counter()
                for (s, e, _), c in got.ops.get(db, {}).items():
                    got_ops[(s, e)] += c
                self.assertEqual(got_ops, ops, (p["file"], db))
                self.assertEqual(got.apis.get(db, collections.Counter()), apis, (p["file"], db))
                self.assertEqual(got.flow_pairs().get(db, collections.Counter()), flows, (p["file"], db))
                total_ops.update((db, *x) for x in ops.elements())
                total_apis.update((db, *x) for x in apis.elements())
        # No loss, no duplicate: the window's rows (overlapping it, as one export) once each.
        lo, hi = window
        want_ops, want_apis = collections.Counter(), collections.Counter()
        for db in (dbs or self.members):
            ops, apis, _ = self.expected(db, lo, hi, True)
            want_ops.update((db, *x) for x in ops.elements())
            want_apis.update((db, *x) for x in apis.elements())
        self.assertEqual(total_ops, want_ops)
        self.assertEqual(total_apis, want_apis)
        self.assertGreater(sum(want_ops.values()), 0)

    def test_time_windows(self):
        span = self.last - self.first
        for n, lo, hi in ((4, None, None), (3, self.first + span // 5, self.last - span // 5), (1, None, self.first + span // 2)):
            with self.subTest(n=n, lo=lo, hi=hi):
                parts = self.split(f"t{n}.json", n, lo, hi)
                a, b = (self.first if lo is None else lo), (self.last if hi is None else hi)
                edges = [a + (b - a) * k // n for k in range(n + 1)]
                self.assertEqual([(p["part"], p["start_ns"], p["end_ns"]) for p in parts],
                                 [(str(k), lo if k == 0 else edges[k], hi if k == n - 1 else edges[k + 1]) for k in range(n)])
                self.assertEqual([p["file"] for p in parts], [self.path(f"t{n}.{k}.json") for k in range(n)])
                self.check_parts(parts, (lo, hi))
        # Arrows crossing an edge are in neither part: the parts hold fewer than the whole.
        parts = self.split("t8.json", "8")
        got = 0
        for p in parts:
            if p["events"]:
                with open(p["file"]) as f:
                    got += sum(sum(c.values()) for c in Exported(json.load(f)).flow_pairs().values())
        whole = sum(len(f) for _, _, f in self.raw.values())
        self.assertLess(got, whole)

    def test_steps(self):
        steps = self.con.execute("SELECT name, min(start), max(\"end\") FROM rocpd_ranges WHERE name LIKE 'ProfilerStep#%'"
                                 " GROUP BY name ORDER BY min(start)").fetchall()
        self.assertEqual(len(steps), 3)
        parts = self.split("s.json", "steps")
        expect = [("before", None, steps[0][1])]
        expect += [(name.replace("#", "_"), s, steps[k + 1][1] if k + 1 < len(steps) else e)
                   for k, (name, s, e) in enumerate(steps)]
        expect += [("after", steps[-1][2], None)]
        self.assertEqual([(p["part"], p["start_ns"], p["end_ns"]) for p in parts], expect)
        self.check_parts(parts, (None, None))
        # A window cuts the steps: the parts clipped to it, those outside left out.
        lo, hi = steps[0][1] + 1000, steps[1][1] + 1000
        parts = self.split("sw.json", "steps", lo, hi)
        self.assertEqual([(p["part"], p["start_ns"], p["end_ns"]) for p in parts],
                         [("ProfilerStep_0", lo, steps[1][1]), ("ProfilerStep_1", steps[1][1], hi)])
        self.check_parts(parts, (lo, hi))

    def test_ranks_with_filters(self):
        parts = self.split("r.json", "ranks", None, None, '{"members": "rank*", "counters": false}')
        self.assertEqual([(p["part"], p["db"], p["file"]) for p in parts],
                         [(db, db, self.path(f"r.{db}.json")) for db in ("rank0", "rank1")])
        self.check_parts(parts, (None, None))
        parts = self.split("r1.pftrace", "ranks", None, None, '{"members": "*1"}')
        self.assertEqual([p["db"] for p in parts], ["rank1"])
        got = self.load(parts[0]["file"])
        ops, apis, flows = self.expected("rank1", None, None, True)
        self.assertEqual(sum(got.ops["rank1"].values()), sum(ops.values()))
        self.assertEqual(sum(got.apis["rank1"].values()), sum(apis.values()))

    def test_names_that_become_one(self):
        con = sqlite3.connect(":memory:", uri=True)
        con.enable_load_extension(True)
        con.load_extension(os.environ["ROCPD_EXT"])
        for alias, db in (("r/0", "rank0"), ("r_0", "rank1")):
            con.execute("ATTACH ? AS ?", (f"file:{self.members[db]}?mode=ro", alias))
        parts, = con.execute("SELECT rocpd_export_split(?, 'ranks')", (self.path("dup.json"),)).fetchone()
        con.close()
        self.assertEqual([(p["part"], p["db"], p["file"]) for p in json.loads(parts)],
                         [("r_0", "r/0", self.path("dup.r_0.json")), ("r_0-2", "r_0", self.path("dup.r_0-2.json"))])
        for p, db in zip(json.loads(parts), ("rank0", "rank1")):
            ops, _, _ = self.expected(db, None, None, True)
            got = Exported(self.load(p["file"]))
            self.assertEqual(sum(got.ops[p["db"]].values()), sum(ops.values()))

    def test_pftrace_parts_valid(self):
        for p in self.split("p.pftrace", 3):
            self.load(p["file"])

    def test_errors(self):
        out = self.path("e.json")
        for args, message in (
                ((out, 0), "rocpd_export_split: by must be 'ranks', 'steps' or a number of time windows from 1 to "
                           "10000, got '0'"),
                ((out, "rank"), "rocpd_export_split: by must be 'ranks', 'steps' or a number of time windows from 1 "
                                "to 10000, got 'rank'"),
                ((out, 2, 10, 10), "rocpd_export_split: end_ns (10) must be greater than start_ns (10)"),
                ((out, 2, None, None, '{"x": 1}'), "rocpd_export_split: unknown option 'x' (known: args, counters, db, "
                                                   "drop_domains, members, names, utilization_buckets)"),
                ((out, "ranks", None, None, '{"members": "z*"}'), "rocpd_export_split: option members: no member "
                                                                  "matches 'z*' (a GLOB pattern, case-sensitive)")):
            with self.subTest(args=args):
                self.assertEqual(self.error(self.con, "rocpd_export_split", *args), message)
        self.assertFalse(os.path.exists(out))
        # A part's destination that a member is: refused, named with its part.
        link = self.path("link.rank0.json")
        os.symlink(self.members["rank0"], link)
        msg = self.error(self.con, "rocpd_export_split", self.path("link.json"), "ranks")
        self.assertTrue(msg.startswith(f"rocpd_export_split: part rank0: rocpd_export_trace: '{link}' is the file of "
                                       "member rank0"), msg)
        self.assertTrue(os.path.islink(link))
        os.unlink(link)
        self.con.execute("SELECT rocpd_step_pattern('nope%')").fetchone()
        try:
            self.assertEqual(self.error(self.con, "rocpd_export_split", out, "steps"),
                             "rocpd_export_split: no step ranges (marker ranges named like 'nope%', "
                             "rocpd_step_pattern()) in the members exported")
        finally:
            self.con.execute("SELECT rocpd_step_pattern('ProfilerStep#%')").fetchone()
        # SQLITE_DIRECTONLY: a view cannot call it.
        self.con.execute(f"CREATE VIEW IF NOT EXISTS main.sneaky AS SELECT rocpd_export_split('{self.path('v.json')}', 2) AS p")
        with self.assertRaises(sqlite3.Error) as caught:
            self.con.execute("SELECT * FROM sneaky").fetchone()
        self.assertIn("unsafe use of rocpd_export_split", str(caught.exception))
        self.assertFalse([f for f in os.listdir(self.dir) if f.startswith("v.")])


@unittest.skipUnless(CLI and os.path.exists(CLI), "ROCPD_CLI not set")
class Cli(Base):
    """`rocpd-ext export` with filters and --split: the same files as the SQL functions."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.job = os.path.join(cls.dir, "job")
        cls.truth = generate(cls.job, 2, "rpd3", 400, 9, "--steps", 2)

    def run_cli(self, *args, check=True):
        p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120)
        if check:
            self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_filters(self):
        out = self.path("f.json")
        p = self.run_cli("export", self.job, out, "--drop-domain", "marker,hsa", "--members", "rank[1]", "--no-counters",
                         "--no-args")
        doc = self.load(out)
        self.assertEqual(p.stdout, f"{out}: {len(doc['traceEvents'])} events\n")
        f = {x["db"]: x for x in self.truth["files"]}["rank1"]
        self.assertEqual(categories(doc), collections.Counter(kernel=f["kernels"], copy=f["copies"], hip=f["apis"]))
        self.assertFalse([e for e in doc["traceEvents"] if e["ph"] == "X" and set(e["args"]) - {"recorded_dur_ns"}])
        p = self.run_cli("export", self.job, out, "--drop-domain", "hip,", check=False)
        self.assertEqual((p.returncode, p.stderr), (2, "rocpd-ext: --drop-domain needs API domain names such as hsa or "
                                                       "marker, got 'hip,' (see rocpd-ext export --help)\n"))
        p = self.run_cli("export", self.job, out, "--members", "x*", check=False)
        self.assertEqual((p.returncode, p.stderr), (1, "rocpd-ext: rocpd_export_trace: option members: no member "
                                                       "matches 'x*' (a GLOB pattern, case-sensitive)\n"))

    def test_split_lines(self):
        for by in ("3", "ranks", "steps"):
            with self.subTest(by=by):
                out = self.path(f"c{by}.json")
                p = self.run_cli("export", self.job, out, "--split", by, "--drop-domain", "marker")
                lines = []
                for line in p.stdout.splitlines():
                    path, rest = line.split(": ", 1)
                    if rest.startswith("not written"):
                        self.assertFalse(os.path.exists(path))
                        continue
                    self.assertTrue(rest.startswith(f"{len(self.load(path)['traceEvents'])} events"), line)
                    lines.append(path)
                self.assertGreaterEqual(len(lines), 2)
        p = self.run_cli("export", self.job, self.path("n.json"), "--split", "steps", "--steps", "nope%", check=False)
        self.assertEqual((p.returncode, p.stderr),
                         (1, "rocpd-ext: --split steps: no step ranges in the window (marker ranges named like 'nope%'); "
                             "--steps PATTERN chooses them\n"))
        p = self.run_cli("query", self.job, f"SELECT rocpd_export_split('{self.path('q.json')}', 2)", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("rocpd_export_split() writes a file, and this connection writes none", p.stderr)


if __name__ == "__main__":
    main()
