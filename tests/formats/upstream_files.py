"""Small trace files built from the upstream DDL in schema/ (the table part, exactly as the writers
create it), filled with rows chosen by the tests, so that every expected answer is computed from
those rows in Python, never by the extension."""
import os
import sqlite3

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema")


def table_ddl(name, uuid, guid, version=None):
    """The table part of schema/<name> (everything before the unsuffixed views) for one process;
    `version` replaces the schema_version metadata row."""
    with open(os.path.join(SCHEMA, name)) as f:
        text = f.read()
    text = text[:text.index("-- Unsuffixed views")]
    text = text[:text.rindex("\n-- ---") + 1] if "\n-- ---" in text else text
    text = text.replace("{{uuid}}", uuid).replace("{{guid}}", guid)
    if version is not None:
        text = text.replace("('schema_version', '3.0.5')", f"('schema_version', '{version}')")
        text = text.replace("('schema_version', '3')", f"('schema_version', '{version}')")
    return text


class RocpdProcess:
    """Rows of one rocprofv3 process. Agents: 1 CPU (id 1), GPUs ids 2.. (type_index 0..)."""

    def __init__(self, con, uuid, pid, gpus=2, rocprofsys=False):
        self.con, self.u, self.pid, self.rocprofsys = con, uuid, pid, rocprofsys
        self.strings = {}
        self.next_corr = 1
        self.t = lambda name: f'"rocpd_{name}_{uuid}"'
        con.execute(f"INSERT INTO {self.t('info_node')}(id, hash, machine_id, hostname) VALUES (1, 1, 'm', 'hostA')")
        con.execute(f"INSERT INTO {self.t('info_process')}(id, nid, ppid, pid, init, fini, start, \"end\", command) "
                    "VALUES (?, 1, 1, ?, 0, 0, 0, 0, 'app')", (pid, pid))
        con.execute(f"INSERT INTO {self.t('info_agent')}(id, nid, pid, type, absolute_index, logical_index, "
                    "type_index) VALUES (1, 1, ?, 'CPU', 0, 0, 0)", (pid,))
        for g in range(gpus):
            con.execute(f"INSERT INTO {self.t('info_agent')}(id, nid, pid, type, absolute_index, logical_index, "
                        "type_index) VALUES (?, 1, ?, 'GPU', ?, ?, ?)", (2 + g, pid, 1 + g, 1 + g, g))
        self.string("")

    def string(self, s):
        if s not in self.strings:
            cur = self.con.execute(f"INSERT INTO {self.t('string')}(string) VALUES (?)", (s,))
            self.strings[s] = cur.lastrowid
        return self.strings[s]

    def event(self, category, corr, extdata="{}"):
        cur = self.con.execute(f"INSERT INTO {self.t('event')}(category_id, stack_id, parent_stack_id, "
                               "correlation_id, extdata) VALUES (?, ?, ?, 0, ?)",
                               (self.string(category), corr, corr, extdata))
        return cur.lastrowid

    def thread(self, tid):
        """rocprofv3: thread row id = OS tid; rocprofiler-systems: a row id 1.. with the tid inside."""
        row = self.con.execute(f"SELECT id FROM {self.t('info_thread')} WHERE tid = ?", (tid,)).fetchone()
        if row:
            return row[0]
        if self.rocprofsys:
            cur = self.con.execute(f"INSERT INTO {self.t('info_thread')}(nid, ppid, pid, tid, name) "
                                   "VALUES (1, 1, ?, ?, ?)", (self.pid, tid, f"Thread {tid}"))
            return cur.lastrowid
        self.con.execute(f"INSERT INTO {self.t('info_thread')}(id, nid, ppid, pid, tid) VALUES (?, 1, 1, ?, ?)",
                         (tid, self.pid, tid))
        return tid

    def region(self, tid, start, end, name, category="HIP_RUNTIME_API_EXT", extdata="{}", message_arg=None):
        corr = self.next_corr
        self.next_corr += 1
        ev = self.event(category, corr, extdata)
        if message_arg is not None:
            self.con.execute(f"INSERT INTO {self.t('arg')}(event_id, position, type, name, value) "
                             "VALUES (?, 0, 'const char*', 'message', ?)", (ev, message_arg))
        self.con.execute(f"INSERT INTO {self.t('region')}(id, nid, pid, tid, start, \"end\", name_id, event_id) "
                         "VALUES (?, 1, ?, ?, ?, ?, ?, ?)",
                         (corr if not self.rocprofsys else None, self.pid, self.thread(tid), start, end,
                          self.string(name), ev))
        return corr, ev

    def sample(self, tid, ts, track_name, category, extdata="{}"):
        corr = self.next_corr
        self.next_corr += 1
        ev = self.event(category, corr, extdata)
        track = self.track(tid, track_name)
        cur = self.con.execute(f"INSERT INTO {self.t('sample')}(track_id, timestamp, event_id) VALUES (?, ?, ?)",
                               (track, ts, ev))
        return cur.lastrowid

    def track(self, tid, name):
        row = self.con.execute(f"SELECT id FROM {self.t('track')} WHERE tid IS ? AND name_id = ?",
                               (tid, self.string(name))).fetchone()
        if row:
            return row[0]
        return self.con.execute(f"INSERT INTO {self.t('track')}(nid, pid, tid, name_id) VALUES (1, ?, ?, ?)",
                                (self.pid, tid, self.string(name))).lastrowid

    def symbol(self, kid, name, regs=None, lds=0, scratch=0):
        cols = "id, nid, pid, code_object_id, kernel_name, display_name, group_segment_size, private_segment_size"
        vals = [kid, 1, self.pid, 1, name, name[:-3] if name.endswith(".kd") else name, lds, scratch]
        if regs is not None:
            cols += ", sgpr_count, arch_vgpr_count, accum_vgpr_count"
            vals += list(regs)
        self.con.execute(f"INSERT INTO {self.t('info_kernel_symbol')}({cols}) VALUES ({','.join('?' * len(vals))})",
                         vals)

    def dispatch(self, corr, gpu, kernel_id, start, end, grid=(1, 1, 1), wg=(1, 1, 1), lds=0, scratch=0,
                 graph=None, queue=1, stream=0):
        ev = self.event("KERNEL_DISPATCH", corr)
        cols = ['nid', 'pid', 'tid', 'agent_id', 'kernel_id', 'dispatch_id', 'queue_id', 'stream_id', 'start', '"end"',
                'private_segment_size', 'group_segment_size', 'workgroup_size_x', 'workgroup_size_y',
                'workgroup_size_z', 'grid_size_x', 'grid_size_y', 'grid_size_z', 'region_name_id', 'event_id']
        vals = [1, self.pid, 1, 2 + gpu, kernel_id, corr, queue, stream, start, end, scratch, lds, *wg, *grid,
                self.string(""), ev]
        if graph is not None:
            cols += ["graph_exec_id", "graph_node_id"]
            vals += [graph, 7]
        cur = self.con.execute(f"INSERT INTO {self.t('kernel_dispatch')}({','.join(cols)}) "
                               f"VALUES ({','.join('?' * len(vals))})", vals)
        return cur.lastrowid, ev

    def copy(self, corr, name, dst_agent, src_agent, size, start, end, graph=None):
        ev = self.event("MEMORY_COPY", corr)
        cols = ['nid', 'pid', 'tid', 'start', '"end"', 'name_id', 'dst_agent_id', 'src_agent_id', 'size', 'stream_id',
                'event_id']
        vals = [1, self.pid, 1, start, end, self.string(name), dst_agent, src_agent, size, 0, ev]
        if graph is not None:
            cols += ["graph_exec_id", "graph_node_id"]
            vals += [graph, 3]
        return self.con.execute(f"INSERT INTO {self.t('memory_copy')}({','.join(cols)}) "
                                f"VALUES ({','.join('?' * len(vals))})", vals).lastrowid

    def allocation(self, corr, tid, agent, kind, level, address, size, start, end):
        ev = self.event("MEMORY_ALLOCATION", corr)
        return self.con.execute(
            f"INSERT INTO {self.t('memory_allocate')}(nid, pid, tid, agent_id, type, level, start, \"end\", address, "
            "size, event_id) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.pid, self.thread(tid), agent, kind, level, start, end, address, size, ev)).lastrowid

    def pmc(self, pmc_id, name, units):
        self.con.execute(f"INSERT INTO {self.t('info_pmc')}(id, nid, pid, agent_id, target_arch, name, symbol, units, "
                         "component, value_type) VALUES (?, 1, ?, 2, 'GPU', ?, ?, ?, 'rocm', 'ABS')",
                         (pmc_id, self.pid, name, name, units))

    def pmc_value(self, event_id, pmc_id, value, sample_id=None):
        return self.con.execute(f"INSERT INTO {self.t('pmc_event')}(event_id, sample_id, pmc_id, value) "
                                "VALUES (?, ?, ?, ?)", (event_id, sample_id, pmc_id, value)).lastrowid

    def hip_event(self, corr, gpu, queue, name, start, end):
        ev = self.event("HIP_EVENT", corr)
        return self.con.execute(
            f"INSERT INTO {self.t('hip_event')}(nid, pid, tid, agent_id, queue_id, source_queue_id, stream_id, "
            "start, \"end\", name_id, event_id) VALUES (1, ?, 1, ?, ?, ?, 0, ?, ?, ?, ?)",
            (self.pid, 2 + gpu, queue, queue, start, end, self.string(name), ev)).lastrowid


def uuid_of(i):
    guid = f"0199aaaa-bbbb-7ccc-8ddd-{i:012x}"
    return guid.replace("-", "_"), guid


def rocpd_file(path, ddl="rocpd_v3_0_5.sql", version=None, processes=1, first_pid=1000, rocprofsys=False):
    """A file of `processes` processes (more than one: a merged file, schema/rocpd_merged.md).
    Returns (connection, [RocpdProcess]) for the caller to fill and commit."""
    con = sqlite3.connect(path)
    procs = []
    for i in range(processes):
        u, g = uuid_of(first_pid + i)
        if rocprofsys:
            u = g = f"{first_pid + i:032x}"
        con.executescript(table_ddl(ddl, u, g, version))
        if rocprofsys:
            con.execute(f'INSERT INTO "rocpd_metadata_{u}"(tag, value) VALUES (\'upid\', ?)', (u,))
        procs.append(RocpdProcess(con, u, first_pid + i, rocprofsys=rocprofsys))
    return con, procs
