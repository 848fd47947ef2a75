"""Every layout read as its writer lays it out (issue 9). Files are built from the upstream DDL in
schema/ with rows chosen here; every expected value is computed from those rows in Python."""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
sys.path.insert(0, HERE)
from rocpd_testlib import SETS, connect, main  # noqa: E402
from tiny_traces import make_rpd  # noqa: E402
import upstream_files as uf  # noqa: E402


def rows(con, sql, args=()):
    return con.execute(sql, args).fetchall()


class Rocpd305(unittest.TestCase):
    """One rocprofv3 3.0.5 process with every kind of record."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_layouts_")
        cls.path = os.path.join(cls.tmp, "p305.db")
        con, (p,) = uf.rocpd_file(cls.path)
        # Two kernels (one mangled, one plain; both with '.kd' as rocprofv3 writes symbols).
        p.symbol(1, "_Z6matmulPfS_i.kd", regs=(24, 64, 8), lds=1024, scratch=0)
        p.symbol(2, "Cijk_Alik_Bljk_SB_MT64x64.kd", regs=(96, 128, 256), lds=8192, scratch=16)
        cls.kernels = []   # (op_id, gpu, name, start, end, grid, wg, lds, scratch, regs, graph)
        cls.apis = []      # (name, start, end, domain)
        t = 1000
        for i in range(6):
            corr, _ = p.region(11, t, t + 50, "hipLaunchKernel")
            cls.apis.append(("hipLaunchKernel", t, t + 50, "hip"))
            kid = 1 + i % 2
            grid, wg = (64 * (i + 1), 2, 1), (64, 1, 1)
            graph = 0xabc if i >= 4 else 0
            op_id, ev = p.dispatch(corr, i % 2, kid, t + 100, t + 300, grid=grid, wg=wg, lds=2048 * kid,
                                   scratch=4 * kid, graph=graph)
            regs = (24, 64, 8) if kid == 1 else (96, 128, 256)
            name = "_Z6matmulPfS_i.kd" if kid == 1 else "Cijk_Alik_Bljk_SB_MT64x64.kd"
            cls.kernels.append((op_id, i % 2, name, t + 100, t + 300, grid, wg, 2048 * kid, 4 * kid, regs,
                                graph or None, corr, ev))
            t += 1000
        # Copies: host-to-device onto GPU 1, device-to-host from GPU 0, one from a graph.
        corr, _ = p.region(11, t, t + 10, "hipMemcpy")
        cls.apis.append(("hipMemcpy", t, t + 10, "hip"))
        c1 = p.copy(corr, "MEMORY_COPY_HOST_TO_DEVICE", 3, 1, 1 << 20, t + 20, t + 120)
        c2 = p.copy(corr, "MEMORY_COPY_DEVICE_TO_HOST", 1, 2, 4096, t + 200, t + 240, graph=0xdef)
        cls.copies = [(c1, "CopyHostToDevice", 1 << 20, None, 1, 1, None), (c2, "CopyDeviceToHost", 4096, 0, None, 0,
                                                                             0xdef)]
        t += 1000
        # Allocations.
        corr, _ = p.region(12, t, t + 5, "hipMalloc")
        cls.apis.append(("hipMalloc", t, t + 5, "hip"))
        a1 = p.allocation(corr, 12, 2, "ALLOC", "REAL", 0x7f0000, 1 << 16, t + 1, t + 2)
        a2 = p.allocation(corr, 12, None, "FREE", "REAL", 0x7f0000, 0, t + 3, t + 4)
        a3 = p.allocation(corr, 12, 3, "ALLOC", "SCRATCH", 0, 1 << 12, t + 3, t + 4)
        cls.memory = [(a1, 12, 0, "ALLOC", "REAL", 0x7f0000, 1 << 16), (a2, 12, None, "FREE", "REAL", 0x7f0000, 0),
                      (a3, 12, 1, "ALLOC", "SCRATCH", 0, 1 << 12)]
        t += 1000
        # Counters: SQ_WAVES per dispatch (two dimension values each), GRBM_COUNT once; SPM rows on
        # an 'SPM' track that must stay out of the counters and the marks.
        p.pmc(1, "SQ_WAVES", "waves")
        p.pmc(2, "GRBM_COUNT", "cycles")
        cls.counters = []  # (op_id, counter, value)
        for k in cls.kernels:
            for v in (k[0] * 10.0, k[0] * 10.0 + 1.5):
                p.pmc_value(k[12], 1, v)
                cls.counters.append((k[0], "SQ_WAVES", v))
            p.pmc_value(k[12], 2, 7.0 * k[0])
            cls.counters.append((k[0], "GRBM_COUNT", 7.0 * k[0]))
        for j in range(3):
            sid = p.sample(None, t + j, "SPM", "KERNEL_DISPATCH")
            p.pmc_value(cls.kernels[0][12], 1, 1e6 + j, sample_id=sid)
        # HIP events.
        corr, _ = p.region(11, t + 10, t + 20, "hipEventRecord")
        cls.apis.append(("hipEventRecord", t + 10, t + 20, "hip"))
        h1 = p.hip_event(corr, 1, 4, "HIP_EVENT_RECORD", t + 30, t + 31)
        corr, _ = p.region(11, t + 40, t + 50, "hipStreamWaitEvent")
        cls.apis.append(("hipStreamWaitEvent", t + 40, t + 50, "hip"))
        h2 = p.hip_event(corr, 0, 5, "HIP_EVENT_WAIT", t + 60, t + 70)
        cls.hip_events = [(h1, 1, 4, "record"), (h2, 0, 5, "wait")]
        t += 1000
        # roctx: a push/pop range, a start/stop range (message in extdata only), a mark (sample).
        p.region(11, t, t + 500, "roctxThreadRangeA", category="MARKER_CORE_RANGE_API",
                 extdata=json.dumps({"message": "forward"}))
        p.region(11, t + 10, t + 400, "roctxProcessRangeA", category="MARKER_CORE_RANGE_API",
                 extdata=json.dumps({"message": "epoch 1"}))
        p.sample(11, t + 20, "MARKER_CORE_RANGE_API", "MARKER_CORE_RANGE_API", json.dumps({"message": "checkpoint"}))
        cls.apis += [("forward", t, t + 500, "marker"), ("epoch 1", t + 10, t + 400, "marker"),
                     ("checkpoint", t + 20, t + 20, "marker")]
        con.commit()
        con.close()
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.path,))

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        shutil.rmtree(cls.tmp)

    def test_member(self):
        self.assertEqual(rows(self.con, "SELECT format, schema_version, version, pids, ops, apis FROM rocpd_members"),
                         [("rocpd", 3, "3.0.5", "[1000]", len(self.kernels) + len(self.copies), len(self.apis))])

    def test_apis_show_marker_messages_and_no_spm_sample(self):
        got = rows(self.con, "SELECT name, start, \"end\", domain FROM rocpd_apis ORDER BY start, name")
        self.assertEqual(got, sorted(self.apis, key=lambda a: (a[1], a[0])))
        self.assertEqual(rows(self.con, "SELECT count(*) FROM rocpd_union('markers')")[0][0], 3)

    def test_ops_graph_ids_and_names(self):
        got = rows(self.con, "SELECT op_id, name, demangled, graph_id FROM rocpd_ops WHERE kind = 'kernel' "
                             "ORDER BY op_id")
        want = [(k[0], k[2], "matmul(float*, float*, int)" if k[2].startswith("_Z") else k[2][:-3], k[10])
                for k in self.kernels]
        self.assertEqual(got, want)
        self.assertEqual(rows(self.con, "SELECT op_id, graph_id FROM rocpd_ops WHERE kind = 'copy' ORDER BY op_id"),
                         [(c[0], c[6]) for c in self.copies])

    def test_kernels(self):
        got = rows(self.con, "SELECT op_id, gpu, name, start, \"end\", grid_x, grid_y, grid_z, workgroup_x, "
                             "workgroup_y, workgroup_z, lds_bytes, scratch_bytes, sgpr, vgpr, agpr, graph_id, "
                             "correlation_id FROM rocpd_kernels ORDER BY op_id")
        want = [(k[0], k[1], k[2], k[3], k[4], *k[5], *k[6], k[7], k[8], *k[9], k[10], k[11]) for k in self.kernels]
        self.assertEqual(got, want)
        # The same ops as rocpd_ops, with the same correlation to their launch.
        self.assertEqual(rows(self.con, "SELECT count(*) FROM rocpd_kernels k JOIN rocpd_ops o ON o.db = k.db AND "
                                        "o.op_id = k.op_id AND o.kind = 'kernel' AND o.start = k.start")[0][0],
                         len(self.kernels))

    def test_copies(self):
        got = rows(self.con, "SELECT op_id, name, bytes, src_gpu, dst_gpu, gpu, graph_id FROM rocpd_copies "
                             "ORDER BY op_id")
        self.assertEqual(got, self.copies)

    def test_memory(self):
        got = rows(self.con, "SELECT id, tid, gpu, operation, level, address, bytes FROM rocpd_memory ORDER BY id")
        self.assertEqual(got, self.memory)

    def test_counters_per_dispatch_without_spm(self):
        got = rows(self.con, "SELECT op_id, counter, value FROM rocpd_counters ORDER BY id")
        self.assertEqual(got, self.counters)
        units = dict(rows(self.con, "SELECT DISTINCT counter, units FROM rocpd_counters"))
        self.assertEqual(units, {"SQ_WAVES": "waves", "GRBM_COUNT": "cycles"})
        # Summed per dispatch as upstream's counters_collection does.
        sums = rows(self.con, "SELECT op_id, sum(value) FROM rocpd_counters WHERE counter = 'SQ_WAVES' "
                              "GROUP BY op_id ORDER BY op_id")
        self.assertEqual(sums, [(k[0], k[0] * 20.0 + 1.5) for k in self.kernels])
        names = rows(self.con, "SELECT DISTINCT c.name, k.name FROM rocpd_counters c JOIN rocpd_kernels k "
                               "ON k.db = c.db AND k.op_id = c.op_id")
        self.assertTrue(all(a == b for a, b in names))

    def test_hip_events_are_not_ops(self):
        got = rows(self.con, "SELECT id, gpu, queue, kind FROM rocpd_hip_events ORDER BY id")
        self.assertEqual(got, self.hip_events)
        self.assertEqual(rows(self.con, "SELECT count(*) FROM rocpd_ops WHERE name LIKE 'HIP_EVENT%'")[0][0], 0)

    def test_rowids_unique(self):
        for table in ("rocpd_kernels", "rocpd_copies", "rocpd_memory", "rocpd_counters", "rocpd_hip_events"):
            with self.subTest(table=table):
                n, distinct = rows(self.con, f"SELECT count(*), count(DISTINCT rowid) FROM {table}")[0]
                self.assertEqual(n, distinct)
                self.assertGreater(n, 0)


class Versions(unittest.TestCase):
    """Accept by major version; what a version lacks reads NULL; an unknown major is refused."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_versions_")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def one_kernel(self, ddl, version):
        path = os.path.join(self.tmp, f"v{version}.db")
        con, (p,) = uf.rocpd_file(path, ddl=ddl, version=version)
        corr, _ = p.region(1, 10, 20, "hipLaunchKernel")
        p.symbol(1, "k.kd")
        p.dispatch(corr, 0, 1, 30, 40, grid=(8, 1, 1), wg=(8, 1, 1))
        con.commit()
        con.close()
        return path

    def test_every_3_0_x(self):
        for version in ("3", "3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.0.4", "3.0.5"):
            with self.subTest(version=version):
                ddl = "rocpd_v3.sql" if version in ("3", "3.0.0", "3.0.1") else "rocpd_v3_0_5.sql"
                con = connect()
                con.execute("SELECT rocpd_open(?)", (self.one_kernel(ddl, version),))
                self.assertEqual(rows(con, "SELECT schema_version, version FROM rocpd_members"), [(3, version)])
                got = rows(con, "SELECT name, grid_x, graph_id, sgpr FROM rocpd_kernels")
                self.assertEqual(got[0][:2], ("k.kd", 8))
                if ddl == "rocpd_v3.sql":
                    self.assertEqual(got[0][2:], (None, None))  # no graph ids or registers before 3.0.2
                self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_hip_events")[0][0], 0)

    def test_3_x_tables_labelled_4_need_the_4_x_tables(self):
        path = self.one_kernel("rocpd_v3_0_5.sql", "4.1.0")
        with self.assertRaises(sqlite3.OperationalError) as cm:
            connect().execute("SELECT rocpd_open(?)", (path,))
        self.assertIn("rocpd 4.x trace lacks table rocpd_info_category_", str(cm.exception))
        self.assertIn(os.path.basename(path), str(cm.exception))

    def test_unknown_major_is_refused(self):
        for version in ("5", "2.0", "x"):
            with self.subTest(version=version):
                path = self.one_kernel("rocpd_v3_0_5.sql", version)
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    connect().execute("SELECT rocpd_open(?)", (path,))
                self.assertIn(f"unsupported rocpd schema_version '{version}'", str(cm.exception))
                self.assertIn(os.path.basename(path), str(cm.exception))


