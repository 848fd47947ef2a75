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


def read_rocpd(path, suffix=None):
    """Ops and calls of a rocpd file; with suffix, of one process of a merged file (its own tables)."""
    db = connect(path)
    if suffix:
        # Read the process's suffixed tables through TEMP views of the unsuffixed names.
        for name in ("kernel_dispatch", "info_agent", "info_kernel_symbol", "memory_copy", "string", "region",
                     "event", "sample", "track"):
            db.execute(f'CREATE TEMP VIEW "rocpd_{name}" AS SELECT * FROM "rocpd_{name}_{suffix}"')
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
    # rocprofv3 keeps the kernel descriptor's '.kd' in kernel_name (versioned layouts).
    kernels = [(p, g, s, e, n[:-3] if n.endswith(".kd") else n, k) for p, g, s, e, n, k in kernels]
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
        if category == "KERNEL_DISPATCH":
            continue  # SPM counter samples (3.0.3+): not markers
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
# Keys only options add (docs/generator.md); not part of the summary recomputed from ops and calls.
OPTION_KEYS = ("rocpd_version", "kernel_sgpr_sum", "kernel_arch_vgpr_sum", "kernel_accum_vgpr_sum", "kernel_lds_sum",
               "kernel_scratch_sum", "graph_launches", "graph_ops", "graph_kernels", "hip_events", "memory_allocs",
               "memory_alloc_bytes", "memory_frees", "scratch_allocs", "counters", "counter_sums", "spm_samples",
               "spm_values", "uuids", "hostnames", "node", "nodes", "clock_offset_ns", "clock_offsets_ns",
               "collective_end_true_ns", "writer", "metric_samples")


def base_truth(entry):
    """The truth keys recomputed by summarise()."""
    expected = {k: v for k, v in entry.items() if k not in IDENTITY + OPTION_KEYS + ("hostname",)}
    expected["pids"] = sorted(expected["pids"])
    return expected


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
                    self.assertEqual(got, base_truth(entry))

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
                         "rocpd_gen: option --format must be rpd2, rpd3, rocpd, rocpd4, rocprofsys, mixed, nsys, kineto or vendors, got 'rpd5'")
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


VERSIONS = ("3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.0.4", "3.0.5")


def columns(db, table):
    return [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]


