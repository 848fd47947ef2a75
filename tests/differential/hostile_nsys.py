"""A hostile Nsight Systems export for the differential tester (built by hostile_fixtures.build from
schema/nsys.sql): rows a careful exporter would never write but a file may hold. Dangling and NULL
StringIds ids, empty mangled names, the hostile kernel names, correlation ids repeated across two
processes and beyond 32 bits, unknown event classes and copy kinds, text, reals and blobs in integer
columns (`typed`), NULL and reversed times, identical rows, NVTX rows of every type with NULL texts
and ends, and (`limits`) times at the int64 extremes."""
import os
import re

from hostile_fixtures import BAD_UTF8, BIG, INT64_MAX, INT64_MIN, KERNEL_NAMES, NUL_NAME, _ddl, _insert, _set_schema

# Unquoted column declarations of schema/nsys.sql: `    start    INTEGER   NOT NULL,`.
_TYPE = re.compile(r"^(\s+[A-Za-z_][A-Za-z0-9_]*)\s+(?:INTEGER|TEXT|REAL)(?=[\s,]|$)", re.M)


def _typeless(sql):
    return "\n".join(line if "PRIMARY KEY" in line else _TYPE.sub(r"\1", line) for line in sql.split("\n"))


def gpid(pid):
    return (1 << 48) | (pid << 24)


def gtid(pid, tid):
    return gpid(pid) | tid


