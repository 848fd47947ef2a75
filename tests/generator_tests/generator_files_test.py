#!/usr/bin/env python3
"""Files written by rocpd_gen, read back with plain SQL over the upstream-shaped tables.

Every number in truth.json is recomputed here independently (counts, sums, per-gpu interval
unions, summaries), the three formats of one seed must carry the same workload, generation must
be deterministic, rocpd files must have the uuid-suffixed tables, guid columns and unsuffixed
views, rpd files the upstream columns (v2 compared with the real shared/data/matmul_result.rpd),
and multi-session rpd files the session id offsets. Run by /usr/bin/python3 (ROCPD_GEN set).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from collections import defaultdict

GEN = os.environ.get("ROCPD_GEN")
SHARED = os.environ.get("ROCPD_SHARED_DATA", "")
ROCPD_COPY_NAMES = {
    "MEMORY_COPY_HOST_TO_DEVICE": "CopyHostToDevice",
    "MEMORY_COPY_DEVICE_TO_HOST": "CopyDeviceToHost",
    "MEMORY_COPY_DEVICE_TO_DEVICE": "CopyDeviceToDevice",
}
LAUNCH_APIS = {"hipLaunchKernel", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel"}
COPY_APIS = {"hipMemcpy", "hipMemcpyAsync"}
ROCPD_TABLES = [
    "metadata", "string", "info_node", "info_process", "info_thread", "info_agent", "info_queue",
    "info_stream", "info_pmc", "info_code_object", "info_kernel_symbol", "track", "event", "arg",
    "pmc_event", "region", "sample", "kernel_dispatch", "memory_copy", "memory_allocate",
]


def generate(out, *args):
    return subprocess.run([GEN, "--out", out] + [str(a) for a in args], capture_output=True, text=True)


def connect(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


# ---- reading the files with plain SQL ------------------------------------------------------

def read_rpd(path):
    """Ops as (pid, gpu, start, end, name, kind) and calls as (pid, start, end, api, message)."""
    db = connect(path)
    version = int(db.execute("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'").fetchone()[0])
    args_table = "rocpd_ustring" if version == 3 else "rocpd_string"
    ops = db.execute(
        """SELECT a.pid, o.gpuId, o.start, o."end",
                  CASE WHEN d.string = '' THEN t.string ELSE d.string END,
                  CASE WHEN t.string = 'KernelExecution' THEN 'kernel' ELSE 'copy' END
             FROM rocpd_op o
             JOIN rocpd_string d ON d.id = o.description_id
             JOIN rocpd_string t ON t.id = o.opType_id
             JOIN rocpd_api_ops l ON l.op_id = o.id
             JOIN rocpd_api a ON a.id = l.api_id""").fetchall()
    calls = db.execute(
        f"""SELECT a.pid, a.start, a."end", n.string, g.string
              FROM rocpd_api a
              JOIN rocpd_string n ON n.id = a.apiName_id
              JOIN {args_table} g ON g.id = a.args_id""").fetchall()
    db.close()
    return ops, [(pid, s, e, name, msg if name == "UserMarker" else None) for pid, s, e, name, msg in calls]


def read_rocpd(path):
    db = connect(path)
    kernels = db.execute(
        """SELECT k.pid, a.type_index, k.start, k."end", s.kernel_name, 'kernel'
             FROM rocpd_kernel_dispatch k
             JOIN rocpd_info_agent a ON a.id = k.agent_id AND a.guid = k.guid
             JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id AND s.guid = k.guid""").fetchall()
    copies = db.execute(
        """SELECT c.pid, CASE WHEN d.type = 'GPU' THEN d.type_index ELSE s.type_index END,
                  c.start, c."end", n.string, 'copy'
             FROM rocpd_memory_copy c
             JOIN rocpd_string n ON n.id = c.name_id AND n.guid = c.guid
             JOIN rocpd_info_agent d ON d.id = c.dst_agent_id AND d.guid = c.guid
             JOIN rocpd_info_agent s ON s.id = c.src_agent_id AND s.guid = c.guid""").fetchall()
    ops = kernels + [(p, g, s, e, ROCPD_COPY_NAMES[n], k) for p, g, s, e, n, k in copies]
    regions = db.execute(
        """SELECT r.pid, r.start, r."end", n.string, c.string, json_extract(e.extdata, '$.message')
             FROM rocpd_region r
             JOIN rocpd_string n ON n.id = r.name_id AND n.guid = r.guid
             JOIN rocpd_event e ON e.id = r.event_id AND e.guid = r.guid
             JOIN rocpd_string c ON c.id = e.category_id AND c.guid = e.guid""").fetchall()
    samples = db.execute(
        """SELECT t.pid, m.timestamp, m.timestamp, c.string, json_extract(e.extdata, '$.message')
             FROM rocpd_sample m
             JOIN rocpd_track t ON t.id = m.track_id AND t.guid = m.guid
             JOIN rocpd_event e ON e.id = m.event_id AND e.guid = m.guid
             JOIN rocpd_string c ON c.id = e.category_id AND c.guid = e.guid""").fetchall()
    db.close()
    calls = []
    for pid, s, e, name, category, message in regions:
        if category == "MARKER_CORE_RANGE_API":
            # rocprofv3 names a range after the roctx operation; the message is only in extdata.
            assert name in ("roctxThreadRangeA", "roctxProcessRangeA"), (name, message)
            calls.append((pid, s, e, "UserMarker", message))
        else:
            assert category == "HIP_RUNTIME_API_EXT", category
            calls.append((pid, s, e, name, None))
    for pid, s, e, category, message in samples:
        assert category == "MARKER_CORE_RANGE_API", category
        calls.append((pid, s, e, "UserMarker", message))
    return ops, calls


def union(intervals):
    """Length and number of components of a union of half-open intervals."""
    length = components = 0
    cur = None
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
            continue
        if cur:
            length += cur[1] - cur[0]
        cur = [s, e]
        components += 1
    if cur:
        length += cur[1] - cur[0]
    return length, components


def summarise(ops, calls):
    """The truth.json file entry (without identity fields), computed from rows read by SQL."""
    out = {"ops": len(ops), "kernels": sum(1 for o in ops if o[5] == "kernel"),
           "copies": sum(1 for o in ops if o[5] == "copy"),
           "ops_sum_ns": sum(o[3] - o[2] for o in ops)}
    apis = [c for c in calls if c[3] != "UserMarker"]
    markers = [c for c in calls if c[3] == "UserMarker"]
    out["apis"] = len(apis)
    out["markers"] = len(markers)
    out["apis_sum_ns"] = sum(c[2] - c[1] for c in apis)
    out["first_ns"] = min([o[2] for o in ops] + [c[1] for c in calls])
    out["last_ns"] = max([o[3] for o in ops] + [c[2] for c in calls])
    out["pids"] = sorted({c[0] for c in calls})
    per_gpu = defaultdict(list)
    for o in ops:
        per_gpu[o[1]].append((o[2], o[3]))
    gpus = []
    for gpu in sorted(per_gpu):
        iv = per_gpu[gpu]
        busy, parts = union(iv)
        gpus.append({"gpu": gpu, "ops": len(iv), "sum_ns": sum(e - s for s, e in iv), "busy_ns": busy,
                     "first_ns": min(s for s, _ in iv), "last_ns": max(e for _, e in iv), "busy_intervals": parts})
    out["gpus"] = gpus

    def totals(rows, with_kind):
        acc = {}
        for name, kind, d in rows:
            key = (name, kind)
            t = acc.setdefault(key, {"name": name, "kind": kind, "calls": 0, "total_ns": 0, "min_ns": d, "max_ns": d})
            t["calls"] += 1
            t["total_ns"] += d
            t["min_ns"] = min(t["min_ns"], d)
            t["max_ns"] = max(t["max_ns"], d)
        result = sorted(acc.values(), key=lambda t: (-t["total_ns"], t["name"], t["kind"]))
        if not with_kind:
            result = [{"name": t["name"], "calls": t["calls"], "total_ns": t["total_ns"]} for t in result]
        return result

    out["top"] = totals([(o[4], o[5], o[3] - o[2]) for o in ops], True)
    out["api_top"] = totals([(c[3], "", c[2] - c[1]) for c in apis], False)
    out["marker_top"] = totals([(c[4], "", c[2] - c[1]) for c in markers], False)
    return out


IDENTITY = ("file", "db", "format", "schema_version", "uuid")


def without_identity(truth):
    t = dict(truth)
    t.pop("format")
    t["files"] = [{k: v for k, v in f.items() if k not in IDENTITY} for f in t["files"]]
    return t


class GeneratedJob(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not GEN or not os.path.exists(GEN):
            print("ROCPD_GEN is not set to the generator binary; skipping")
            sys.exit(77)
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_gen_test_")
        cls.sets = {}
        for fmt in ("rpd2", "rpd3", "rocpd"):
            cls.sets[fmt] = cls.make(fmt, "--procs", 2, "--format", fmt, "--ops", 1500, "--seed", 7, "--gpus", 3)
        cls.sets["mixed"] = cls.make("mixed", "--procs", 4, "--format", "mixed", "--ops", 600, "--seed", 11)
        cls.sets["sessions"] = cls.make("sessions", "--procs", 2, "--format", "rpd2", "--ops", 800, "--seed", 13,
                                        "--sessions", 2)

    @classmethod
    def make(cls, name, *args):
        out = os.path.join(cls.tmp, name)
        r = generate(out, *args)
        if r.returncode != 0:
            raise RuntimeError(f"rocpd_gen {args} failed: {r.stderr}")
        with open(os.path.join(out, "truth.json")) as f:
            return out, json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def read(self, directory, entry):
        path = os.path.join(directory, entry["file"])
        return read_rocpd(path) if entry["format"] == "rocpd" else read_rpd(path)

    # ---- truth against files ----

    def test_truth_matches_the_files(self):
        for name, (directory, truth) in self.sets.items():
            for entry in truth["files"]:
                with self.subTest(set=name, file=entry["file"]):
                    got = summarise(*self.read(directory, entry))
                    expected = {k: v for k, v in entry.items() if k not in IDENTITY + ("hostname",)}
                    expected["pids"] = sorted(expected["pids"])
                    self.assertEqual(got, expected)

    def test_job_totals(self):
        for name, (directory, truth) in self.sets.items():
            files = truth["files"]
            self.assertEqual(truth["job"], {
                "ops": sum(f["ops"] for f in files), "apis": sum(f["apis"] for f in files),
                "ops_sum_ns": sum(f["ops_sum_ns"] for f in files),
                "first_ns": min(f["first_ns"] for f in files), "last_ns": max(f["last_ns"] for f in files)}, name)
            self.assertEqual(truth["procs"], len(files))

    def test_workload_shape(self):
        _, truth = self.sets["rpd2"]
        for f in truth["files"]:
            self.assertEqual(f["ops"], 1500)
            self.assertEqual(f["apis"], 1500 + 1500 // 4)
            self.assertEqual(f["markers"], 1500 // 50)
            self.assertEqual([g["gpu"] for g in f["gpus"]], [0, 1, 2])
            self.assertGreater(f["first_ns"], 10**15)
            for g in f["gpus"]:
                self.assertLess(g["busy_ns"], g["sum_ns"], "queues of one gpu run concurrently")
            kinds = {t["kind"] for t in f["top"]}
            self.assertEqual(kinds, {"kernel", "copy"})
        a, b = truth["files"]
        self.assertLess(max(a["first_ns"], b["first_ns"]), min(a["last_ns"], b["last_ns"]), "ranks overlap")
        self.assertEqual([a["hostname"], b["hostname"]], ["node0", "node0"])

    def test_edge_sizes(self):
        # Row counts below, at and above one insert batch; one gpu and one queue; no extras.
        cases = [("--ops", 1, "--apis-extra", 0, "--markers", 0), ("--ops", 63, "--markers", 3),
                 ("--ops", 64, "--gpus", 1, "--queues", 1), ("--ops", 65, "--gpus", 2, "--queues", 5, "--markers", 70)]
        for n, case in enumerate(cases):
            for fmt in ("rpd2", "rpd3", "rocpd"):
                with self.subTest(case=case, format=fmt):
                    directory, truth = self.make(f"edge{n}_{fmt}", "--procs", 1, "--format", fmt, "--seed", 3, *case)
                    entry = truth["files"][0]
                    self.assertEqual(entry["ops"], case[1])
                    got = summarise(*self.read(directory, entry))
                    expected = {k: v for k, v in entry.items() if k not in IDENTITY + ("hostname",)}
                    self.assertEqual(got, expected)

    def test_upstream_top_defect_is_reproduced(self):
        # Collectives give ops with equal (name, start, end) on two gpus; rpd's top view collapses
        # them (UNION), so its call counts fall short of the truth, as in real files.
        directory, truth = self.sets["rpd2"]
        entry = truth["files"][0]
        db = connect(os.path.join(directory, entry["file"]))
        upstream = dict(db.execute("SELECT Name, TotalCalls FROM top"))
        db.close()
        short = [t["name"] for t in entry["top"] if upstream.get(t["name"], 0) < t["calls"]]
        self.assertTrue(short, "no collective twins found")
        self.assertTrue(all(n.startswith("ncclDevKernel_") for n in short), short)

    # ---- formats and determinism ----

    def test_formats_carry_the_same_workload(self):
        base = without_identity(self.sets["rpd2"][1])
        for fmt in ("rpd3", "rocpd"):
            self.assertEqual(without_identity(self.sets[fmt][1]), base, fmt)
        for fmt, version in (("rpd2", 2), ("rpd3", 3), ("rocpd", 3)):
            for f in self.sets[fmt][1]["files"]:
                self.assertEqual(f["schema_version"], version)
                self.assertEqual(f["format"], "rocpd" if fmt == "rocpd" else "rpd")
                self.assertEqual(f["uuid"] is None, fmt != "rocpd")

    def test_same_seed_same_files(self):
        for fmt in ("rpd3", "rocpd"):
            directory, _ = self.sets[fmt]
            again = os.path.join(self.tmp, fmt + "_again")
            r = generate(again, "--procs", 2, "--format", fmt, "--ops", 1500, "--seed", 7, "--gpus", 3)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(directory, "truth.json"), "rb") as x, open(os.path.join(again, "truth.json"), "rb") as y:
                self.assertEqual(x.read(), y.read())
            for name in sorted(os.listdir(directory)):
                if name == "truth.json":
                    continue
                a, b = connect(os.path.join(directory, name)), connect(os.path.join(again, name))
                self.assertEqual(list(a.iterdump()), list(b.iterdump()), name)
                a.close()
                b.close()
        other = os.path.join(self.tmp, "other_seed")
        self.assertEqual(generate(other, "--procs", 2, "--format", "rpd3", "--ops", 1500, "--seed", 8, "--gpus", 3).returncode, 0)
        with open(os.path.join(other, "truth.json")) as f:
            self.assertNotEqual(without_identity(json.load(f)), without_identity(self.sets["rpd3"][1]))

    def test_mixed_formats_cycle(self):
        directory, truth = self.sets["mixed"]
        self.assertEqual([(f["file"], f["format"], f["schema_version"]) for f in truth["files"]],
                         [("rank0.rpd", "rpd", 2), ("rank1.rpd", "rpd", 3), ("rank2.db", "rocpd", 3), ("rank3.rpd", "rpd", 2)])
        self.assertEqual(sorted(os.listdir(directory)), ["rank0.rpd", "rank1.rpd", "rank2.db", "rank3.rpd", "truth.json"])
        self.assertEqual([f["hostname"] for f in truth["files"]], ["node0", "node0", "node1", "node1"])
        self.assertEqual(len({p for f in truth["files"] for p in f["pids"]}), 4)

    # ---- rocpd layout ----

    def test_rocpd_tables_views_and_guids(self):
        directory, truth = self.sets["rocpd"]
        for entry in truth["files"]:
            db = connect(os.path.join(directory, entry["file"]))
            guid = entry["uuid"]
            suffix = guid.replace("-", "_")
            objects = dict(db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')").fetchall())
            for t in ROCPD_TABLES:
                self.assertEqual(objects.get(f"rocpd_{t}_{suffix}"), "table", t)
                self.assertEqual(objects.get(f"rocpd_{t}"), "view", t)
                columns = [r[1] for r in db.execute(f'PRAGMA table_info("rocpd_{t}_{suffix}")')]
                if t != "metadata":
                    self.assertIn("guid", columns, t)
                    wrong = db.execute(f'SELECT count(*) FROM "rocpd_{t}_{suffix}" WHERE guid <> ?', (guid,)).fetchone()[0]
                    self.assertEqual(wrong, 0, t)
            for view in ("kernels", "memory_copies", "regions", "region_args", "samples", "regions_and_samples", "top_kernels", "top", "busy"):
                self.assertEqual(objects.get(view), "view", view)
            self.assertEqual(dict(db.execute("SELECT tag, value FROM rocpd_metadata")),
                             {"schema_version": "3", "uuid": "_" + suffix, "guid": guid})
            self.assertRegex(guid, r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
            # The shipped analysis views see every row.
            count = lambda sql: db.execute(sql).fetchone()[0]
            self.assertEqual(count("SELECT count(*) FROM kernels"), entry["kernels"])
            self.assertEqual(count("SELECT count(*) FROM memory_copies"), entry["copies"])
            self.assertEqual(count("SELECT count(*) FROM regions_and_samples"), entry["apis"] + entry["markers"])
            self.assertEqual(count("SELECT sum(total_calls) FROM top_kernels"), entry["kernels"])
            self.assertEqual(count("SELECT count(*) FROM busy WHERE type = 'GPU'"), len(entry["gpus"]))
            self.assertEqual(count("SELECT hostname FROM rocpd_info_node"), entry["hostname"])
            # Arguments: the marker message of every range region, ptr (and size) of hipMalloc/hipFree.
            self.assertEqual(count("SELECT count(*) FROM region_args WHERE name = 'message'"),
                             count("SELECT count(*) FROM regions WHERE category = 'MARKER_CORE_RANGE_API'"))
            self.assertEqual(count("SELECT count(*) FROM region_args WHERE name = 'ptr'"),
                             count("SELECT count(*) FROM regions WHERE name IN ('hipMalloc', 'hipFree')"))
            self.assertEqual([r[0] for r in db.execute("SELECT pid FROM rocpd_info_process")], entry["pids"])
            # roctx ranges are named after the operation (push/pop or start/stop), never the message.
            names = {r[0] for r in db.execute("SELECT DISTINCT name FROM regions WHERE category = 'MARKER_CORE_RANGE_API'")}
            self.assertEqual(names, {"roctxThreadRangeA", "roctxProcessRangeA"})
            self.assertEqual(count("SELECT count(*) FROM regions WHERE category = 'MARKER_CORE_RANGE_API' "
                                   "AND json_extract(extdata, '$.message') IS NULL"), 0)
            # Agents: CPUs first, GPU type_index = canonical gpu, id = absolute index.
            agents = db.execute("SELECT id, type, absolute_index, type_index FROM rocpd_info_agent ORDER BY id").fetchall()
            self.assertEqual([a[1] for a in agents], ["CPU", "CPU", "GPU", "GPU", "GPU"])
            self.assertTrue(all(a[0] == a[2] for a in agents))
            self.assertEqual([a[3] for a in agents if a[1] == "GPU"], [0, 1, 2])
            # display_name is the readable form: demangled where kernel_name is mangled.
            mangled = db.execute("SELECT count(*) FROM rocpd_info_kernel_symbol WHERE kernel_name LIKE '\\_Z%' ESCAPE '\\' "
                                 "AND display_name NOT LIKE '%(%'").fetchone()[0]
            self.assertEqual(mangled, 0)
            db.close()

    def test_rocpd_correlation_links(self):
        directory, truth = self.sets["rocpd"]
        db = connect(os.path.join(directory, truth["files"][0]["file"]))
        rows = db.execute(
            """SELECT kind, n.string FROM (
                   SELECT 'kernel' AS kind, e.correlation_id AS corr FROM rocpd_kernel_dispatch k
                     JOIN rocpd_event e ON e.id = k.event_id
                   UNION ALL
                   SELECT 'copy', e.correlation_id FROM rocpd_memory_copy c JOIN rocpd_event e ON e.id = c.event_id) x
                 LEFT JOIN rocpd_region r ON r.id = x.corr
                 LEFT JOIN rocpd_string n ON n.id = r.name_id""").fetchall()
        self.assertEqual(len(rows), truth["files"][0]["ops"])
        for kind, api in rows:
            self.assertIn(api, LAUNCH_APIS if kind == "kernel" else COPY_APIS)
        # Each issuing call issued exactly one op.
        dup = db.execute("""SELECT count(*) FROM (SELECT e.correlation_id FROM rocpd_event e
                              JOIN rocpd_string c ON c.id = e.category_id
                             WHERE c.string IN ('KERNEL_DISPATCH', 'MEMORY_COPY')
                             GROUP BY e.correlation_id HAVING count(*) > 1)""").fetchone()[0]
        self.assertEqual(dup, 0)
        db.close()

    # ---- rpd layout ----

    def test_rpd_links_and_subclass_rows(self):
        for fmt in ("rpd2", "rpd3"):
            directory, truth = self.sets[fmt]
            db = connect(os.path.join(directory, "rank0.rpd"))
            rows = db.execute(
                """SELECT t.string, n.string, ka.kernelName_id = o.description_id, ca.api_ptr_id IS NOT NULL
                     FROM rocpd_op o
                     JOIN rocpd_string t ON t.id = o.opType_id
                     JOIN rocpd_api_ops l ON l.op_id = o.id
                     JOIN rocpd_api a ON a.id = l.api_id
                     JOIN rocpd_string n ON n.id = a.apiName_id
                     LEFT JOIN rocpd_kernelapi ka ON ka.api_ptr_id = a.id
                     LEFT JOIN rocpd_copyapi ca ON ca.api_ptr_id = a.id""").fetchall()
            self.assertEqual(len(rows), truth["files"][0]["ops"])
            for op_type, api, kernel_ok, is_copy in rows:
                if op_type == "KernelExecution":
                    self.assertIn(api, LAUNCH_APIS)
                    self.assertEqual(kernel_ok, 1)
                else:
                    self.assertIn(op_type, ("CopyHostToDevice", "CopyDeviceToHost", "CopyDeviceToDevice"))
                    self.assertIn(api, COPY_APIS)
                    self.assertEqual(is_copy, 1)
            meta = dict(db.execute("SELECT tag, value FROM rocpd_metadata"))
            self.assertEqual(meta["schema_version"], "2" if fmt == "rpd2" else "3")
            self.assertEqual(meta["session_count"], "1")
            # The upstream views are there and work.
            self.assertEqual(db.execute("SELECT count(*) FROM op").fetchone()[0], truth["files"][0]["ops"])
            self.assertEqual(db.execute("SELECT count(*) FROM kernel").fetchone()[0], truth["files"][0]["kernels"])
            busy = {g: t for g, t, _, _ in db.execute("SELECT * FROM busy")}
            self.assertEqual(busy, {g["gpu"]: g["sum_ns"] for g in truth["files"][0]["gpus"]})
            self.assertGreater(len(db.execute("SELECT * FROM top").fetchall()), 10)
            if fmt == "rpd3":
                domains = {r[0] for r in db.execute("SELECT DISTINCT domain FROM api")}
                self.assertEqual(domains, {"hip", "UserMarker"})
                self.assertEqual({r[0] for r in db.execute("SELECT DISTINCT category FROM api")}, {""})
            else:
                self.assertGreater(len(db.execute("SELECT * FROM ktop").fetchall()), 10)
            db.close()

    def test_rpd_v2_columns_match_real_file(self):
        real = os.path.join(SHARED, "matmul_result.rpd")
        if not os.path.exists(real):
            self.skipTest(f"{real} is absent")
        directory, _ = self.sets["rpd2"]
        ours, theirs = connect(os.path.join(directory, "rank0.rpd")), connect(real)
        def shape(db):
            objects = {}
            for name, kind in db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view', 'index')"):
                cols = [tuple(r[1:]) for r in db.execute(f'PRAGMA table_xinfo("{name}")')] if kind != "index" else []
                objects[name] = (kind, [(c[0], c[1].lower(), c[2], c[4]) for c in cols])
            return objects
        self.assertEqual(shape(ours), shape(theirs))
        ours.close()
        theirs.close()

    def test_sessions_offset_ids_and_duplicate_strings(self):
        directory, truth = self.sets["sessions"]
        db = connect(os.path.join(directory, "rank0.rpd"))
        self.assertEqual(db.execute("SELECT value FROM rocpd_metadata WHERE tag = 'session_count'").fetchone()[0], "2")
        sessions = db.execute("SELECT id >> 32, count(*), count(DISTINCT pid), min(pid) FROM rocpd_api GROUP BY 1").fetchall()
        self.assertEqual([s[0] for s in sessions], [0, 1])
        self.assertEqual([s[2] for s in sessions], [1, 1])
        self.assertEqual(sorted(s[3] for s in sessions), sorted(truth["files"][0]["pids"]))
        self.assertEqual(len(truth["files"][0]["pids"]), 2)
        self.assertEqual(db.execute("SELECT id >> 32, count(*) FROM rocpd_op GROUP BY 1").fetchall(), [(0, 800), (1, 800)])
        # Strings are interned again per session: '' is id 1 of each.
        self.assertEqual(db.execute("SELECT id FROM rocpd_string WHERE string = '' ORDER BY id").fetchall(), [(1,), ((1 << 32) + 1,)])
        mixed = db.execute("""SELECT count(*) FROM rocpd_api_ops l JOIN rocpd_op o ON o.id = l.op_id
                               WHERE (l.api_id >> 32) <> (l.op_id >> 32) OR (o.description_id >> 32) <> (o.id >> 32)
                                  OR (o.opType_id >> 32) <> (o.id >> 32)""").fetchone()[0]
        self.assertEqual(mixed, 0)
        db.close()
        # Only rank0 holds several sessions.
        self.assertEqual(len(truth["files"][1]["pids"]), 1)
        other = connect(os.path.join(directory, "rank1.rpd"))
        self.assertEqual(other.execute("SELECT max(id) >> 32 FROM rocpd_api").fetchone()[0], 0)
        other.close()

    # ---- command line ----

    def check_error(self, args, code, message):
        r = subprocess.run([GEN] + args, capture_output=True, text=True)
        self.assertEqual(r.returncode, code, r.stderr)
        self.assertEqual(r.stderr.splitlines()[0], message)

    def test_bad_arguments(self):
        out = os.path.join(self.tmp, "never")
        self.check_error(["--out", out, "--procs", "2", "--format", "rpd5", "--ops", "5", "--seed", "1"], 2,
                         "rocpd_gen: option --format must be rpd2, rpd3, rocpd or mixed, got 'rpd5'")
        self.check_error(["--out", out, "--procs", "2", "--ops", "5", "--seed", "1"], 2,
                         "rocpd_gen: missing required option --format")
        self.check_error(["--out", out, "--procs", "1", "--format", "rocpd", "--ops", "5", "--seed", "1", "--sessions", "2"], 2,
                         "rocpd_gen: option --sessions applies to rpd files only (rocpd files hold one process each)")
        self.check_error(["--out", out, "--procs", "many", "--format", "rpd2", "--ops", "5", "--seed", "1"], 2,
                         "rocpd_gen: option --procs expects an integer, got 'many'")
        self.assertFalse(os.path.exists(out))
        help_run = subprocess.run([GEN, "--help"], capture_output=True, text=True)
        self.assertEqual(help_run.returncode, 0)
        self.assertTrue(help_run.stdout.startswith("usage: rocpd_gen --out DIR"))

    def test_unusable_output_directory(self):
        blocker = os.path.join(self.tmp, "plain_file")
        open(blocker, "w").close()
        target = os.path.join(blocker, "job")
        self.check_error(["--out", target, "--procs", "1", "--format", "rpd2", "--ops", "5", "--seed", "1"], 1,
                         f"rocpd_gen: cannot create output directory '{target}': Not a directory")

    def test_refuses_to_overwrite(self):
        directory, _ = self.sets["mixed"]
        before = {n: os.path.getmtime(os.path.join(directory, n)) for n in os.listdir(directory)}
        self.check_error(["--out", directory, "--procs", "4", "--format", "mixed", "--ops", "600", "--seed", "11"], 1,
                         f"rocpd_gen: refusing to overwrite existing file '{os.path.join(directory, 'rank0.rpd')}'")
        self.assertEqual(before, {n: os.path.getmtime(os.path.join(directory, n)) for n in os.listdir(directory)})
        # A directory holding only truth.json is refused as well.
        lonely = os.path.join(self.tmp, "lonely")
        os.makedirs(lonely)
        open(os.path.join(lonely, "truth.json"), "w").close()
        self.check_error(["--out", lonely, "--procs", "1", "--format", "rpd2", "--ops", "5", "--seed", "1"], 1,
                         f"rocpd_gen: refusing to overwrite existing file '{os.path.join(lonely, 'truth.json')}'")
        self.assertEqual(os.listdir(lonely), ["truth.json"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