class Merged(unittest.TestCase):
    """`rocpd merge`: one file, several processes (schema/rocpd_merged.md)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_merged_")
        cls.path = os.path.join(cls.tmp, "merged.db")
        con, procs = uf.rocpd_file(cls.path, processes=3, first_pid=4000)
        cls.per_pid = {}
        for n, p in enumerate(procs):
            p.symbol(1, f"kern{n}.kd")
            total = 0
            for i in range(n + 2):  # natural ids repeat across processes
                corr, _ = p.region(7, 100 * i, 100 * i + 10, "hipLaunchKernel")
                p.dispatch(corr, n % 2, 1, 100 * i + 20, 100 * i + 60 + n)
                total += 40 + n
            p.region(7, 5, 900, "roctxThreadRangeA", category="MARKER_CORE_RANGE_API",
                     extdata=json.dumps({"message": f"rank {n}"}))
            cls.per_pid[p.pid] = (n + 2, total, f"kern{n}.kd", f"rank {n}")
        # The union views the merge builds (never read by the extension).
        for base in ("rocpd_metadata", "rocpd_region", "rocpd_kernel_dispatch"):
            con.execute(f'CREATE VIEW "{base}" AS ' +
                        " UNION ALL ".join(f'SELECT * FROM "{base}_{p.u}"' for p in procs))
        con.commit()
        con.close()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_one_member_every_process(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.path,))
        members = rows(con, "SELECT db, pids, ops FROM rocpd_members")
        self.assertEqual(members, [("merged", json.dumps(sorted(self.per_pid)).replace(" ", ""),
                                    sum(v[0] for v in self.per_pid.values()))])
        got = {pid: (n, s, name) for pid, n, s, name in rows(
            con, "SELECT pid, count(*), sum(duration), min(name) FROM rocpd_ops GROUP BY pid")}
        self.assertEqual(got, {pid: v[:3] for pid, v in self.per_pid.items()})
        markers = dict(rows(con, "SELECT pid, name FROM rocpd_apis WHERE domain = 'marker'"))
        self.assertEqual(markers, {pid: v[3] for pid, v in self.per_pid.items()})
        n, distinct = rows(con, "SELECT count(*), count(DISTINCT rowid) FROM rocpd_ops")[0]
        self.assertEqual(n, distinct)
        # Each op joins its own process's launch, although ids repeat across processes.
        joined = rows(con, "SELECT count(*) FROM rocpd_ops o JOIN rocpd_apis a ON a.db = o.db AND a.pid = o.pid "
                           "AND a.correlation_id = o.correlation_id AND a.name = 'hipLaunchKernel'")
        self.assertEqual(joined[0][0], sum(v[0] for v in self.per_pid.values()))


class RocprofSys(unittest.TestCase):
    """rocprofiler-systems: md5 upid suffix, thread row ids, rocm_* categories, roctx as regions."""

    def test_every_call_with_its_domain_tid_and_message(self):
        tmp = tempfile.mkdtemp(prefix="rocpd_sys_")
        try:
            path = os.path.join(tmp, "rocpd.db")
            con, (p,) = uf.rocpd_file(path, ddl="rocprofsys.sql", rocprofsys=True, first_pid=777)
            calls = [(4242, 10, 20, "hipMalloc", "rocm_hip_api", "hip"),
                     (4242, 30, 40, "hsa_queue_create", "rocm_hsa_api", "hsa"),
                     (4243, 50, 60, "ncclAllReduce", "rocm_rccl_api", "rccl"),
                     (4243, 70, 80, "MPI_Barrier", "mpi", "mpi"),
                     (4244, 90, 95, "hipDeviceSynchronize", "rocm_hip_api", "hip")]
            for tid, s, e, name, cat, _ in calls:
                p.region(tid, s, e, name, category=cat)
            p.region(4242, 100, 300, "roctxRangePushA", category="rocm_marker_api", message_arg="train step")
            p.region(4244, 150, 151, "roctxMarkA", category="rocm_marker_api", message_arg="here")
            # A metric sample on a named track (not a call).
            p.sample(None, 120, "device_busy_gfx", "device_busy_gfx")
            con.commit()
            con.close()
            want = sorted([(tid, s, e, name, dom) for tid, s, e, name, _, dom in calls] +
                          [(4242, 100, 300, "train step", "marker"), (4244, 150, 151, "here", "marker")])
            db = connect()
            db.execute("SELECT rocpd_open(?)", (path,))
            got = rows(db, "SELECT tid, start, \"end\", name, domain FROM rocpd_apis ORDER BY tid, start")
            self.assertEqual(got, want)
            self.assertEqual(rows(db, "SELECT uuid, apis FROM rocpd_members"), [(f"{777:032x}", len(want))])
        finally:
            shutil.rmtree(tmp)


RPD_DDL_KERNELAPI = """
CREATE TABLE rocpd_kernelapi(api_ptr_id bigint NOT NULL PRIMARY KEY, stream varchar(18) NOT NULL,
  gridX integer NOT NULL, gridY integer NOT NULL, gridZ integer NOT NULL, workgroupX integer NOT NULL,
  workgroupY integer NOT NULL, workgroupZ integer NOT NULL, groupSegmentSize integer NOT NULL,
  privateSegmentSize integer NOT NULL, kernelName_id bigint NOT NULL);
