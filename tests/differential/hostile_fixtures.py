"""Hostile trace members for the differential tester, built at test time from schema/*.sql.

Every file is created with the project's DDL (rpd v2, rpd v3, rocpd v3) and then filled with rows a
careful tracer would never write but a file may hold: dangling and NULL string ids, a kernel symbol
id without a symbol, text / blobs / reals in integer columns, invalid UTF-8, names of 1 MB, names
with NUL bytes, reversed and zero-length ops, NULL times, timestamps near the int64 limits, empty
strings, duplicate link rows.

To store values exactly as given (text '12' in an INTEGER column, a REAL 3.0 in a BIGINT column),
the declared types of the non-key columns are removed while the rows are inserted and put back
afterwards (PRAGMA writable_schema): the file then declares the DDL's types but holds the raw
values, as files written through another schema or another tool do. `relaxed` also drops the
DDL's NOT NULL so that NULL ids and times can be stored.

Deterministic: the same files every run (no randomness, fixed UUIDs).
"""
import fcntl
import hashlib
import os
import re
import shutil
import sqlite3

SOURCE_DIR = os.environ.get("ROCPD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMA_DIR = os.path.join(SOURCE_DIR, "schema")

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63


class RawText(bytes):
    """Bytes stored as TEXT without validation (invalid UTF-8 and NUL bytes allowed)."""


BIG = "big_" + "x" * (1 << 20)  # a 1 MB name
BAD_UTF8 = RawText(b"bad\xff\xfe_utf8\xc3")
NUL_NAME = RawText(b"nul\x00inside")
BLOB_NAME = b"\x00\xffA"  # a BLOB where text is expected

# Kernel names of the hostile members: plain, case variants (NOCASE), trailing and leading spaces
# (RTRIM), LIKE/GLOB metacharacters, numbers as text, non-ASCII, invalid UTF-8, NUL, 1 MB, a blob.
KERNEL_NAMES = [
    "_Z6kernelPfi", "MixedCase_Kernel", "mixedcase_kernel", "MIXEDCASE_KERNEL", "trail  ", "trail",
    "  lead", "pct%_\\name", "a_b", "a%b", "quote'name", "Ünïcödé_kernel", "ünïcödé_KERNEL", "12", "0",
    "2.5", "ncclDevKernel_AllReduce", "Cijk_Ailk_Bjlk", "[glob]*?", BAD_UTF8, NUL_NAME, BIG, BLOB_NAME,
]


def _ddl(name, relaxed, uuid=None):
    with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as f:
        text = f.read()
    if uuid:
        text = text.replace("{{uuid}}", uuid.replace("-", "_")).replace("{{guid}}", uuid)
    if relaxed:
        text = re.sub(r"\s+NOT NULL\b", "", text)
    return text


_TYPE = re.compile(r'^(\s*"[^"]+")\s+(?:integer|INTEGER|INT|BIGINT|bigint|TEXT|REAL|real|bool|JSONB|'
                   r'varchar\(\d+\))(?=[\s,]|$)', re.M)


def _typeless(sql):
    out = []
    for line in sql.split("\n"):
        if "PRIMARY KEY" not in line:
            line = _TYPE.sub(r"\1", line)
        out.append(line)
    return "\n".join(out)


def _set_schema(path, sqls):
    con = sqlite3.connect(path)
    con.execute("PRAGMA writable_schema = ON")
    for name, sql in sqls.items():
        con.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?", (sql, name))
    con.commit()
    con.execute("PRAGMA writable_schema = OFF")
    con.close()


def _insert(con, table, row):
    cols = list(row)
    marks = ["CAST(? AS TEXT)" if isinstance(row[c], RawText) else "?" for c in cols]
    vals = [bytes(row[c]) if isinstance(row[c], RawText) else row[c] for c in cols]
    con.execute('INSERT INTO "%s" (%s) VALUES (%s)' % (table, ", ".join('"%s"' % c for c in cols), ", ".join(marks)),
                vals)


def build_db(path, ddl_name, tables, relaxed=True, uuid=None):
    """Creates `path` from the DDL and inserts `tables` ({table: [row dict]}) with raw values."""
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.executescript(_ddl(ddl_name, relaxed, uuid))
    con.commit()
    original = dict(con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'").fetchall())
    con.close()
    _set_schema(path, {n: _typeless(s) for n, s in original.items()})
    con = sqlite3.connect(path)
    suffix = "_" + uuid.replace("-", "_") if uuid else ""
    for table, rows in tables.items():
        for row in rows:
            _insert(con, table + suffix, row)
    con.commit()
    con.close()
    _set_schema(path, original)
    con = sqlite3.connect(path)
    # integrity_check names raw values the declared affinity would have converted ('12' in an
    # INTEGER column): intended here. Anything else is a broken fixture.
    check = [r for r in con.execute("PRAGMA integrity_check(1000)").fetchall()
             if r != ("ok",) and not re.match(r"(TEXT|REAL|INTEGER|NUMERIC|BLOB|NULL) value in ", r[0])]
    con.close()
    if check:
        raise RuntimeError(f"hostile fixture {path}: integrity_check says {check[:3]}")


# ----------------------------------------------------------------------------------------------
# rpd (schema 2 and 3)

class Strings:
    """rocpd_string rows: id 1 is ''; ids are handed out in insertion order."""

    def __init__(self):
        self.rows = []
        self.ids = {}
        self.add("")

    def add(self, s):
        key = (type(s), s)
        if key not in self.ids:
            self.ids[key] = len(self.rows) + 1
            self.rows.append({"id": len(self.rows) + 1, "string": s})
        return self.ids[key]


def rpd_tables(version, base, limits=False, typed=True):
    """The rows of one hostile rpd member. `base` offsets all times; `limits` adds int64 extremes;
    `typed` adds ops whose gpu or times are text, reals or blobs (the interval tables refuse those
    members by design, docs/intervals.md)."""
    st = Strings()
    ust = Strings()  # v3 rocpd_ustring
    kexec, task = st.add("KernelExecution"), st.add("Task")
    h2d, d2h, d2d = st.add("CopyHostToDevice"), st.add("CopyDeviceToHost"), st.add("CopyDeviceToDevice")
    barrier, fill = st.add("BarrierAnd"), st.add("FillBuffer")
    launch, memcpy, malloc = st.add("hipLaunchKernel"), st.add("hipMemcpy"), st.add("hipMalloc")
    marker, hsa, rccl = st.add("UserMarker"), st.add("hsa_signal_wait_scacquire"), st.add("rcclAllReduce")
    dom_hip, dom_roctx, dom_weird = st.add("HIP"), st.add("ROCTX"), st.add("Weird_Domain")
    cat_api = st.add("HIP_RUNTIME_API")
    names = [st.add(n) for n in KERNEL_NAMES]
    blob_string = st.add(b"\x01\x02")  # a blob in rocpd_string.string
    args_strings = st if version == 2 else ust
    arg_plain = args_strings.add("ptr=0x1 | size=0x10")
    msg_ids = [args_strings.add(m) for m in ("forward", "Forward", "forward ", "", BAD_UTF8, NUL_NAME, BIG, "%_x")]

    ops, apis, links, kernelapi, copyapi = [], [], [], [], []
    t = base

    def api(name_id, args_id, start, end, pid=4242, tid=4242, category=None, domain=None, **extra):
        row = {"id": len(apis) + 1, "pid": pid, "tid": tid, "start": start, "end": end, "apiName_id": name_id,
               "args_id": args_id}
        if version == 3:
            row["category_id"] = cat_api if category is None else category
            row["domain_id"] = dom_hip if domain is None else domain
        row.update(extra)
        apis.append(row)
        return row["id"]

    def op(gpu, queue, start, end, desc, optype, link=True, **extra):
        row = {"id": len(ops) + 1, "gpuId": gpu, "queueId": queue, "sequenceId": 0, "start": start, "end": end,
               "description_id": desc, "opType_id": optype}
        if version == 2:
            row["completionSignal"] = ""
        row.update(extra)
        ops.append(row)
        if link:
            at = start if isinstance(start, int) and abs(start) < 2**62 else base
            a = api(launch if optype in (kexec, task) else memcpy, 1, at - 50, at - 10)
            links.append({"id": len(links) + 1, "api_id": a, "op_id": row["id"]})
            if optype in (kexec, task):
                kr = {"api_ptr_id": a, "stream": "", "gridX": 1, "gridY": 1, "gridZ": 1, "workgroupX": 64,
                      "workgroupY": 1, "workgroupZ": 1, "groupSegmentSize": 0, "privateSegmentSize": 0,
                      "kernelName_id": desc}
                if version == 2:
                    kr.update({"kernelArgAddress": "", "aquireFence": "", "releaseFence": "", "codeObject_id": 0})
                kernelapi.append(kr)
        return row["id"]

    # Ordinary kernels over every hostile name on three gpus, overlapping, some touching.
    for i, n in enumerate(names):
        gpu = i % 3
        op(gpu, i % 2, t, t + 1000 + 37 * i, n, kexec if i % 5 else task)
        op((gpu + 1) % 3, 0, t + 500, t + 500 + 1000, n, kexec)  # equal durations, shared starts
        t += 800
    # Copies, barriers, fills: empty description, named by the op type.
    for k, ty in enumerate((h2d, d2h, d2d, barrier, fill, h2d)):
        cid = op(k % 3, 1, t, t + 300, 1, ty)
        copyapi.append({"api_ptr_id": links[-1]["api_id"], "stream": "", "size": 1024 * (k + 1), "width": "",
                        "height": "", "kind": 1, "dst": "0x1", "src": "0x2", "dstDevice": 0, "srcDevice": -1,
                        "sync": k % 2, "pinned": 0})
        t += 200
    del cid
    # Equal timestamps: four ops with identical start and end on one gpu; a collective on two gpus.
    for g in (0, 0, 0, 1, 2):
        op(g, 0, t, t + 400, names[16], kexec)
    # Identical op rows (different ids): duplicates must both be returned.
    for _ in range(2):
        op(1, 1, t + 10, t + 20, names[0], kexec, link=False)
    t += 1000
    # Zero-length and reversed ops.
    op(0, 0, t, t, names[1], kexec)
    op(1, 0, t + 50, t + 10, names[2], kexec)
    op(2, 0, t + 100, t - 100, names[3], kexec)
    t += 500
    # Dangling and NULL string ids: description, op type, both.
    op(0, 1, t, t + 100, 99999, kexec)
    op(1, 1, t + 10, t + 110, None, kexec)
    op(2, 1, t + 20, t + 120, 1, 88888)
    op(0, 1, t + 30, t + 130, 1, None)
    op(1, 1, t + 40, t + 140, names[0], 77777)
    op(2, 1, t + 50, t + 150, blob_string, kexec)
    t += 400
    # Text, blobs and reals in integer columns; NULL gpu and queue.
    if typed:
        op("abc", 0, t, t + 100, names[4], kexec)
        op("12", 0, t + 10, t + 110, names[5], kexec)
        op("1", 0, t + 20, t + 120, names[6], kexec)
        op(1.5, 0, t + 30, t + 130, names[7], kexec)
        op(2.0, 0, t + 40, t + 140, names[8], kexec)
        op(b"\x01", 0, t + 50, t + 150, names[9], kexec)
    op(None, None, t + 60, t + 160, names[10], kexec)
    op(0, "q", t + 70, t + 170, names[11], kexec)
    op(-1, 2.5, t + 80, t + 180, names[12], kexec)
    op(0, 0, t + 90, t + 190, names[13], kexec, sequenceId="")
    t += 400
    # Times that are not integers: NULL, real, text.
    op(0, 0, None, t + 100, names[14], kexec)
    op(1, 0, t + 10, None, names[15], kexec)
    op(2, 0, None, None, names[16], kexec)
    if typed:
        op(0, 0, t + 20.5, t + 150, names[17], kexec)
        op(1, 0, t + 30, t + 175.25, names[18], kexec)
        op(2, 0, float(t + 40), t + 180, names[19], kexec)
        op(0, 0, str(t + 50), t + 190, names[20], kexec)
        op(1, 0, t + 60, "abc", names[21], kexec)
        op(2, 0, "", "", names[22], kexec)
    t += 400
    if limits:
        op(0, 0, INT64_MAX - 1000, INT64_MAX, names[0], kexec)
        op(0, 0, INT64_MAX - 10, INT64_MAX, names[1], kexec)
        op(0, 1, INT64_MAX, INT64_MAX, names[2], kexec)
        op(1, 0, INT64_MIN, INT64_MIN + 1000, names[3], kexec)
        op(1, 1, INT64_MIN + 500, INT64_MIN + 600, names[4], kexec)
        op(2, 0, INT64_MIN, INT64_MAX, names[5], kexec)  # longer than INT64_MAX ns
        op(2, 1, INT64_MAX, INT64_MIN, names[6], kexec)  # reversed across the whole range
        op(3, 0, -5, 5, names[7], kexec)
        op(3, 0, 0, 0, names[8], kexec)
    # Links: an op issued by two calls (two link rows), a link row repeated, links to missing
    # calls and missing ops, ops without a link.
    first_kernel = 1
    extra_api = api(launch, arg_plain, base - 40, base - 30)
    links.append({"id": len(links) + 1, "api_id": extra_api, "op_id": first_kernel})
    links.append(dict(links[2], id=len(links) + 1))
    links.append({"id": len(links) + 1, "api_id": 555555, "op_id": 3})
    links.append({"id": len(links) + 1, "api_id": 4, "op_id": 666666})
    links.append({"id": len(links) + 1, "api_id": None, "op_id": 5})
    # API calls and markers: hostile names, args, domains, categories, times.
    t += 100
    for m in msg_ids:
        api(marker, m, t, t + 77, domain=dom_roctx, category=1)
        t += 20
    api(marker, arg_plain, t, t, domain=dom_roctx)  # an instant mark
    api(marker, 99999, t + 1, t + 9)  # marker whose message id dangles
    api(marker, None, t + 2, t + 9)
    api(99999, arg_plain, t + 3, t + 9)  # dangling API name
    api(None, arg_plain, t + 4, t + 9)
    api(malloc, 99999, t + 5, t + 9)
    api(malloc, None, t + 6, t + 9)
    api(hsa, 1, t + 7, t + 9, domain=1, category=1)  # v3: empty domain and category
    api(rccl, 1, t + 8, t + 9, domain=dom_weird, category=99999)
    api(launch, 1, t + 9, t + 9, domain=99999, category=None)
    api(launch, 1, t + 10, t + 2, pid="abc", tid=None)  # reversed, text pid
    api(launch, 1, None, t + 2, pid=4242.5, tid="7")
    api(launch, 1, t + 11, None, pid=None)
    api(launch, 1, "x", 2.5)
    api(names[0], names[5], t + 12, t + 20)  # a kernel name as API name
    api(blob_string, blob_string, t + 13, t + 20)
    if limits:
        api(launch, 1, INT64_MIN, INT64_MIN + 5)
        api(launch, 1, INT64_MAX - 5, INT64_MAX)
        api(launch, 1, INT64_MIN, INT64_MAX)
    meta = [{"tag": "hostname", "value": "hostile-node"}, {"tag": "session_count", "value": "1"}]
    monitor = [{"id": i + 1, "deviceType": "gpu", "deviceId": v, "monitorType": "sclk", "start": base + i * 10,
                "end": base + i * 10 + (5 if i != 2 else -5), "value": val}
               for i, (v, val) in enumerate([(0, "1700"), (1, "abc"), ("x", ""), (None, None), (2.5, "1e3")])]
    tables = {"rocpd_string": st.rows, "rocpd_op": ops, "rocpd_api": apis, "rocpd_api_ops": links,
              "rocpd_kernelapi": kernelapi, "rocpd_copyapi": copyapi, "rocpd_metadata": meta,
              "rocpd_monitor": monitor}
    if version == 3:
        tables["rocpd_ustring"] = ust.rows
    return tables


# ----------------------------------------------------------------------------------------------
# rocpd (rocprofv3 schema 3)

def rocpd_tables(base, limits=False, typed=True):
    st = Strings()
    cat = {c: st.add(c) for c in ("KERNEL_DISPATCH", "MEMORY_COPY", "HIP_RUNTIME_API_EXT", "MARKER_CORE_RANGE_API",
                                  "HSA_CORE_API", "RCCL_API", "weird_category", "marker_core_api")}
    copy_names = [st.add(n) for n in ("MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
                                      "MEMORY_COPY_DEVICE_TO_DEVICE", "MEMORY_COPY_PEER_TO_PEER",
                                      "MEMORY_COPY_NONE", "")]
    api_names = [st.add(n) for n in ("hipLaunchKernel", "hipMemcpyAsync", "hipMalloc", "forward", "Forward",
                                     "forward ", "%_x", "12")]
    hostile_region_names = [st.add(n) for n in (BAD_UTF8, NUL_NAME, BIG, b"\x05\x06", "Ünïcödé")]
    track_name = st.add("MARKER_CORE_RANGE_API")
    pid, nid = 4343, 1
    node = [{"id": nid, "hash": 77, "machine_id": "m-1", "hostname": "hostile-rocpd", "system_name": "Linux"}]
    process = [{"id": pid, "nid": nid, "ppid": 1, "pid": pid, "init": base, "fini": base + 10**7,
                "start": base, "end": base + 10**7, "command": "hostile", "environment": "{}"}]
    thread = [{"id": t, "nid": nid, "ppid": 1, "pid": pid, "tid": t, "name": "t%d" % t} for t in (pid, pid + 7)]
    agents = [{"id": 0, "nid": nid, "pid": pid, "type": "CPU", "absolute_index": 0, "logical_index": 0,
               "type_index": 0, "name": "cpu0"},
              {"id": 1, "nid": nid, "pid": pid, "type": "CPU", "absolute_index": 1, "logical_index": 1,
               "type_index": 1, "name": "cpu1"}]
    for g in range(3):
        agents.append({"id": 2 + g, "nid": nid, "pid": pid, "type": "GPU", "absolute_index": 2 + g,
                       "logical_index": 2 + g, "type_index": g, "name": "gfx942"})
    agents.append({"id": 5, "nid": nid, "pid": pid, "type": "GPU", "absolute_index": 5, "type_index": None})
    agents.append({"id": 6, "nid": nid, "pid": pid, "type": "GPU", "absolute_index": 6, "type_index": "x"})
    agents.append({"id": 7, "nid": nid, "pid": pid, "type": "GPU", "absolute_index": 7, "type_index": 1.5})
    code = [{"id": 1, "nid": nid, "pid": pid, "agent_id": 2, "uri": "file://x", "storage_type": "FILE"}]
    symbols = []
    for i, n in enumerate(KERNEL_NAMES + [None]):
        symbols.append({"id": i + 1, "nid": nid, "pid": pid, "code_object_id": 1, "kernel_name": n,
                        "display_name": n if not isinstance(n, str) else n.upper()})
    events, regions, dispatches, copies, samples, tracks, args = [], [], [], [], [], [], []

    def event(category, corr, extdata="{}"):
        events.append({"id": len(events) + 1, "category_id": category, "stack_id": corr, "parent_stack_id": 0,
                       "correlation_id": corr, "call_stack": "{}", "line_info": "{}", "extdata": extdata})
        return len(events)

    def region(name_id, start, end, category=cat["HIP_RUNTIME_API_EXT"], corr=None, tid=pid, ev=True, **extra):
        rid = len(regions) + 1
        e = event(category, rid if corr is None else corr) if ev else None
        row = {"id": rid, "nid": nid, "pid": pid, "tid": tid, "start": start, "end": end, "name_id": name_id,
               "event_id": e}
        row.update(extra)
        regions.append(row)
        return rid, e

    def dispatch(agent, kernel, start, end, queue=1, link=True, **extra):
        corr = None
        if link:
            at = start if isinstance(start, int) and abs(start) < 2**62 else base
            corr, _ = region(api_names[0], at - 40, at - 10)
        row = {"id": len(dispatches) + 1, "nid": nid, "pid": pid, "tid": pid, "agent_id": agent, "kernel_id": kernel,
               "dispatch_id": len(dispatches) + 1, "queue_id": queue, "stream_id": queue, "start": start, "end": end,
               "workgroup_size_x": 64, "workgroup_size_y": 1, "workgroup_size_z": 1, "grid_size_x": 1,
               "grid_size_y": 1, "grid_size_z": 1, "region_name_id": 1,
               "event_id": event(cat["KERNEL_DISPATCH"], corr)}
        row.update(extra)
        dispatches.append(row)

    def copy(name_id, dst, src, start, end, **extra):
        at = start if isinstance(start, int) and abs(start) < 2**62 else base
        corr, _ = region(api_names[1], at - 40, at - 10)
        row = {"id": len(copies) + 1, "nid": nid, "pid": pid, "tid": pid, "start": start, "end": end,
               "name_id": name_id, "dst_agent_id": dst, "src_agent_id": src, "size": 4096, "queue_id": None,
               "stream_id": 0, "event_id": event(cat["MEMORY_COPY"], corr)}
        row.update(extra)
        copies.append(row)

    t = base
    for i in range(len(symbols)):
        dispatch(2 + i % 3, i + 1, t, t + 900 + 13 * i, queue=1 + i % 2)
        t += 700
    for k in range(5):
        dispatch(2 + k % 3, 17, t, t + 400, link=k != 4)  # equal timestamps (a collective)
    t += 600
    dispatch(2, 1, t, t)  # zero length
    dispatch(3, 2, t + 50, t + 10)  # reversed
    dispatch(4, 9999, t + 60, t + 160)  # kernel symbol id without a symbol
    dispatch(4, None, t + 70, t + 170)
    dispatch(99, 3, t + 80, t + 180)  # agent without a row
    dispatch(None, 4, t + 90, t + 190)
    dispatch(5, 5, t + 100, t + 200)  # GPU agent with NULL type_index
    if typed:
        dispatch(6, 6, t + 110, t + 210)  # text type_index
        dispatch(7, 7, t + 120, t + 220)  # real type_index
    dispatch(2, 8, t + 130, t + 230, event_id=None)
    dispatch(3, 9, t + 140, t + 240, event_id=88888)
    dispatch(2, 10, t + 150, t + 250, queue="q")
    dispatch(3, 11, None, t + 260)
    dispatch(4, 12, t + 160, None)
    if typed:
        dispatch(2, 13, t + 170.5, t + 270)
        dispatch(3, 14, "abc", t + 280)
    dispatch(4, 15, t + 180, t + 280, pid="4343")
    t += 600
    for k, n in enumerate(copy_names):
        copy(n, [2, 0, 3, 4, 2, 3][k], [0, 2, 2, 3, 1, 1][k], t, t + 250)
        t += 100
    copy(99999, 2, 0, t, t + 100)  # copy name id without a string
    copy(None, 3, 0, t + 10, t + 110)
    copy(copy_names[0], None, None, t + 20, t + 120)
    copy(copy_names[1], 0, 1, t + 30, t + 130)  # host to host: no GPU
    copy(copy_names[2], 99, 2, t + 40, t + 140)
    copy(copy_names[0], 2, 0, t + 50, t + 40)  # reversed
    t += 300
    if limits:
        dispatch(2, 1, INT64_MAX - 1000, INT64_MAX)
        dispatch(3, 2, INT64_MIN, INT64_MIN + 100)
        dispatch(4, 3, INT64_MIN, INT64_MAX)
        copy(copy_names[0], 2, 0, INT64_MAX - 5, INT64_MAX)
    # Regions: hostile names, dangling/NULL names and events, text/NULL times; markers.
    for n in api_names[2:] + hostile_region_names:
        region(n, t, t + 55, category=cat["MARKER_CORE_RANGE_API"] if n in api_names[3:7] else
               cat["HIP_RUNTIME_API_EXT"])
        t += 10
    region(99999, t, t + 5)
    region(None, t + 1, t + 6)
    region(api_names[2], t + 2, t + 7, ev=False)
    region(api_names[2], t + 3, t + 8, category=None)
    region(api_names[2], t + 4, t + 9, category=99999)
    region(api_names[2], t + 5, t + 10, category=cat["HSA_CORE_API"])
    region(api_names[2], t + 6, t + 11, category=cat["RCCL_API"])
    region(api_names[2], t + 7, t + 12, category=cat["weird_category"])
    region(api_names[2], t + 8, t + 2)  # reversed
    region(api_names[2], None, t + 2)
    region(api_names[2], t + 9, "abc", tid="x")
    region(api_names[2], 2.5, t + 3, event_id=77777)
    region(1, t + 10, t + 12)  # empty name
    # Instant marks as samples on tracks: message from extdata, else the track name.
    tracks.append({"id": 1, "nid": nid, "pid": pid, "tid": pid, "name_id": track_name})
    tracks.append({"id": 2, "nid": nid, "pid": pid, "tid": pid + 7, "name_id": None})
    tracks.append({"id": 3, "nid": nid, "pid": "p", "tid": None, "name_id": 99999})
    for k, (track, ext, category) in enumerate([
            (1, '{"message": "mark_a"}', cat["MARKER_CORE_RANGE_API"]),
            (1, '{"message": "Mark_A"}', cat["MARKER_CORE_RANGE_API"]),
            (2, "{}", cat["MARKER_CORE_RANGE_API"]),
            (3, '{"message": null}', cat["marker_core_api"]),
            (1, '{"message": 12}', cat["MARKER_CORE_RANGE_API"]),
            (1, '{"message": ""}', cat["MARKER_CORE_RANGE_API"]),
            (2, '{"other": 1}', cat["HIP_RUNTIME_API_EXT"]),  # not a marker
            (99, '{"message": "no track"}', cat["MARKER_CORE_RANGE_API"]),
            (1, '{"message": "same"}', cat["MARKER_CORE_RANGE_API"]),
            (1, '{"message": "same"}', cat["MARKER_CORE_RANGE_API"])]):
        samples.append({"id": k + 1, "track_id": track, "timestamp": t + 3 * k if k != 5 else None,
                        "event_id": event(category, 10**6 + k, ext)})
    samples.append({"id": len(samples) + 1, "track_id": 1, "timestamp": t + 50, "event_id": 66666})
    samples.append({"id": len(samples) + 1, "track_id": 1, "timestamp": t + 51, "event_id": None})
    for k in range(6):
        args.append({"id": k + 1, "event_id": k + 1, "position": k, "type": "void*", "name": "ptr",
                     "value": [None, "0x1", "", BAD_UTF8, 12, 2.5][k]})
    meta = []
    return {"rocpd_string": st.rows, "rocpd_info_node": node, "rocpd_info_process": process,
            "rocpd_info_thread": thread, "rocpd_info_agent": agents, "rocpd_info_code_object": code,
            "rocpd_info_kernel_symbol": symbols, "rocpd_event": events, "rocpd_region": regions,
            "rocpd_kernel_dispatch": dispatches, "rocpd_memory_copy": copies, "rocpd_track": tracks,
            "rocpd_sample": samples, "rocpd_arg": args, "rocpd_metadata": meta}


UUIDS = ["0190a5c1-1111-7000-8000-00000000aa01", "0190a5c1-2222-7000-8000-00000000aa02"]


def _stamp():
    h = hashlib.sha256()
    for p in [__file__, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_nsys.py")] + \
            [os.path.join(SCHEMA_DIR, n) for n in ("rpd_v2.sql", "rpd_v3.sql", "rocpd_v3.sql", "nsys.sql")]:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


SET_NAMES = ("hostile", "hostile_limits")


def build(out_dir):
    """Writes the hostile sets under out_dir (unless already there from the same sources);
    returns {set name: directory}. Safe when several testers start at once (a lock file)."""
    os.makedirs(os.path.dirname(os.path.abspath(out_dir)), exist_ok=True)
    with open(out_dir + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = os.path.join(out_dir, "stamp")
        want = _stamp()
        try:
            with open(stamp) as f:
                if f.read() == want:
                    return {n: os.path.join(out_dir, n) for n in SET_NAMES}
        except OSError:
            pass
        _build(out_dir)
        with open(stamp, "w") as f:
            f.write(want)
        return {n: os.path.join(out_dir, n) for n in SET_NAMES}


def _build(out_dir):
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    sets = {}
    # `hostile` holds every kind of value; `hostile_limits` only integer (or NULL) gpus and times,
    # so that the interval tables answer on it, and the int64 extremes.
    for name, limits, base in zip(SET_NAMES, (False, True), (1_000_000, 5_000_000)):
        d = os.path.join(out_dir, name)
        os.makedirs(d)
        typed = not limits
        build_db(os.path.join(d, "h_rpd2.rpd"), "rpd_v2.sql", rpd_tables(2, base, limits, typed))
        build_db(os.path.join(d, "h_rpd3.rpd"), "rpd_v3.sql", rpd_tables(3, base + 333, limits, typed))
        build_db(os.path.join(d, "h_rocpd.db"), "rocpd_v3.sql", rocpd_tables(base + 777, limits, typed),
                 uuid=UUIDS[limits])
        from hostile_nsys import build_nsys  # an Nsight Systems export (its own module: nsys.sql is unquoted)
        build_nsys(os.path.join(d, "h_nsys.sqlite"), base + 999, limits, typed)
        sets[name] = d
    return sets


if __name__ == "__main__":
    import sys
    print(build(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rocpd_hostile"))