def scalar(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


class RocpdVersions(unittest.TestCase):
    """--rocpd-version 3.0.x (and --counters): each revision's layout, checked with plain SQL."""

    @classmethod
    def setUpClass(cls):
        if not GEN or not os.path.exists(GEN):
            sys.exit(77)
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_gen_versions_")
        cls.sets = {}
        for v in VERSIONS:
            cls.sets[v] = GeneratedJob.make.__func__(cls, v, "--procs", 2, "--format", "rocpd", "--ops", 900, "--seed", 21,
                                                     "--rocpd-version", v, "--counters", 3)
        cls.sets["mixed"] = GeneratedJob.make.__func__(cls, "mixed", "--procs", 3, "--format", "mixed", "--ops", 700,
                                                       "--seed", 22, "--rocpd-version", "3.0.4")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def files(self, version):
        directory, truth = self.sets[version]
        for entry in truth["files"]:
            yield entry, connect(os.path.join(directory, entry["file"]))

    def test_truth_matches_the_files(self):
        for name, (directory, truth) in self.sets.items():
            for entry in truth["files"]:
                with self.subTest(set=name, file=entry["file"]):
                    got = summarise(*GeneratedJob.read(self, directory, entry))
                    self.assertEqual(got, base_truth(entry))

    def test_metadata_tables_and_columns_per_revision(self):
        for v in VERSIONS:
            patch = int(v[-1])
            for entry, db in self.files(v):
                with self.subTest(version=v, file=entry["file"]):
                    suffix = entry["uuid"].replace("-", "_")
                    meta = dict(db.execute("SELECT tag, value FROM rocpd_metadata"))
                    if patch == 0:  # 3.0.0 writers (ROCm 7.0) store the bare '3'
                        self.assertEqual(meta, {"schema_version": "3", "uuid": "_" + suffix, "guid": entry["uuid"]})
                    else:
                        self.assertEqual(meta, {"schema_version": v, "schema_version_major": "3",
                                                "schema_version_minor": "0", "schema_version_patch": str(patch),
                                                "schema_creation_time": "2026-01-01 00:00:00",
                                                "uuid": "_" + suffix, "guid": entry["uuid"]})
                    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                    has = lambda t: f"rocpd_{t}_{suffix}" in tables
                    self.assertEqual(has("graph_launch"), patch >= 2)
                    self.assertEqual(has("hip_event"), patch >= 4)
                    self.assertEqual(has("event_operation"), 1 <= patch <= 3)
                    self.assertEqual("graph_exec_id" in columns(db, f"rocpd_kernel_dispatch_{suffix}"), patch >= 2)
                    self.assertEqual("graph_node_id" in columns(db, f"rocpd_memory_copy_{suffix}"), patch >= 2)
                    self.assertEqual("sample_id" in columns(db, f"rocpd_pmc_event_{suffix}"), patch >= 3)
                    self.assertEqual("spm_support" in columns(db, f"rocpd_info_pmc_{suffix}"), patch >= 3)
                    self.assertEqual("shader_array" in columns(db, f"rocpd_pmc_event_{suffix}"), patch >= 5)
                    self.assertEqual("replay_pass" in columns(db, f"rocpd_kernel_dispatch_{suffix}"), patch >= 5)
                    agent_check = scalar(db, "SELECT sql FROM sqlite_master WHERE name = ?", f"rocpd_info_agent_{suffix}")
                    self.assertEqual("'NIC'" in agent_check, patch >= 1)
                    views = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'")}
                    self.assertEqual("graph_launches" in views, patch >= 2)
                    self.assertEqual("hip_events" in views, patch >= 4)
                    self.assertEqual("spm_counters" in views, patch >= 3)
                    # Every shipped view runs.
                    for view in views:
                        db.execute(f'SELECT * FROM "{view}" LIMIT 1').fetchall()
                    storage = {r[0] for r in db.execute("SELECT DISTINCT storage_type FROM rocpd_info_code_object")}
                    self.assertEqual(storage, {None} if patch == 0 else {"FILE"})
                    self.assertEqual(entry["rocpd_version"], v)
                    db.close()

    def test_kernel_symbols_and_resources(self):
        for v in VERSIONS:
            for entry, db in self.files(v):
                with self.subTest(version=v, file=entry["file"]):
                    self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_info_kernel_symbol WHERE kernel_name NOT LIKE '%.kd'"), 0)
                    self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_info_kernel_symbol WHERE display_name LIKE '%.kd'"), 0)
                    sums = db.execute(
                        """SELECT sum(s.sgpr_count), sum(s.arch_vgpr_count), sum(s.accum_vgpr_count),
                                  sum(k.group_segment_size), sum(k.private_segment_size),
                                  sum(k.group_segment_size < s.group_segment_size),
                                  sum(k.private_segment_size <> s.private_segment_size)
                             FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id""").fetchone()
                    self.assertEqual(sums, (entry["kernel_sgpr_sum"], entry["kernel_arch_vgpr_sum"],
                                            entry["kernel_accum_vgpr_sum"], entry["kernel_lds_sum"],
                                            entry["kernel_scratch_sum"], 0, 0))
                    db.close()

    def test_graph_launches(self):
        for v in VERSIONS[2:]:
            for entry, db in self.files(v):
                with self.subTest(version=v, file=entry["file"]):
                    self.assertGreater(entry["graph_launches"], 0)
                    self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_graph_launch"), entry["graph_launches"])
                    graph_ops = scalar(db, "SELECT (SELECT count(*) FROM rocpd_kernel_dispatch WHERE graph_exec_id <> 0)"
                                           " + (SELECT count(*) FROM rocpd_memory_copy WHERE graph_exec_id <> 0)")
                    self.assertEqual(graph_ops, entry["graph_ops"])
                    self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_kernel_dispatch WHERE graph_exec_id <> 0"),
                                     entry["graph_kernels"])
                    self.assertEqual(scalar(db, "SELECT sum(kernel_dispatch_count) FROM rocpd_graph_launch"), entry["graph_kernels"])
                    # Every launch: a hipGraphLaunch region with the same correlation id, its ops
                    # inside [start, end] with its exec id; a node id is never 0 on a graph op.
                    rows = db.execute(
                        """SELECT g.graph_exec_id, g.start, g."end", g.kernel_dispatch_count, n.string,
                                  (SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event ke ON ke.id = k.event_id
                                    WHERE ke.correlation_id = e.correlation_id AND k.graph_exec_id = g.graph_exec_id
                                      AND k.graph_node_id <> 0 AND k.start >= g.start AND k."end" <= g."end")
                             FROM rocpd_graph_launch g JOIN rocpd_event e ON e.id = g.event_id
                             JOIN rocpd_region r ON r.id = e.correlation_id JOIN rocpd_string n ON n.id = r.name_id""").fetchall()
                    for exec_id, start, end, count, api, inside in rows:
                        self.assertEqual(api, "hipGraphLaunch")
                        self.assertEqual(inside, count)
                        self.assertLess(start, end)
                    self.assertEqual(len({r[0] for r in rows}), 3, "three graph execs, launched repeatedly")
                    db.close()

    def test_hip_events_are_not_gpu_ops(self):
        for v in ("3.0.4", "3.0.5"):
            for entry, db in self.files(v):
                with self.subTest(version=v, file=entry["file"]):
                    self.assertGreater(entry["hip_events"], 0)
                    rows = db.execute(
                        """SELECT h.queue_id, h.source_queue_id, n.string, c.string, api.string, h.start, h."end"
                             FROM rocpd_hip_event h JOIN rocpd_string n ON n.id = h.name_id
                             JOIN rocpd_event e ON e.id = h.event_id JOIN rocpd_string c ON c.id = e.category_id
                             JOIN rocpd_region r ON r.id = e.correlation_id JOIN rocpd_string api ON api.id = r.name_id""").fetchall()
                    self.assertEqual(len(rows), entry["hip_events"])
                    self.assertEqual(len(rows), scalar(db, "SELECT count(*) FROM hip_events"))
                    for queue, source, name, category, api, start, end in rows:
                        self.assertEqual(category, "HIP_EVENT")
                        if name == "HIP_EVENT_RECORD":
                            self.assertEqual((api, queue), ("hipEventRecord", source))
                        else:
                            self.assertEqual((name, api), ("HIP_EVENT_WAIT", "hipStreamWaitEvent"))
                        self.assertLess(start, end)
                    self.assertGreater(scalar(db, "SELECT count(*) FROM hip_events WHERE name LIKE '%HIP_EVENT_WAIT%' "
                                                  "AND queue_id <> source_queue_id"), 0)
                    db.close()

    def test_memory_allocations(self):
        for v in VERSIONS:
            for entry, db in self.files(v):
                with self.subTest(version=v, file=entry["file"]):
                    got = db.execute(
                        """SELECT sum(type = 'ALLOC' AND level = 'REAL'), sum(CASE WHEN type = 'ALLOC' AND level = 'REAL' THEN size END),
                                  sum(type = 'FREE' AND level = 'REAL'), sum(level = 'SCRATCH'),
                                  sum(type = 'FREE' AND size <> 0), sum(type = 'ALLOC' AND agent_id IS NULL)
                             FROM rocpd_memory_allocate""").fetchone()
                    self.assertEqual(got, (entry["memory_allocs"], entry["memory_alloc_bytes"], entry["memory_frees"],
                                           entry["scratch_allocs"], 0, 0))
                    self.assertGreater(entry["memory_frees"], 0)
                    # Frees release earlier allocations: a paired free names the allocation's agent.
                    paired = scalar(db, """SELECT count(*) FROM rocpd_memory_allocate f JOIN rocpd_memory_allocate a
                                             ON a.address = f.address AND a.type = 'ALLOC' AND a.start < f.start
                                          WHERE f.type = 'FREE' AND f.agent_id = a.agent_id""")
                    self.assertEqual(paired, scalar(db, "SELECT count(*) FROM rocpd_memory_allocate WHERE type = 'FREE' AND agent_id IS NOT NULL"))
                    self.assertGreater(paired, 0)
                    cats = {r[0] for r in db.execute("""SELECT DISTINCT c.string FROM rocpd_memory_allocate m
                                                         JOIN rocpd_event e ON e.id = m.event_id JOIN rocpd_string c ON c.id = e.category_id""")}
                    self.assertEqual(cats, {"MEMORY_ALLOCATION", "SCRATCH_MEMORY"})
                    db.close()

    def test_counters_and_spm(self):
        for v in VERSIONS:
            patch = int(v[-1])
            for entry, db in self.files(v):
                with self.subTest(version=v, file=entry["file"]):
                    where = "WHERE e.sample_id IS NULL" if patch >= 3 else ""
                    rows = db.execute(f"""SELECT i.name, count(*), sum(e.value) FROM rocpd_pmc_event e
                                           JOIN rocpd_info_pmc i ON i.id = e.pmc_id {where} GROUP BY i.name""").fetchall()
                    self.assertEqual(sum(r[1] for r in rows), entry["counters"])
                    self.assertEqual({r[0]: int(r[2]) for r in rows}, entry["counter_sums"])
                    self.assertEqual(sorted(entry["counter_sums"]), sorted(["SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU"]))
                    # Every counter row belongs to a kernel dispatch's event.
                    self.assertEqual(scalar(db, """SELECT count(*) FROM rocpd_pmc_event e
                                                    LEFT JOIN rocpd_kernel_dispatch k ON k.event_id = e.event_id
                                                   WHERE k.id IS NULL"""), 0)
                    if patch >= 3:
                        spm = db.execute("""SELECT count(DISTINCT s.id), count(*) FROM rocpd_pmc_event e
                                             JOIN rocpd_sample s ON s.id = e.sample_id
                                             JOIN rocpd_track t ON t.id = s.track_id JOIN rocpd_string n ON n.id = t.name_id
                                            WHERE n.string = 'SPM'""").fetchone()
                        self.assertEqual(spm, (entry["spm_samples"], entry["spm_values"]))
                        self.assertGreater(entry["spm_samples"], 0)
                        self.assertEqual(scalar(db, "SELECT count(*) FROM spm_counters"), entry["spm_values"])
                        # The shipped counters_collection view leaves SPM rows out.
                        self.assertEqual(scalar(db, "SELECT sum(value) FROM counters_collection"),
                                         sum(entry["counter_sums"].values()))
                    else:
                        self.assertNotIn("spm_samples", entry)
                    db.close()

    def test_mixed_job_with_graphs(self):
        directory, truth = self.sets["mixed"]
        self.assertEqual([f["format"] for f in truth["files"]], ["rpd", "rpd", "rocpd"])
        self.assertNotIn("rocpd_version", truth["files"][0])
        for entry in truth["files"][:2]:
            db = connect(os.path.join(directory, entry["file"]))
            rows = db.execute("""SELECT a.id, count(DISTINCT l.op_id), k.gridX + k.workgroupX + k.groupSegmentSize
                                   FROM rocpd_api a JOIN rocpd_string n ON n.id = a.apiName_id
                                   JOIN rocpd_api_ops l ON l.api_id = a.id
                                   LEFT JOIN rocpd_kernelapi k ON k.api_ptr_id = a.id
                                  WHERE n.string = 'hipGraphLaunch' GROUP BY a.id""").fetchall()
            self.assertGreater(len(rows), 0)
            for _, ops, sizes in rows:
                self.assertGreaterEqual(ops, 3)
                self.assertEqual(sizes, 0)
            self.assertEqual(scalar(db, "SELECT count(*) FROM (SELECT api_ptr_id FROM rocpd_kernelapi GROUP BY 1 HAVING count(*) > 1)"), 0)
            db.close()