CREATE TABLE rocpd_copyapi(api_ptr_id bigint NOT NULL PRIMARY KEY, stream varchar(18) NOT NULL, size integer NOT NULL,
  width integer NOT NULL, height integer NOT NULL, kind integer NOT NULL, dst varchar(18) NOT NULL,
  src varchar(18) NOT NULL, dstDevice integer NOT NULL, srcDevice integer NOT NULL, sync bool NOT NULL,
  pinned bool NOT NULL);
CREATE TABLE rocpd_counter(id integer NOT NULL PRIMARY KEY AUTOINCREMENT, value real NOT NULL, op_id bigint NOT NULL,
  name_id bigint NOT NULL);
"""


class Rpd(unittest.TestCase):
    """rpd: launch parameters, copy sizes, post-processed counters, multi-node encoding."""

    @classmethod
    def setUpClass(cls):
        from tiny_traces import RPD_DDL
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_rpd_")
        cls.path = os.path.join(cls.tmp, "multi.rpd")
        strings = {1: "", 2: "KernelExecution", 3: "CopyHostToDevice", 4: "hipLaunchKernel", 5: "kernel_a",
                   6: "hipExtModuleLaunchKernel", 7: "hipMemcpy", 8: "SQ_WAVES"}
        # gpu values: node 2 gpu 3 (encoded), node 0 gpu 1 (plain); pids likewise.
        ops = [(2003, 100, 200, 5, 2, 1), (1, 300, 350, 5, 2, 2), (2003, 400, 500, 1, 3, 3)]
        apis = [(20000000 + 555, 20000000 + 556, 10, 20, 4, 1, 1, 1), (555, 557, 30, 40, 6, 1, 1, 1),
                (555, 556, 50, 60, 7, 1, 1, 1)]
        make_rpd(cls.path, ops=ops, apis=apis, strings=strings, links=[(1, 1), (2, 2), (3, 3)],
                 ddl=RPD_DDL + RPD_DDL_KERNELAPI)
        con = sqlite3.connect(cls.path)
        con.execute("INSERT INTO rocpd_metadata(tag, value) VALUES ('gpu_stride', '1000'), ('pid_stride', '10000000')")
        con.execute("INSERT INTO rocpd_kernelapi VALUES (1, '0x0', 4, 2, 1, 64, 2, 1, 512, 0, 5)")
        con.execute("INSERT INTO rocpd_kernelapi VALUES (2, '0x0', 4096, 1, 1, 256, 1, 1, 0, 32, 5)")
        # size '' = not recorded (rpd writes '' for 0 or unknown)
        con.execute("INSERT INTO rocpd_copyapi VALUES (3, '0x0', 65536, '', '', 1, '0x1', '0x2', 0, 0, 1, 0)")
        con.execute("INSERT INTO rocpd_counter(value, op_id, name_id) VALUES (12.5, 1, 8), (3.0, 2, 8)")
        con.commit()
        con.close()
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.path,))

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        shutil.rmtree(cls.tmp)

    def test_multi_node_values_decoded(self):
        self.assertEqual(rows(self.con, "SELECT op_id, gpu, node FROM rocpd_ops ORDER BY op_id"),
                         [(1, 3, 2), (2, 1, 0), (3, 3, 2)])
        self.assertEqual(rows(self.con, "SELECT api_id, pid, tid, node FROM rocpd_apis ORDER BY api_id"),
                         [(1, 555, 556, 2), (2, 555, 557, 0), (3, 555, 556, 0)])
        self.assertEqual(rows(self.con, "SELECT gpu, count(*) FROM rocpd_ops GROUP BY gpu"), [(1, 1), (3, 2)])

    def test_kernel_launch_parameters_in_work_items(self):
        got = rows(self.con, "SELECT op_id, grid_x, grid_y, grid_z, workgroup_x, workgroup_y, lds_bytes, "
                             "scratch_bytes, sgpr FROM rocpd_kernels ORDER BY op_id")
        # hipLaunchKernel records blocks (4 x 64, 2 x 2); hipExtModuleLaunchKernel work-items.
        self.assertEqual(got, [(1, 256, 4, 1, 64, 2, 512, 0, None), (2, 4096, 1, 1, 256, 1, 0, 32, None)])

    def test_copy_sizes(self):
        self.assertEqual(rows(self.con, "SELECT op_id, bytes, src_gpu, dst_gpu FROM rocpd_copies"),
                         [(3, 65536, None, 3)])

    def test_counters(self):
        self.assertEqual(rows(self.con, "SELECT op_id, gpu, name, counter, value FROM rocpd_counters ORDER BY op_id"),
                         [(1, 3, "kernel_a", "SQ_WAVES", 12.5), (2, 1, "kernel_a", "SQ_WAVES", 3.0)])

    def test_bad_stride_is_refused(self):
        bad = os.path.join(self.tmp, "bad.rpd")
        shutil.copy(self.path, bad)
        c = sqlite3.connect(bad)
        c.execute("UPDATE rocpd_metadata SET value = 'x' WHERE tag = 'gpu_stride'")
        c.commit()
        c.close()
        with self.assertRaises(sqlite3.OperationalError) as cm:
            connect().execute("SELECT rocpd_open(?)", (bad,))
        self.assertIn("rpd metadata gpu_stride is 'x', not a positive integer", str(cm.exception))


class Clocks(unittest.TestCase):
    """Members on other hosts' clocks: offsets, alignment on a collective, grids of one member."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_clocks_")
        strings = {1: "", 2: "KernelExecution", 4: "hipLaunchKernel", 5: "gemm", 6: "ncclDevKernel_AllReduce_Sum"}
        # Rank a on host A; rank b on host B whose clock reads 8.38e9 ns later. The collective ends
        # at the same true instant (true 1000) on both.
        cls.skew = 8_380_684_358
        cls.a = make_rpd(os.path.join(cls.tmp, "a.rpd"), strings=strings,
                         ops=[(0, 100, 400, 5, 2), (0, 500, 1000, 6, 2)])
        cls.b = make_rpd(os.path.join(cls.tmp, "b.rpd"), strings=strings,
                         ops=[(0, cls.skew + 200, cls.skew + 300, 5, 2), (0, cls.skew + 700, cls.skew + 1000, 6, 2)])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def opened(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.a,))
        con.execute("SELECT rocpd_open(?)", (self.b,))
        return con

    def test_unaligned_members_get_their_own_clusters(self):
        # Before alignment the job spans both hosts' clocks (8.4e9 ns = 84 million 100 ns buckets),
        # but the members do not overlap: each reports the buckets over its own span only, on the
        # job's grid (origin 100), whether or not a query selects it.
        con = self.opened()
        want_a = [(100 + 100 * k, 100 + 100 * (k + 1)) for k in range(9)]  # a spans 100 .. 1000
        self.assertEqual(rows(con, "SELECT bucket_start, bucket_end FROM rocpd_utilization(100) WHERE db = 'a' "
                                   "ORDER BY bucket"), want_a)
        got_b = rows(con, "SELECT bucket, bucket_start, bucket_end, busy_ns FROM rocpd_utilization(100) "
                          "WHERE db = 'b' ORDER BY bucket")
        # b spans skew+200 .. skew+1000 -> buckets k with 100 + 100k in [skew+100, skew+1000)
        first_k = (self.skew + 200 - 100) // 100
        self.assertEqual([r[0] for r in got_b], list(range(first_k, (self.skew + 1000 - 1 - 100) // 100 + 1)))
        self.assertEqual(sum(r[3] for r in got_b), 100 + 300)
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_utilization(100)"), [(len(want_a) + len(got_b),)])

    def test_aligned_members_share_one_grid(self):
        con = self.opened()
        con.execute("SELECT rocpd_align('collective')")
        got = rows(con, "SELECT db, bucket_start, busy_ns FROM rocpd_utilization(100) ORDER BY db, bucket")
        self.assertEqual([r[1] for r in got if r[0] == "a"], [r[1] for r in got if r[0] == "b"])
        self.assertEqual(len(got), 2 * 9)  # the job spans 100 .. 1000 on the aligned clock
        self.assertEqual(sum(b for d, _, b in got if d == "a"), 300 + 500)
        self.assertEqual(sum(b for d, _, b in got if d == "b"), 100 + 300)

    def test_offset_shifts_every_time(self):
        con = self.opened()
        self.assertEqual(rows(con, "SELECT rocpd_clock_offset('b', ?)", (-self.skew,)), [(-self.skew,)])
        self.assertEqual(rows(con, "SELECT start, \"end\" FROM rocpd_ops WHERE db = 'b' ORDER BY start"),
                         [(200, 300), (700, 1000)])
        # Constraints on shifted times select by the shifted values.
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops WHERE start >= 200 AND start < 701"), [(3,)])
        self.assertEqual(rows(con, "SELECT db, clock_offset, first_ns, last_ns FROM rocpd_members ORDER BY db"),
                         [("a", 0, 100, 1000), ("b", -self.skew, 200, 1000)])
        self.assertEqual(rows(con, "SELECT db, busy_ns FROM rocpd_busy ORDER BY db"), [("a", 800), ("b", 400)])

    def test_align_on_the_collective(self):
        con = self.opened()
        self.assertEqual(rows(con, "SELECT rocpd_align('collective')"), [(2,)])
        self.assertEqual(rows(con, "SELECT db, clock_offset FROM rocpd_members ORDER BY db"),
                         [("a", 0), ("b", -self.skew)])
        ends = rows(con, "SELECT DISTINCT \"end\" FROM rocpd_ops WHERE name LIKE '%AllReduce%'")
        self.assertEqual(ends, [(1000,)])
        self.assertEqual(rows(con, "SELECT rocpd_align('none')"), [(2,)])
        self.assertEqual(rows(con, "SELECT sum(clock_offset) FROM rocpd_members"), [(0,)])

    def test_errors(self):
        con = self.opened()
        for sql, msg in (("SELECT rocpd_clock_offset('zz')", "rocpd_clock_offset: no member is named 'zz'"),
                         ("SELECT rocpd_clock_offset('a', 1.5)", "ns must be an integer"),
                         ("SELECT rocpd_align('sideways')", "rocpd_align('sideways'): unknown method"),
                         ("SELECT rocpd_align('collective', 'nothing%')", "no member has a kernel")):
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    con.execute(sql).fetchall()
                self.assertIn(msg, str(cm.exception))


if __name__ == "__main__":
    main()