def nsys_tables(base, limits=False, typed=True):
    strings = []

    def sid(value):
        strings.append({"id": len(strings) + 1, "value": value})
        return len(strings)

    names = [sid(n) for n in KERNEL_NAMES]
    empty = sid("")
    api_names = [sid(n) for n in ("cudaLaunchKernel_v7000", "cuLaunchKernel", "cudaMemcpyAsync_v3020", "x_v1",
                                  "cudaGraphLaunch_v10000", "ab", "_v1234", BAD_UTF8)]
    registered = [sid(n) for n in ("forward", "Forward", "forward ", BIG, NUL_NAME)]
    blob = sid(b"\x01\x02")
    number_name = sid(12)  # an integer where StringIds holds text
    kernels, copies, sets, calls, nvtx = [], [], [], [], []
    t = base
    procs = (4242, 4343)

    def call(pid, corr, start, end, name, event_class=0, tid=None):
        calls.append({"start": start, "end": end, "eventClass": event_class,
                      "globalTid": gtid(pid, pid if tid is None else tid), "correlationId": corr,
                      "nameId": name, "returnValue": 0})

    def kernel(i, gpu, start, end, name, demangled=None, corr=None, pid=None, link=True, **extra):
        pid = procs[i % 2] if pid is None else pid
        corr = i + 1 if corr is None else corr
        row = {"start": start, "end": end, "deviceId": gpu, "contextId": 1, "streamId": 7 + i % 2,
               "correlationId": corr, "globalPid": gpid(pid) if isinstance(pid, int) else pid,
               "demangledName": names[(i + 1) % len(names)] if demangled is None else demangled, "shortName": 1,
               "mangledName": name, "registersPerThread": 32, "gridX": 2, "gridY": 1, "gridZ": 1, "blockX": 64,
               "blockY": 1, "blockZ": 1, "staticSharedMemory": 0, "dynamicSharedMemory": 1024,
               "localMemoryPerThread": 0, "localMemoryTotal": 0, "gridId": len(kernels) + 1, "graphId": None,
               "tensorSizeMinusOneElements": "[]"}
        row.update(extra)
        kernels.append(row)
        if link and isinstance(start, int) and abs(start) < 2**62 and isinstance(pid, int):
            call(pid, corr, start - 50, start - 10, api_names[len(kernels) % len(api_names)], event_class=i % 2)

    # The hostile names on three gpus; both processes use the same correlation ids.
    for i, n in enumerate(names):
        kernel(i, i % 3, t, t + 1000 + 37 * i, n, corr=i // 2 + 1)
        kernel(i + 1, (i + 1) % 3, t + 500, t + 1500, None if i % 3 else n, corr=1000 + i)  # demangled name only
        t += 800
    kernel(0, 0, t, t + 400, empty)  # an empty mangled name: the demangled one
    kernel(1, 1, t, t + 400, 99999, demangled=88888)  # dangling ids
    kernel(2, 2, t, t + 400, None, demangled=None, link=False)
    kernels[-1]["demangledName"] = None
    kernel(3, 0, t, t + 400, blob)
    for _ in range(2):  # identical rows
        kernel(4, 1, t + 10, t + 20, names[0], corr=777, link=False)
    call(4242, 777, t - 5, t + 1, api_names[0])  # one call, two ops
    t += 1000
    kernel(5, 0, t, t, names[1])            # zero length
    kernel(6, 1, t + 50, t + 10, names[2])  # reversed
    kernel(7, 2, t, t + 100, names[3], corr=2**40)  # beyond 32 bits
    kernel(8, 2, t, t + 100, names[4], corr=-5)
    kernel(9, 2, t, t + 100, names[5], corr=None, link=False)
    kernels[-1]["correlationId"] = None
    t += 500
    if typed:
        kernel(10, "abc", t, t + 100, names[6])
        kernel(11, 1.5, t + 10, t + 110, names[7])
        kernel(12, 0, t + 20, t + 120, names[8], pid="x", link=False)
        kernel(13, 0, t + 30, t + 130, names[9], corr="y", link=False)
        kernel(14, 0, t + 40, t + 140, names[10], corr=3.0, link=False)
        kernel(15, 0, t + 50.5, t + 150, names[11])
        kernel(16, 0, str(t + 60), "abc", names[12], link=False)
        kernel(17, 1, t + 70, t + 170, "12", gridX="x", staticSharedMemory=2.5)
        kernel(18, 2, t + 80, t + 180, names[13], streamId=b"\x01")
        # Numbers stored as text where the canonical column is a number, and the reverse: compared
        # inside the member they would not match as the returned (converted) values do.
        kernel(19, 2, t + 85, t + 185, number_name, graphId="5")
        kernel(20, 1, t + 86, t + 186, number_name, graphId=5)
    kernel(19, None, t + 90, t + 190, names[14])
    kernel(20, 0, None, t + 100, names[15], link=False)
    kernel(21, 1, t + 10, None, names[16])
    t += 400
    if limits:
        kernel(22, 0, INT64_MAX - 1000, INT64_MAX, names[0], link=False)
        kernel(23, 1, INT64_MIN, INT64_MIN + 1000, names[1], link=False)
        kernel(24, 2, INT64_MIN, INT64_MAX, names[2], link=False)
        kernel(25, 2, INT64_MAX, INT64_MIN, names[3], link=False)
    # Copies of every kind, known and unknown, with and without recorded devices.
    for k, (kind, src, dst) in enumerate(((1, None, None), (2, None, None), (8, None, None), (8, 0, 2), (10, 1, 0),
                                          (6, None, None), (99, None, None), (None, None, None), (0, 5, 5))):
        pid = procs[k % 2]
        copies.append({"start": t, "end": t + 300, "deviceId": k % 3, "contextId": 1, "streamId": 9,
                       "correlationId": 5000 + k, "globalPid": gpid(pid), "bytes": 1024 * (k + 1), "copyKind": kind,
                       "srcKind": 2, "dstKind": 2, "srcDeviceId": src, "dstDeviceId": dst})
        call(pid, 5000 + k, t - 40, t - 5, api_names[2])
        t += 200
    if typed:
        copies.append({"start": t, "end": t + 10, "deviceId": 0, "contextId": 1, "streamId": 9, "correlationId": 6000,
                       "globalPid": gpid(4242), "bytes": "many", "copyKind": "x", "srcDeviceId": "a"})
        copies.append({"start": t, "end": t + 10, "deviceId": 0, "contextId": 1, "streamId": 9, "correlationId": 6001,
                       "globalPid": gpid(4242), "bytes": 8, "copyKind": 8, "srcDeviceId": "1", "dstDeviceId": "2"})
    for k in range(3):
        sets.append({"start": t + k, "end": t + k + 50, "deviceId": k, "contextId": 1, "streamId": 9,
                     "correlationId": 7000 + k, "globalPid": gpid(procs[k % 2]), "value": 0, "bytes": 64,
                     "memKind": 2})
        call(procs[k % 2], 7000 + k, t - 30, t - 20, sid("cudaMemsetAsync_v3020"))
    t += 500
    # Calls: unknown event classes, dangling and NULL names, hostile times and ids.
    for k, (cls, name) in enumerate(((13, api_names[3]), (99, api_names[4]), (0, 77777), (1, None), (0, blob), (0, number_name),
                                     (None, api_names[5]), (0, api_names[6]), (0, api_names[7]))):
        call(procs[k % 2], 9000 + k, t + k, t + k + 5, name, event_class=cls, tid=100 + k)
    call(4242, 9100, t + 20, t + 2, api_names[0])  # reversed
    call(4242, 9101, None, t + 2, api_names[0])
    call(4242, 9102, t + 3, None, api_names[0])
    if typed:
        calls.append({"start": "x", "end": 2.5, "eventClass": "cls", "globalTid": "tid", "correlationId": "c",
                      "nameId": 1, "returnValue": 0})
        calls.append({"start": t + 4, "end": t + 9, "eventClass": 0, "globalTid": 1.5, "correlationId": 2.5,
                      "nameId": api_names[0], "returnValue": 0})
    if limits:
        call(4343, 9200, INT64_MIN, INT64_MIN + 5, api_names[0])
        call(4343, 9201, INT64_MAX - 5, INT64_MAX, api_names[0])
    # NVTX: ranges and marks with inline, registered, dangling and no text; registrations; oddities.
    t += 100
    for k, (etype, text, text_id) in enumerate((
            (59, "forward", None), (59, "Forward", None), (60, None, registered[0]), (60, None, registered[3]),
            (34, "mark", None), (34, None, registered[4]), (59, None, None), (59, None, 55555), (59, BAD_UTF8, None),
            (59, "both", registered[1]), (75, "domain", None), (33, "category", None), (35, "push", None),
            (60, "", None), (59, None, number_name))):
        nvtx.append({"start": t + k, "end": None if etype in (34, 75, 33) else t + 200 - k, "eventType": etype,
                     "text": text, "textId": text_id, "globalTid": gtid(procs[k % 2], procs[k % 2]), "domainId": 0})
    nvtx.append({"start": t + 50, "end": t + 10, "eventType": 59, "text": "reversed", "globalTid": gtid(4242, 4242)})
    nvtx.append({"start": t + 60, "end": t + 70, "eventType": 34, "text": "mark with end", "globalTid": None})
    nvtx.append({"start": None, "end": t + 70, "eventType": 59, "text": "no start", "globalTid": gtid(4242, 4242)})
    if typed:
        nvtx.append({"start": t + 80, "end": "z", "eventType": "abc", "text": 12, "globalTid": "g"})
        nvtx.append({"start": t + 81, "end": t + 90.5, "eventType": 59.0, "text": b"\xff", "globalTid": gtid(4343, 1)})
    env = [{"globalVid": 0, "devStateName": "x", "name": "Hostname", "nameEnum": 619, "value": "hostile-nsys"}]
    processes = [{"globalPid": gpid(p), "pid": p, "name": "python3"} for p in procs]
    return {"StringIds": strings, "CUPTI_ACTIVITY_KIND_KERNEL": kernels, "CUPTI_ACTIVITY_KIND_MEMCPY": copies,
            "CUPTI_ACTIVITY_KIND_MEMSET": sets, "CUPTI_ACTIVITY_KIND_RUNTIME": calls, "NVTX_EVENTS": nvtx,
            "TARGET_INFO_SYSTEM_ENV": env, "PROCESSES": processes}


def build_nsys(path, base, limits=False, typed=True):
    """schema/nsys.sql without NOT NULL, the rows inserted with the declared types removed (raw values
    kept), the declared types put back."""
    import sqlite3
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.executescript(_ddl("nsys.sql", relaxed=True))
    con.commit()
    original = dict(con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'").fetchall())
    con.close()
    _set_schema(path, {n: _typeless(s) for n, s in original.items()})
    con = sqlite3.connect(path)
    for table, rows in nsys_tables(base, limits, typed).items():
        for row in rows:
            _insert(con, table, row)
    con.commit()
    con.close()
    _set_schema(path, original)