class MergedFiles(unittest.TestCase):
    """--merge K: `rocpd merge` files of K processes (schema/rocpd_merged.md)."""

    @classmethod
    def setUpClass(cls):
        if not GEN or not os.path.exists(GEN):
            sys.exit(77)
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_gen_merged_")
        cls.sets = {
            "3.0.3": GeneratedJob.make.__func__(cls, "v303", "--procs", 5, "--format", "rocpd", "--ops", 500, "--seed", 31,
                                                "--merge", 2, "--rocpd-version", "3.0.3", "--counters", 2),
            "3": GeneratedJob.make.__func__(cls, "v3", "--procs", 3, "--format", "rocpd", "--ops", 400, "--seed", 32,
                                            "--merge", 3),
        }
        cls.single = GeneratedJob.make.__func__(cls, "single", "--procs", 5, "--format", "rocpd", "--ops", 500, "--seed", 31,
                                                "--rocpd-version", "3.0.3", "--counters", 2)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_files_and_truth_entries(self):
        directory, truth = self.sets["3.0.3"]
        self.assertEqual(sorted(os.listdir(directory)), ["merged0.db", "merged1.db", "merged2.db", "truth.json"])
        self.assertEqual([(f["file"], f["db"], len(f["pids"])) for f in truth["files"]],
                         [("merged0.db", "merged0", 2), ("merged1.db", "merged1", 2), ("merged2.db", "merged2", 1)])
        # The same processes as the unmerged job: pids, uuids and per-process sums add up.
        _, single = self.single
        self.assertEqual([p for f in truth["files"] for p in f["pids"]], [p for f in single["files"] for p in f["pids"]])
        self.assertEqual([u for f in truth["files"] for u in f["uuids"]], [f["uuid"] for f in single["files"]])
        self.assertEqual(truth["files"][0]["uuid"], None)
        self.assertEqual(truth["files"][2]["uuid"], truth["files"][2]["uuids"][0])
        for key in ("ops", "kernels", "apis", "markers", "ops_sum_ns", "graph_ops", "memory_allocs",
                    "counters", "spm_values", "kernel_sgpr_sum"):
            self.assertEqual(truth["files"][0][key], single["files"][0][key] + single["files"][1][key], key)
        self.assertEqual(truth["files"][0]["counter_sums"],
                         {k: v + single["files"][1]["counter_sums"][k] for k, v in single["files"][0]["counter_sums"].items()})
        self.assertEqual(truth["job"], single["job"])

    def test_layout(self):
        for name, (directory, truth) in self.sets.items():
            for entry in truth["files"]:
                with self.subTest(set=name, file=entry["file"]):
                    db = connect(os.path.join(directory, entry["file"]))
                    suffixes = [u.replace("-", "_") for u in entry["uuids"]]
                    metas = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB "
                                                      "'rocpd_metadata_*' ORDER BY rowid")]
                    self.assertEqual(metas, [f"rocpd_metadata_{x}" for x in suffixes])
                    for x, guid in zip(suffixes, entry["uuids"]):
                        meta = dict(db.execute(f'SELECT tag, value FROM "rocpd_metadata_{x}"'))
                        self.assertEqual((meta["uuid"], meta["guid"]), ("_" + x, guid))
                        self.assertEqual(meta["schema_version"], name)
                        for t in ("region", "kernel_dispatch", "string", "event"):
                            self.assertEqual(scalar(db, f'SELECT count(*) FROM "rocpd_{t}_{x}" WHERE guid <> ?', guid), 0)
                    self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_metadata WHERE tag = 'schema_version'"), len(suffixes))
                    if len(suffixes) > 1:
                        view = scalar(db, "SELECT sql FROM sqlite_master WHERE name = 'rocpd_kernel_dispatch'")
                        self.assertEqual(view, 'CREATE VIEW "rocpd_kernel_dispatch" AS ' + " UNION ALL ".join(
                            f'SELECT * FROM "rocpd_kernel_dispatch_{x}"' for x in suffixes))
                    views = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'")]
                    self.assertEqual(len(views), len(set(views)))
                    for v in ("kernels", "regions", "top", "busy", "memory_copies"):
                        self.assertIn(v, views)
                    self.assertEqual(scalar(db, "SELECT count(*) FROM kernels"), entry["kernels"])
                    db.close()

    def test_truth_matches_per_process_tables_and_union_views(self):
        for name, (directory, truth) in self.sets.items():
            for entry in truth["files"]:
                with self.subTest(set=name, file=entry["file"]):
                    path = os.path.join(directory, entry["file"])
                    ops, calls = [], []
                    for u in entry["uuids"]:
                        o, c = read_rocpd(path, u.replace("-", "_"))
                        ops += o
                        calls += c
                    self.assertEqual(summarise(ops, calls), base_truth(entry))
                    self.assertEqual(summarise(*read_rocpd(path)), base_truth(entry))
                    if name == "3.0.3":
                        db = connect(path)
                        rows = db.execute("""SELECT i.name, sum(e.value) FROM rocpd_pmc_event e JOIN rocpd_info_pmc i
                                               ON i.id = e.pmc_id AND i.guid = e.guid WHERE e.sample_id IS NULL GROUP BY 1""")
                        self.assertEqual({n: int(v) for n, v in rows}, entry["counter_sums"])
                        db.close()


