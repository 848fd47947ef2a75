"""The real rpd v2 trace in ../shared/data reproduces its published top figures (formats.md)."""
import json
import os
import sqlite3
import sys

from rocpd_testlib import SHARED_DATA, ChecksumGuard, connect, main

MATMUL = os.path.join(SHARED_DATA, "matmul_result.rpd")
GEMM_PREFIX = "Cijk_Ailk_Bljk_SB_MT128x64x16"


class MatmulPublished(ChecksumGuard):
    watched = [MATMUL]

    def setUp(self):
        self.con = connect()
        self.con.execute("ATTACH ? AS r0", (f"file:{MATMUL}?mode=ro",))

    def top(self):
        rows = self.con.execute(
            "SELECT name, calls, total_ns, percent FROM rocpd_union('top') WHERE db = 'r0'").fetchall()
        return {name: (calls, total, pct) for name, calls, total, pct in rows}

    def test_published_top(self):
        top = self.top()
        self.assertEqual(top["CopyHostToDevice"][0], 2)
        self.assertEqual(top["CopyHostToDevice"][1] // 1000, 157178)
        self.assertAlmostEqual(top["CopyHostToDevice"][2], 85.46, places=2)
        gemm = [v for k, v in top.items() if k.startswith(GEMM_PREFIX)]
        self.assertEqual(len(gemm), 1)
        self.assertEqual(gemm[0][0], 1)
        self.assertEqual(gemm[0][1] // 1000, 26211)
        self.assertAlmostEqual(gemm[0][2], 14.25, places=2)
        self.assertEqual(top["CopyDeviceToHost"][0], 53)
        self.assertEqual(top["CopyDeviceToHost"][1] // 1000, 334)

    def raw(self, sql):
        """The answer of the file's own tables (plain sqlite3, read-only): the independent side."""
        con = sqlite3.connect(f"file:{MATMUL}?mode=ro", uri=True)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()

    def test_member_row(self):
        pids = [p for (p,) in self.raw("SELECT DISTINCT pid FROM rocpd_api ORDER BY pid")]
        (ops, bad), = self.raw('SELECT count(*), count(*) FILTER (WHERE "end" < start) FROM rocpd_op')
        (apis,), = self.raw("SELECT count(*) FROM rocpd_api")
        self.assertTrue(pids and ops and apis)
        row = self.con.execute(
            "SELECT db, format, schema_version, source, pids, ops, apis, bad_ops FROM rocpd_members").fetchall()
        self.assertEqual(row, [("r0", "rpd", 2, "attached", json.dumps(pids, separators=(",", ":")), ops, apis, bad)])

    def test_ops_total_matches_published_gpu_time(self):
        # The published busy view's GpuTime is the plain sum of op durations per gpu.
        want = self.raw('SELECT gpuId, count(*), sum(max("end" - start, 0)) FROM rocpd_op GROUP BY gpuId')
        self.assertEqual(len(want), 1)  # one GPU in this trace
        got = self.con.execute("SELECT gpu, count(*), sum(duration) FROM rocpd_ops GROUP BY gpu").fetchall()
        self.assertEqual(got, want)

    def test_ops_link_to_their_launch_calls(self):
        unlinked = self.con.execute(
            "SELECT count(*) FROM rocpd_ops o WHERE NOT EXISTS "
            "(SELECT 1 FROM rocpd_apis a WHERE a.db = o.db AND a.correlation_id = o.correlation_id)").fetchone()[0]
        self.assertEqual(unlinked, 0)

    def test_same_through_rocpd_open(self):
        other = connect()
        self.assertEqual(other.execute("SELECT rocpd_open(?)", (MATMUL,)).fetchone()[0], 1)
        self.assertEqual(other.execute("SELECT db, source FROM rocpd_members").fetchall(),
                         [("matmul_result", "opened")])
        a = self.con.execute("SELECT name, calls, total_ns FROM rocpd_union('top') ORDER BY name").fetchall()
        b = other.execute("SELECT name, calls, total_ns FROM rocpd_union('top') ORDER BY name").fetchall()
        self.assertEqual(a, b)


if __name__ == "__main__":
    if not os.path.exists(MATMUL):
        print(f"SKIP: {MATMUL} is absent (public data from ../shared/data, never committed)")
        sys.exit(77)
    main()
