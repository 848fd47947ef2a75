"""rocpd schema 4.x (schema/rocpd_v4.sql) read with the canonical columns: who/where (pid, tid,
agent, queue, stream) from rocpd_track, categories from rocpd_info_category, instant marks named
on the sample. The file is built from the 4.1.0 DDL with rows chosen here; every expected value
is written out from those rows."""
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
from rocpd_testlib import connect, main  # noqa: E402
import upstream_files as uf  # noqa: E402

PID = 500


def rows(con, sql, args=()):
    return con.execute(sql, args).fetchall()


def build(path, extra_sql=""):
    u, g = uuid = uf.uuid_of(7)
    del uuid
    con = sqlite3.connect(path)
    con.executescript(uf.table_ddl("rocpd_v4.sql", u, g))
    t = lambda name: f'"rocpd_{name}_{u}"'  # noqa: E731
    ex = con.execute
    ex(f"INSERT INTO {t('info_node')}(id, hash, machine_id, hostname) VALUES (1, 1, 'm', 'host4')")
    ex(f"INSERT INTO {t('info_process')}(id, nid, ppid, pid, init, fini, start, \"end\", command) "
       f"VALUES ({PID}, 1, 1, {PID}, 0, 0, 0, 0, 'app')")
    # Agents: 1 CPU; 2 and 3 the GPUs 0 and 1.
    for aid, typ, idx in ((1, "CPU", 0), (2, "GPU", 0), (3, "GPU", 1)):
        ex(f"INSERT INTO {t('info_agent')}(id, nid, pid, type, absolute_index, logical_index, type_index) "
           f"VALUES (?, 1, {PID}, ?, ?, ?, ?)", (aid, typ, aid, aid, idx))
    cats = ["hip_api", "marker_api", "kernel_dispatch", "memory_copy", "rccl_api", "memory_allocation",
            "counter_collection"]
    for i, c in enumerate(cats, 1):
        ex(f"INSERT INTO {t('info_category')}(id, name) VALUES (?, ?)", (i, c))
    strings = ["", "hipLaunchKernel", "rcclAllReduce", "roctxRangePushA", "hipMemcpyAsync", "roctxMarkA",
               "marker_api", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_ALLOCATION_ALLOCATE", "SPM", "spm_sample"]
    sid = {s: i for i, s in enumerate(strings, 1)}
    for s, i in sid.items():
        ex(f"INSERT INTO {t('string')}(id, string) VALUES (?, ?)", (i, s))
    # Tracks: (id, tid, agent, queue, stream, name)
    for tr in ((1, 11, None, None, None, None), (2, 12, None, None, None, None), (3, 11, 2, 7, 9, None),
               (4, 12, 3, 8, 10, None), (5, 11, 3, None, 4, None), (6, 11, None, None, None, sid["marker_api"]),
               (7, 11, 2, None, None, sid["SPM"])):
        ex(f"INSERT INTO {t('track')}(id, nid, ppid, pid, tid, agent_id, queue_id, stream_id, name_id) "
           f"VALUES (?, 1, 1, {PID}, ?, ?, ?, ?, ?)", tr)
    # Events: (id, category, stack_id = internal correlation id, extdata)
    for ev in ((1, 1, 1, "{}"), (2, 5, 2, "{}"), (3, 2, 3, '{"message": "step 1"}'), (4, 1, 4, "{}"),
               (5, 2, 5, '{"message": "mark!"}'), (6, 3, 1, "{}"), (7, 3, 2, "{}"), (8, 3, 6, "{}"),
               (9, 4, 4, "{}"), (10, 6, 1, "{}"), (11, 7, 1, "{}")):
        ex(f"INSERT INTO {t('event')}(id, category_id, stack_id, parent_stack_id, correlation_id, extdata) "
           "VALUES (?, ?, ?, 0, 0, ?)", ev)
    # Regions: (id, track, name, start, end, event)
    for r in ((1, 1, "hipLaunchKernel", 100, 110, 1), (2, 2, "rcclAllReduce", 120, 130, 2),
              (3, 1, "roctxRangePushA", 50, 300, 3), (4, 2, "hipMemcpyAsync", 140, 150, 4)):
        ex(f"INSERT INTO {t('region')}(id, track_id, name_id, start, \"end\", event_id) VALUES (?, ?, ?, ?, ?, ?)",
           (r[0], r[1], sid[r[2]], r[3], r[4], r[5]))
    # Samples: a roctx mark, and an SPM sample that is no marker.
    ex(f"INSERT INTO {t('sample')}(id, track_id, name_id, timestamp, event_id) VALUES (1, 6, ?, 200, 5)",
       (sid["roctxMarkA"],))
    ex(f"INSERT INTO {t('sample')}(id, track_id, name_id, timestamp, event_id) VALUES (2, 7, ?, 210, 11)",
       (sid["spm_sample"],))
    ex(f"INSERT INTO {t('info_code_object')}(id, nid, pid, agent_id, uri) VALUES (1, 1, {PID}, 2, 'file:///a.so')")
    for k, name, regs in ((1, "kern_a.kd", (16, 32, 0)), (2, "kern_b.kd", (24, 48, 8))):
        ex(f"INSERT INTO {t('info_kernel_symbol')}(id, nid, pid, code_object_id, kernel_name, sgpr_count, "
           f"arch_vgpr_count, accum_vgpr_count) VALUES (?, 1, {PID}, 1, ?, ?, ?, ?)", (k, name, *regs))
    # Dispatches: the third's track does not exist (a dangling id keeps its row, NULL who/where).
    for d in ((1, 3, 1, 200, 260, 6, 1024, 64, 256), (2, 4, 2, 250, 300, 7, 0, 0, 128), (3, 99, 1, 310, 330, 8, 0, 0, 64)):
        did, track, kern, start, end, ev, lds, scratch, grid = d
        ex(f"INSERT INTO {t('kernel_dispatch')}(id, track_id, kernel_id, dispatch_id, start, \"end\", "
           "private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, "
           "grid_size_x, grid_size_y, grid_size_z, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 64, 1, 1, ?, 1, 1, ?)",
           (did, track, kern, did, start, end, scratch, lds, grid, ev))
    ex(f"INSERT INTO {t('memory_copy')}(id, track_id, start, \"end\", name_id, dst_agent_id, src_agent_id, size, "
       "event_id) VALUES (1, 5, 400, 500, ?, 3, 1, 4096, 9)", (sid["MEMORY_COPY_HOST_TO_DEVICE"],))
    ex(f"INSERT INTO {t('memory_allocate')}(id, track_id, type, level, start, \"end\", name_id, address, size, "
       "event_id) VALUES (1, 3, 'ALLOC', 'REAL', 90, 95, ?, 4096, 1048576, 10)",
       (sid["MEMORY_ALLOCATION_ALLOCATE"],))
    ex(f"INSERT INTO {t('info_pmc')}(id, nid, pid, agent_id, name, symbol, qualifier, units) "
       f"VALUES (1, 1, {PID}, 2, 'SQ_WAVES', 'SQ_WAVES:xcc=0', 'xcc=0', 'waves')")
    ex(f"INSERT INTO {t('pmc_event')}(id, event_id, pmc_id, value) VALUES (1, 6, 1, 64.0)")
    if extra_sql:
        con.executescript(extra_sql.replace("<u>", u))
    con.commit()
    con.close()
    return u


class Rocpd4(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd4_")
        cls.path = os.path.join(cls.tmp, "v4.db")
        build(cls.path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def opened(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.path,))
        return con

    def test_member(self):
        got = rows(self.opened(), "SELECT format, schema_version, version, pids, ops, apis, hostname FROM rocpd_members")
        self.assertEqual(got, [("rocpd", 4, "4.1.0", json.dumps([PID]), 4, 5, "host4")])

    def test_ops_take_who_and_where_from_the_track(self):
        got = rows(self.opened(), "SELECT kind, name, pid, gpu, queue, stream, start, \"end\", correlation_id "
                                  "FROM rocpd_ops ORDER BY start")
        self.assertEqual(got, [("kernel", "kern_a.kd", PID, 0, 7, 9, 200, 260, 1),
                               ("kernel", "kern_b.kd", PID, 1, 8, 10, 250, 300, 2),
                               ("kernel", "kern_a.kd", None, None, None, None, 310, 330, 6),
                               ("copy", "CopyHostToDevice", PID, 1, None, 4, 400, 500, 4)])

    def test_rows_never_depend_on_the_columns(self):
        con = self.opened()
        self.assertEqual(rows(con, "SELECT count(*) FROM rocpd_ops"), [(4,)])
        self.assertEqual(rows(con, "SELECT count(pid), count(*) FROM rocpd_ops"), [(3, 4)])

    def test_apis_domains_threads_and_marker_messages(self):
        got = rows(self.opened(), "SELECT domain, category, name, pid, tid, start, \"end\", correlation_id "
                                  "FROM rocpd_apis ORDER BY start")
        self.assertEqual(got, [("marker", "marker_api", "step 1", PID, 11, 50, 300, 3),
                               ("hip", "hip_api", "hipLaunchKernel", PID, 11, 100, 110, 1),
                               ("rccl", "rccl_api", "rcclAllReduce", PID, 12, 120, 130, 2),
                               ("hip", "hip_api", "hipMemcpyAsync", PID, 12, 140, 150, 4),
                               ("marker", "marker_api", "mark!", PID, 11, 200, 200, 5)])

    def test_details(self):
        con = self.opened()
        self.assertEqual(rows(con, "SELECT op_id, gpu, grid_x, workgroup_x, lds_bytes, scratch_bytes, sgpr, vgpr, agpr "
                                   "FROM rocpd_kernels ORDER BY op_id"),
                         [(1, 0, 256, 64, 1024, 64, 16, 32, 0), (2, 1, 128, 64, 0, 0, 24, 48, 8),
                          (3, None, 64, 64, 0, 0, 16, 32, 0)])
        self.assertEqual(rows(con, "SELECT bytes, src_gpu, dst_gpu, stream FROM rocpd_copies"), [(4096, None, 1, 4)])
        self.assertEqual(rows(con, "SELECT operation, level, gpu, pid, tid, bytes FROM rocpd_memory"),
                         [("ALLOC", "REAL", 0, PID, 11, 1048576)])
        self.assertEqual(rows(con, "SELECT pid, gpu, op_id, name, counter, value, units FROM rocpd_counters"),
                         [(PID, 0, 1, "kern_a.kd", "SQ_WAVES", 64.0, "waves")])

    def test_timestamp_rows_variant_is_refused_by_name(self):
        path = os.path.join(self.tmp, "ts.db")
        u = build(path, 'CREATE TABLE "rocpd_timestamp_<u>" (id INTEGER PRIMARY KEY, value BIGINT, phase INTEGER);')
        with self.assertRaises(sqlite3.OperationalError) as cm:
            connect().execute("SELECT rocpd_open(?)", (path,))
        self.assertIn(f"timestamps in table rocpd_timestamp_{u} is not supported", str(cm.exception))
        self.assertIn("ts.db", str(cm.exception))

    def test_missing_track_table_is_named(self):
        path = os.path.join(self.tmp, "notrack.db")
        u = build(path, 'DROP VIEW IF EXISTS rocpd_track; DROP TABLE "rocpd_track_<u>";')
        with self.assertRaises(sqlite3.OperationalError) as cm:
            connect().execute("SELECT rocpd_open(?)", (path,))
        self.assertIn(f"rocpd_track_{u}", str(cm.exception))


if __name__ == "__main__":
    main()
