"""The generator's upstream layouts (tests/make_fixtures.sh, layouts/) read with counts, sums, names,
pids and details equal to the generator's ground truth (truth.json, computed from the in-memory
workload, never from the files)."""
import json
import os
import sqlite3
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import FIXTURES, connect, main  # noqa: E402

LAYOUTS = os.path.join(FIXTURES, "layouts")


def load(name):
    d = os.path.join(LAYOUTS, name)
    with open(os.path.join(d, "truth.json")) as f:
        truth = json.load(f)
    con = connect()
    con.execute("SELECT rocpd_open(?)", (d,))
    return con, truth


def one(con, sql, args=()):
    return con.execute(sql, args).fetchone()


def rows_of(con, sql, args=()):
    return con.execute(sql, args).fetchall()


class Generated(unittest.TestCase):
    def check_basics(self, con, truth):
        for f in truth["files"]:
            db = f["db"]
            with self.subTest(db=db):
                pids, ops, apis = one(con, "SELECT pids, ops, apis FROM rocpd_members WHERE db = ?", (db,))
                self.assertEqual(json.loads(pids), sorted(f["pids"]))
                self.assertEqual(ops, f["ops"])
                self.assertEqual(apis, f["apis"] + f["markers"])
                self.assertEqual(one(con, "SELECT count(*), sum(duration) FROM rocpd_ops WHERE db = ?", (db,)),
                                 (f["ops"], f["ops_sum_ns"]))
                self.assertEqual(one(con, "SELECT count(*) FROM rocpd_apis WHERE db = ? AND domain = 'marker'",
                                     (db,))[0], f["markers"])
                markers = {n: (c, t) for n, c, t in con.execute(
                    "SELECT name, count(*), sum(duration) FROM rocpd_apis WHERE db = ? AND domain = 'marker' "
                    "GROUP BY name", (db,))}
                self.assertEqual(markers, {m["name"]: (m["calls"], m["total_ns"]) for m in f["marker_top"]})
                # rocprofv3 symbols keep the '.kd' of the kernel descriptor; the truth names the kernel.
                kernels = {n: (c, t) for n, c, t in con.execute(
                    "SELECT CASE WHEN name LIKE '%.kd' THEN substr(name, 1, length(name) - 3) ELSE name END AS k, "
                    "count(*), sum(duration) FROM rocpd_ops WHERE db = ? AND kind = 'kernel' GROUP BY k", (db,))}
                want = {t["name"]: (t["calls"], t["total_ns"]) for t in f["top"] if t["kind"] == "kernel"}
                self.assertEqual({n: kernels.get(n) for n in want}, want)
                busy = {g: b for g, b in con.execute("SELECT gpu, busy_ns FROM rocpd_busy WHERE db = ?", (db,))}
                self.assertEqual(busy, {g["gpu"]: g["busy_ns"] for g in f["gpus"]})

    def check_details(self, con, truth):
        for f in truth["files"]:
            db = f["db"]
            with self.subTest(db=db, what="details"):
                if "kernel_sgpr_sum" in f:
                    self.assertEqual(one(con, "SELECT sum(sgpr), sum(vgpr), sum(agpr), sum(lds_bytes), "
                                              "sum(scratch_bytes), count(*) FROM rocpd_kernels WHERE db = ?", (db,)),
                                     (f["kernel_sgpr_sum"], f["kernel_arch_vgpr_sum"], f["kernel_accum_vgpr_sum"],
                                      f["kernel_lds_sum"], f["kernel_scratch_sum"], f["kernels"]))
                if "memory_allocs" in f:
                    self.assertEqual(one(con, "SELECT count(*) FILTER (WHERE operation = 'ALLOC' AND level = 'REAL'), "
                                              "sum(bytes) FILTER (WHERE operation = 'ALLOC' AND level = 'REAL'), "
                                              "count(*) FILTER (WHERE operation = 'FREE' AND level = 'REAL'), "
                                              "count(*) FILTER (WHERE level = 'SCRATCH') FROM rocpd_memory "
                                              "WHERE db = ?", (db,)),
                                     (f["memory_allocs"], f["memory_alloc_bytes"], f["memory_frees"],
                                      f["scratch_allocs"]))
                if "graph_ops" in f:
                    self.assertEqual(one(con, "SELECT count(*) FROM rocpd_ops WHERE db = ? AND graph_id IS NOT NULL",
                                         (db,))[0], f["graph_ops"])
                    self.assertEqual(one(con, "SELECT count(*) FROM rocpd_kernels WHERE db = ? AND graph_id IS NOT "
                                              "NULL", (db,))[0], f["graph_kernels"])
                if "hip_events" in f:
                    self.assertEqual(one(con, "SELECT count(*) FROM rocpd_hip_events WHERE db = ?", (db,))[0],
                                     f["hip_events"])
                if "counters" in f:
                    self.assertEqual(one(con, "SELECT count(*) FROM rocpd_counters WHERE db = ?", (db,))[0],
                                     f["counters"])
                    sums = dict(con.execute("SELECT counter, sum(value) FROM rocpd_counters WHERE db = ? "
                                            "GROUP BY counter", (db,)))
                    self.assertEqual(set(sums), set(f["counter_sums"]))
                    for name, total in f["counter_sums"].items():
                        self.assertAlmostEqual(sums[name], total, delta=abs(total) * 1e-12)

    def test_rocpd_3_0_0(self):
        con, truth = load("rocpd_v300")
        self.check_basics(con, truth)
        self.check_details(con, truth)
        self.assertEqual({r[0] for r in con.execute("SELECT version FROM rocpd_members")}, {"3"})
        # Before 3.0.2 no op knows a graph.
        self.assertEqual(one(con, "SELECT count(*) FROM rocpd_ops WHERE graph_id IS NOT NULL")[0], 0)

    def test_rocpd_3_0_5_with_counters(self):
        con, truth = load("rocpd_v305")
        self.check_basics(con, truth)
        self.check_details(con, truth)
        # One kernel groups the same with or without the '.kd' of rocprofv3's symbols.
        self.assertEqual(one(con, "SELECT count(*) FROM rocpd_ops WHERE kind = 'kernel' AND demangled LIKE '%.kd'")[0],
                         0)

    def test_merged(self):
        con, truth = load("merged")
        self.check_basics(con, truth)
        self.check_details(con, truth)
        self.assertEqual(one(con, "SELECT count(*) FROM rocpd_members")[0], len(truth["files"]))

    def test_multinode_with_skewed_clocks(self):
        con, truth = load("multinode")
        self.check_basics(con, truth)
        self.check_details(con, truth)
        files = {f["db"]: f for f in truth["files"]}
        nodes = dict(con.execute("SELECT db, max(node) FROM rocpd_ops GROUP BY db"))
        v3 = {db for (db,) in con.execute("SELECT db FROM rocpd_members WHERE format = 'rpd' AND schema_version = 3")}
        self.assertTrue(v3)
        for db in v3:  # only rpd v3 encodes the node (v2 files record none)
            self.assertEqual(nodes[db], files[db]["node"], db)
        # The workload's ranks meet in their last collective (earlier kernels of that name are not
        # one collective across ranks).
        self.assertEqual(one(con, "SELECT rocpd_align('collective', 'ncclDevKernel_AllReduce%', 'last')")[0],
                         len(files))
        offsets = dict(con.execute("SELECT db, clock_offset FROM rocpd_members"))
        ref = min(files)  # rocpd_members lists members by name: the first has the reference clock
        self.assertEqual(offsets[ref], 0)
        for db, f in files.items():
            self.assertEqual(offsets[db], files[ref]["clock_offset_ns"] - f["clock_offset_ns"], db)
        ends = {e for (e,) in con.execute(
            "SELECT \"end\" FROM (SELECT \"end\", row_number() OVER (PARTITION BY db ORDER BY start DESC, op_id DESC) "
            "AS n FROM rocpd_ops WHERE name LIKE 'ncclDevKernel_AllReduce%') WHERE n = 1")}
        self.assertEqual(ends, {f["collective_end_true_ns"] + files[ref]["clock_offset_ns"] for f in files.values()})

    def test_rocprofiler_systems(self):
        con, truth = load("rocprofsys")
        self.check_basics(con, truth)
        self.check_details(con, truth)

    def test_rocpd_4(self):
        con, truth = load("rocpd4")
        self.check_basics(con, truth)
        self.check_details(con, truth)
        self.assertEqual(rows_of(con, "SELECT schema_version, version FROM rocpd_members"), [(4, "4.1.0")])
        # Every op knows its process, GPU and stream through its track.
        self.assertEqual(one(con, "SELECT count(*) FROM rocpd_ops WHERE pid IS NULL OR gpu IS NULL OR stream IS NULL")[0],
                         0)
        self.assertEqual(one(con, "SELECT count(*) FROM rocpd_apis WHERE tid IS NULL")[0], 0)

if __name__ == "__main__":
    main()