PID_STRIDE, GPU_STRIDE = 10_000_000, 1000


class MultiNode(unittest.TestCase):
    """--rpd-nodes N (stride encoding in rpd3 files, hosts) and --host-skew NS (clocks, collective)."""

    @classmethod
    def setUpClass(cls):
        if not GEN or not os.path.exists(GEN):
            sys.exit(77)
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_gen_nodes_")
        make = lambda *a: GeneratedJob.make.__func__(cls, *a)
        cls.sets = {
            "rpd3": make("rpd3", "--procs", 4, "--format", "rpd3", "--ops", 400, "--seed", 41, "--rpd-nodes", 2, "--sessions", 2),
            "mixed": make("mixed", "--procs", 6, "--format", "mixed", "--ops", 300, "--seed", 42, "--rpd-nodes", 3,
                          "--host-skew", 3_000_000, "--rocpd-version", "3.0.1"),
            "merged": make("merged", "--procs", 4, "--format", "rocpd", "--ops", 300, "--seed", 43, "--merge", 2,
                           "--host-skew", 1_000_000),
        }

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def read_decoded(self, directory, entry):
        """Ops and calls with pids and gpu ids decoded (rpd schema 3 files); checks every row's node."""
        path = os.path.join(directory, entry["file"])
        if entry["format"] == "rocpd":
            return read_rocpd(path)
        ops, calls = read_rpd(path)
        if entry["schema_version"] == 2:
            self.assertTrue(all(o[0] < PID_STRIDE and o[1] < GPU_STRIDE for o in ops), "rpd v2 has no strides")
            return ops, calls
        node = entry["node"]
        self.assertEqual({o[0] // PID_STRIDE for o in ops} | {c[0] // PID_STRIDE for c in calls}, {node})
        self.assertEqual({o[1] // GPU_STRIDE for o in ops}, {node})
        return ([(p % PID_STRIDE, g % GPU_STRIDE) + tuple(rest) for p, g, *rest in ops],
                [(p % PID_STRIDE,) + tuple(rest) for p, *rest in calls])

    def test_truth_matches_the_decoded_files(self):
        for name, (directory, truth) in self.sets.items():
            for entry in truth["files"]:
                with self.subTest(set=name, file=entry["file"]):
                    self.assertEqual(summarise(*self.read_decoded(directory, entry)), base_truth(entry))

    def test_nodes_hosts_and_strides(self):
        for name in ("rpd3", "mixed"):
            directory, truth = self.sets[name]
            nodes = 2 if name == "rpd3" else 3
            for rank, entry in enumerate(truth["files"]):
                with self.subTest(set=name, file=entry["file"]):
                    self.assertEqual(entry["node"], rank % nodes)
                    self.assertEqual(entry["hostname"], f"node{rank % nodes}")
                    db = connect(os.path.join(directory, entry["file"]))
                    if entry["format"] == "rocpd":
                        self.assertEqual(scalar(db, "SELECT hostname FROM rocpd_info_node"), entry["hostname"])
                    elif entry["schema_version"] == 3:
                        meta = dict(db.execute("SELECT tag, value FROM rocpd_metadata"))
                        self.assertEqual((meta["gpu_stride"], meta["pid_stride"]), ("1000", "10000000"))
                        # rpd records no host: no table or tag names one.
                        self.assertFalse([t for t in meta if "host" in t or "node" in t])
                        # The shipped napi/nop views decode the values.
                        self.assertEqual([r[0] for r in db.execute("SELECT DISTINCT node FROM napi")], [entry["node"]])
                        self.assertEqual(sorted(r[0] for r in db.execute("SELECT DISTINCT pid FROM napi")), sorted(entry["pids"]))
                        self.assertEqual([r[0] for r in db.execute("SELECT DISTINCT node FROM nop")], [entry["node"]])
                        self.assertEqual(sorted(r[0] for r in db.execute("SELECT DISTINCT gpuId FROM nop")),
                                         [g["gpu"] for g in entry["gpus"]])
                    db.close()

    def test_clock_offsets_and_final_collective(self):
        for name in ("mixed", "merged"):
            directory, truth = self.sets[name]
            ends = set()
            offsets_by_node = {}
            for entry in truth["files"]:
                offsets = entry.get("clock_offsets_ns", [entry.get("clock_offset_ns")])
                nodes = entry.get("nodes", [entry.get("node")])
                for node, offset in zip(nodes, offsets):
                    self.assertLessEqual(abs(offset), 3_000_000)
                    self.assertEqual(offsets_by_node.setdefault(node, offset), offset, "one clock per host")
                    if node == 0:
                        self.assertEqual(offset, 0)
                db = connect(os.path.join(directory, entry["file"]))
                if entry["format"] == "rpd":
                    last = db.execute("""SELECT a.pid % 10000000, o.gpuId % 1000, o.start, o."end", d.string FROM rocpd_op o
                                           JOIN rocpd_string d ON d.id = o.description_id JOIN rocpd_api_ops l ON l.op_id = o.id
                                           JOIN rocpd_api a ON a.id = l.api_id
                                          WHERE o.id IN (SELECT max(id) FROM rocpd_op GROUP BY id >> 32)""").fetchall()
                else:
                    last = db.execute("""SELECT k.pid, a.type_index, k.start, k."end", s.kernel_name FROM rocpd_kernel_dispatch k
                                           JOIN rocpd_info_agent a ON a.id = k.agent_id AND a.guid = k.guid
                                           JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id AND s.guid = k.guid
                                          WHERE k.id = (SELECT max(id) FROM rocpd_kernel_dispatch x WHERE x.guid = k.guid)""").fetchall()
                db.close()
                self.assertEqual(len(last), len(entry["pids"]))
                for pid, gpu, start, end, kernel in last:
                    self.assertEqual((gpu, kernel.removesuffix(".kd")), (0, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"))
                    offset = offsets[entry["pids"].index(pid)]
                    ends.add(end - offset)
                    self.assertLess(start, end)
                    self.assertLessEqual(end, entry["last_ns"])
                self.assertEqual(ends, {entry["collective_end_true_ns"]})
            self.assertGreater(len(set(offsets_by_node.values())), 1, "hosts disagree")


def read_rocpd4(path):
    """Ops and calls of a rocpd 4.1.0 file: who/where from rocpd_track, categories from rocpd_info_category."""
    db = connect(path)
    kernels = db.execute(
        """SELECT t.pid, a.type_index, k.start, k."end", s.kernel_name, 'kernel' FROM rocpd_kernel_dispatch k
             JOIN rocpd_track t ON t.id = k.track_id AND t.guid = k.guid
             JOIN rocpd_info_agent a ON a.id = t.agent_id AND a.guid = t.guid
             JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id AND s.guid = k.guid""").fetchall()
    copies = db.execute(
        """SELECT t.pid, CASE WHEN d.type = 'GPU' THEN d.type_index ELSE s.type_index END, c.start, c."end", n.string, 'copy'
             FROM rocpd_memory_copy c JOIN rocpd_track t ON t.id = c.track_id AND t.guid = c.guid
             JOIN rocpd_string n ON n.id = c.name_id AND n.guid = c.guid
             JOIN rocpd_info_agent d ON d.id = c.dst_agent_id AND d.guid = c.guid
             JOIN rocpd_info_agent s ON s.id = c.src_agent_id AND s.guid = c.guid""").fetchall()
    ops = [(p, g, st, e, n.removesuffix(".kd"), k) for p, g, st, e, n, k in kernels]
    ops += [(p, g, st, e, ROCPD_COPY_NAMES[n], k) for p, g, st, e, n, k in copies]
    rows = db.execute(
        """SELECT t.pid, r.start, r."end", n.string, c.name, json_extract(e.extdata, '$.message') FROM rocpd_region r
             JOIN rocpd_track t ON t.id = r.track_id AND t.guid = r.guid
             JOIN rocpd_string n ON n.id = r.name_id AND n.guid = r.guid
             JOIN rocpd_event e ON e.id = r.event_id AND e.guid = r.guid
             JOIN rocpd_info_category c ON c.id = e.category_id AND c.guid = e.guid
           UNION ALL
           SELECT t.pid, m.timestamp, m.timestamp, n.string, c.name, json_extract(e.extdata, '$.message') FROM rocpd_sample m
             JOIN rocpd_track t ON t.id = m.track_id AND t.guid = m.guid
             JOIN rocpd_string n ON n.id = m.name_id AND n.guid = m.guid
             JOIN rocpd_event e ON e.id = m.event_id AND e.guid = m.guid
             JOIN rocpd_info_category c ON c.id = e.category_id AND c.guid = e.guid""").fetchall()
    db.close()
    calls = []
    for pid, st, e, name, category, message in rows:
        if category == "marker_api":
            assert name in ("roctxThreadRangeA", "roctxProcessRangeA", "roctxMarkA"), name
            calls.append((pid, st, e, "UserMarker", message))
        else:
            assert category == "hip_api", category
            calls.append((pid, st, e, name, None))
    return ops, calls


class Rocpd4Files(unittest.TestCase):
    """--format rocpd4: rocpd schema 4.1.0 (schema/rocpd_v4.sql)."""

    @classmethod
    def setUpClass(cls):
        if not GEN or not os.path.exists(GEN):
            sys.exit(77)
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_gen_v4_")
        make = lambda *a: GeneratedJob.make.__func__(cls, *a)
        cls.v4 = make("v4", "--procs", 2, "--format", "rocpd4", "--ops", 900, "--seed", 61)
        cls.rpd = make("rpd", "--procs", 2, "--format", "rpd3", "--ops", 900, "--seed", 61)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_truth_matches_the_files(self):
        directory, truth = self.v4
        for entry in truth["files"]:
            with self.subTest(file=entry["file"]):
                self.assertEqual((entry["format"], entry["schema_version"], entry["rocpd_version"]), ("rocpd", 4, "4.1.0"))
                self.assertEqual(summarise(*read_rocpd4(os.path.join(directory, entry["file"]))), base_truth(entry))
        # The same workload as any other format, except that hipFree is paired with hipMalloc
        # (a different argument, same times).
        strip = lambda t: [base_truth(f) for f in t["files"]]
        self.assertEqual(strip(truth), strip(self.rpd[1]))

    def test_layout_and_option_keys(self):
        directory, truth = self.v4
        for entry in truth["files"]:
            db = connect(os.path.join(directory, entry["file"]))
            suffix = entry["uuid"].replace("-", "_")
            meta = dict(db.execute("SELECT tag, value FROM rocpd_metadata"))
            self.assertEqual(meta, {"schema_version": "4.1.0", "schema_version_major": "4", "schema_version_minor": "1",
                                    "schema_version_patch": "0", "schema_creation_time": "2026-01-01 00:00:00",
                                    "uuid": "_" + suffix, "guid": entry["uuid"]})
            self.assertNotIn("pid", columns(db, f"rocpd_kernel_dispatch_{suffix}"))
            self.assertIn("track_id", columns(db, f"rocpd_region_{suffix}"))
            views = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'")]
            for view in views:
                db.execute(f'SELECT * FROM "{view}" LIMIT 1').fetchall()
            self.assertEqual(scalar(db, "SELECT count(*) FROM kernels"), entry["kernels"])
            self.assertEqual(scalar(db, "SELECT count(*) FROM regions_and_samples"), entry["apis"] + entry["markers"])
            self.assertEqual({r[0] for r in db.execute("SELECT name FROM rocpd_info_category")},
                             {"hip_api", "marker_api", "kernel_dispatch", "memory_copy", "memory_allocation", "scratch_memory"})
            # One track per distinct (tid, agent, queue, stream, name).
            self.assertEqual(scalar(db, """SELECT count(*) FROM (SELECT 1 FROM rocpd_track GROUP BY tid, agent_id, queue_id,
                                            stream_id, name_id HAVING count(*) > 1)"""), 0)
            sums = db.execute("""SELECT sum(s.sgpr_count), sum(s.arch_vgpr_count), sum(s.accum_vgpr_count),
                                        sum(k.group_segment_size), sum(k.private_segment_size)
                                   FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id""").fetchone()
            self.assertEqual(sums, (entry["kernel_sgpr_sum"], entry["kernel_arch_vgpr_sum"], entry["kernel_accum_vgpr_sum"],
                                    entry["kernel_lds_sum"], entry["kernel_scratch_sum"]))
            alloc = db.execute("""SELECT sum(type = 'ALLOC' AND level = 'REAL'),
                                         sum(CASE WHEN type = 'ALLOC' AND level = 'REAL' THEN size END),
                                         sum(type = 'FREE'), sum(level = 'SCRATCH') FROM memory_allocations""").fetchone()
            self.assertEqual(alloc, (entry["memory_allocs"], entry["memory_alloc_bytes"], entry["memory_frees"],
                                     entry["scratch_allocs"]))
            db.close()


def read_rocprofsys(path):
    """Ops and calls of a rocprofiler-systems file: rowid agents and threads, messages in rocpd_arg."""
    db = connect(path)
    kernels = db.execute(
        """SELECT k.pid, a.type_index, k.start, k."end", s.kernel_name, 'kernel' FROM rocpd_kernel_dispatch k
             JOIN rocpd_info_agent a ON a.id = k.agent_id JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id""").fetchall()
    copies = db.execute(
        """SELECT c.pid, CASE WHEN d.type = 'GPU' THEN d.type_index ELSE s.type_index END, c.start, c."end", n.string, 'copy'
             FROM rocpd_memory_copy c JOIN rocpd_string n ON n.id = c.name_id
             JOIN rocpd_info_agent d ON d.id = c.dst_agent_id JOIN rocpd_info_agent s ON s.id = c.src_agent_id""").fetchall()
    ops = [(p, g, st, e, n.removesuffix(".kd"), k) for p, g, st, e, n, k in kernels]
    ops += [(p, g, st, e, ROCPD_COPY_NAMES[n], k) for p, g, st, e, n, k in copies]
    rows = db.execute(
        """SELECT r.pid, r.start, r."end", n.string, c.string,
                  (SELECT value FROM rocpd_arg a WHERE a.event_id = r.event_id AND a.name = 'message')
             FROM rocpd_region r JOIN rocpd_string n ON n.id = r.name_id
             JOIN rocpd_event e ON e.id = r.event_id JOIN rocpd_string c ON c.id = e.category_id""").fetchall()
    # Instant marks: samples of a rocm_marker_api event on a thread's marker track.
    rows += db.execute(
        """SELECT t.pid, s.timestamp, s.timestamp, 'roctxMarkA', c.string,
                  (SELECT value FROM rocpd_arg a WHERE a.event_id = s.event_id AND a.name = 'message')
             FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id
             JOIN rocpd_event e ON e.id = s.event_id JOIN rocpd_string c ON c.id = e.category_id
            WHERE c.string = 'rocm_marker_api'""").fetchall()
    db.close()
    calls = []
    for pid, st, e, name, category, message in rows:
        if category == "rocm_marker_api":
            assert name in ("roctxRangePushA", "roctxRangeStartA") or (name == "roctxMarkA" and st == e), name
            calls.append((pid, st, e, "UserMarker", message))
        else:
            assert category == "rocm_hip_api", category
            calls.append((pid, st, e, name, None))
    return ops, calls


class RocprofsysFiles(unittest.TestCase):
    """--format rocprofsys: rocprofiler-systems' rocpd files (schema/rocprofsys.sql)."""

    @classmethod
    def setUpClass(cls):
        if not GEN or not os.path.exists(GEN):
            sys.exit(77)
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_gen_sys_")
        make = lambda *a: GeneratedJob.make.__func__(cls, *a)
        cls.sys = make("sys", "--procs", 2, "--format", "rocprofsys", "--ops", 900, "--seed", 61)
        cls.v4 = make("v4", "--procs", 2, "--format", "rocpd4", "--ops", 900, "--seed", 61)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_truth_matches_the_files(self):
        directory, truth = self.sys
        for entry in truth["files"]:
            with self.subTest(file=entry["file"]):
                self.assertEqual((entry["format"], entry["schema_version"], entry["writer"]), ("rocpd", 3, "rocprofiler-systems"))
                self.assertEqual(summarise(*read_rocprofsys(os.path.join(directory, entry["file"]))), base_truth(entry))
        strip = lambda t: [base_truth(f) for f in t["files"]]
        self.assertEqual(strip(truth), strip(self.v4[1]))
        for a, b in zip(truth["files"], self.v4[1]["files"]):
            for key in ("kernel_sgpr_sum", "kernel_lds_sum", "memory_allocs", "memory_alloc_bytes", "memory_frees", "scratch_allocs"):
                self.assertEqual(a[key], b[key], key)

    def test_layout(self):
        directory, truth = self.sys
        for entry in truth["files"]:
            db = connect(os.path.join(directory, entry["file"]))
            upid = entry["uuid"]
            self.assertRegex(upid, r"^[0-9a-f]{32}$")
            self.assertEqual(dict(db.execute("SELECT tag, value FROM rocpd_metadata")),
                             {"schema_version": "3", "uuid": "_" + upid, "guid": upid, "upid": upid})
            for t in ("region", "kernel_dispatch", "event", "string", "info_agent"):
                self.assertEqual(scalar(db, f'SELECT count(*) FROM "rocpd_{t}_{upid}" WHERE guid <> ?', upid), 0)
            # Rowids: threads 1.., regions and dispatches 1.. (not correlation or dispatch ids of the SDK).
            threads = db.execute("SELECT id, tid, name FROM rocpd_info_thread ORDER BY id").fetchall()
            self.assertEqual([t[0] for t in threads], list(range(1, len(threads) + 1)))
            self.assertTrue(all(name == f"Thread {tid}" for _, tid, name in threads))
            self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_region WHERE tid NOT IN (SELECT id FROM rocpd_info_thread)"), 0)
            self.assertEqual(scalar(db, "SELECT min(id) FROM rocpd_info_agent"), 1)
            self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_event WHERE correlation_id <> 0"), 0)
            self.assertEqual(scalar(db, "SELECT sum(init + fini + start + \"end\") FROM rocpd_info_process"), 0)
            # Ops link to their launch through the event's stack_id.
            rows = db.execute("""SELECT n.string FROM rocpd_kernel_dispatch k JOIN rocpd_event ke ON ke.id = k.event_id
                                   JOIN rocpd_event re ON re.stack_id = ke.stack_id
                                   JOIN rocpd_region r ON r.event_id = re.id JOIN rocpd_string n ON n.id = r.name_id""").fetchall()
            self.assertEqual(len(rows), entry["kernels"])
            self.assertTrue(all(r[0] in LAUNCH_APIS for r in rows))
            # Device metrics: samples on thread-less tracks with a pmc time series; not markers.
            got = db.execute("""SELECT count(*), count(DISTINCT s.track_id), count(p.id) FROM rocpd_sample s
                                  JOIN rocpd_track t ON t.id = s.track_id JOIN rocpd_string n ON n.id = t.name_id
                                  LEFT JOIN rocpd_pmc_event p ON p.event_id = s.event_id
                                 WHERE n.string = 'device_busy_gfx' AND t.tid IS NULL""").fetchone()
            self.assertEqual(got, (entry["metric_samples"], 4, entry["metric_samples"]))
            # The other samples are the instant marks (rocm_marker_api events on thread tracks).
            marks = scalar(db, """SELECT count(*) FROM rocpd_sample s JOIN rocpd_event e ON e.id = s.event_id
                                    JOIN rocpd_string c ON c.id = e.category_id JOIN rocpd_track t ON t.id = s.track_id
                                   WHERE c.string = 'rocm_marker_api' AND t.tid IS NOT NULL""")
            self.assertGreater(marks, 0)
            self.assertEqual(scalar(db, "SELECT count(*) FROM rocpd_sample"), entry["metric_samples"] + marks)
            for view in [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'")]:
                db.execute(f'SELECT * FROM "{view}" LIMIT 1').fetchall()
            db.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
