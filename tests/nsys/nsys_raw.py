"""Brute-force readings of an Nsight Systems export, written independently of the extension: plain
Python sqlite3 over the raw tables (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, StringIds), following
NVIDIA's definitions (GlobalId packing, correlationId within one process, nsys stats' name rules).
The tests compare the extension's tables with these."""
import sqlite3
import statistics

MASK24 = 0xFFFFFF
PROCESS_PART = 0xFFFFFFFFFF000000

# CUpti_ActivityMemcpyKind: the names our copies get (rpd's spelling where rpd has one).
COPY_NAMES = {1: "CopyHostToDevice", 2: "CopyDeviceToHost", 8: "CopyDeviceToDevice", 9: "CopyHostToHost",
              10: "CopyPeerToPeer"}
# CUpti_ActivitySynchronizationType, as Kineto (PyTorch's profiler) names the records.
SYNC_NAMES = {1: "Event Sync", 2: "Stream Wait Event", 3: "Stream Sync", 4: "Context Sync"}
# Which ends of a copy are device memory, by copyKind (arrays live on the device).
SRC_ON_DEVICE = {2, 4, 5, 6, 7, 8, 10, 12, 13}
DST_ON_DEVICE = {1, 3, 5, 6, 7, 8, 10, 11, 13}


def pid_of(gid):
    return (gid >> 24) & MASK24


def tid_of(gid):
    return gid & MASK24


def nsys_api_name(name):
    """nsys stats' rule: CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1, length(name) - 6)."""
    if name is not None and len(name) >= 6 and name[-6:-4] == "_v":
        return name[:-6]
    return name


class Raw:
    def __init__(self, path):
        self.path = path
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.strings = dict(con.execute("SELECT id, value FROM StringIds")) if "StringIds" in self.tables else {}
        s = self.strings
        self.ops = []   # dicts: kind, rowid, name, demangled, gpu, stream, start, end, pid, gpid, corr
        if "CUPTI_ACTIVITY_KIND_KERNEL" in self.tables:
            for r in con.execute("SELECT rowid, start, end, deviceId, streamId, correlationId, globalPid, mangledName, "
                                 "demangledName, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, "
                                 "dynamicSharedMemory, localMemoryPerThread, registersPerThread, graphId "
                                 "FROM CUPTI_ACTIVITY_KIND_KERNEL"):
                mangled = s.get(r[7])
                self.ops.append(dict(kind="kernel", rowid=r[0], start=r[1], end=r[2], gpu=r[3], stream=r[4],
                                     corr=r[5], gpid=r[6], pid=pid_of(r[6]),
                                     name=mangled if mangled else s.get(r[8]), demangled=s.get(r[8]),
                                     grid=(r[9] * r[12], r[10] * r[13], r[11] * r[14]), block=(r[12], r[13], r[14]),
                                     lds=r[15] + r[16], scratch=r[17], vgpr=r[18],
                                     graph=r[19] if r[19] else None))
        if "CUPTI_ACTIVITY_KIND_MEMCPY" in self.tables:
            labels = dict(con.execute("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER")) \
                if "ENUM_CUDA_MEMCPY_OPER" in self.tables else {}
            for r in con.execute("SELECT rowid, start, end, deviceId, streamId, correlationId, globalPid, bytes, "
                                 "copyKind, srcDeviceId, dstDeviceId FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
                k = r[8]
                self.ops.append(dict(kind="copy", rowid=r[0], start=r[1], end=r[2], gpu=r[3], stream=r[4], corr=r[5],
                                     gpid=r[6], pid=pid_of(r[6]), bytes=r[7], copy_kind=k,
                                     name=COPY_NAMES.get(k, "[CUDA memcpy %s]" % labels.get(k, k)),
                                     src=(r[9] if r[9] is not None else r[3]) if k in SRC_ON_DEVICE else None,
                                     dst=(r[10] if r[10] is not None else r[3]) if k in DST_ON_DEVICE else None))
        if "CUPTI_ACTIVITY_KIND_MEMSET" in self.tables:
            for r in con.execute("SELECT rowid, start, end, deviceId, streamId, correlationId, globalPid, bytes "
                                 "FROM CUPTI_ACTIVITY_KIND_MEMSET"):
                self.ops.append(dict(kind="fill", rowid=r[0], start=r[1], end=r[2], gpu=r[3], stream=r[4], corr=r[5],
                                     gpid=r[6], pid=pid_of(r[6]), bytes=r[7], name="FillBuffer"))
        self.calls = []  # runtime rows
        if "CUPTI_ACTIVITY_KIND_RUNTIME" in self.tables:
            for r in con.execute("SELECT rowid, start, end, eventClass, globalTid, correlationId, nameId "
                                 "FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
                self.calls.append(dict(rowid=r[0], start=r[1], end=r[2], event_class=r[3], gtid=r[4],
                                       pid=pid_of(r[4]), tid=tid_of(r[4]), corr=r[5], recorded=s.get(r[6]),
                                       name=nsys_api_name(s.get(r[6])),
                                       domain={0: "cuda", 1: "cuda_driver"}.get(r[3])))
        # CUPTI's synchronization records: host waits named as PyTorch's profiler names them.
        self.syncs = []
        if "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" in self.tables:
            for r in con.execute("SELECT rowid, start, end, globalPid, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"):
                self.syncs.append(dict(rowid=r[0], start=r[1], end=r[2], pid=pid_of(r[3]), domain="cuda_sync",
                                       name=SYNC_NAMES.get(r[4], "Unknown Sync")))
        self.ranges = []  # NVTX marks and ranges
        self.nvtx_other = 0
        if "NVTX_EVENTS" in self.tables:
            for r in con.execute("SELECT rowid, start, end, eventType, text, textId, globalTid FROM NVTX_EVENTS"):
                if r[3] not in (34, 59, 60):
                    self.nvtx_other += 1
                    continue
                end = r[1] if r[3] == 34 else r[2]
                self.ranges.append(dict(rowid=r[0], start=r[1], end=end, event_type=r[3],
                                        name=r[4] if r[4] is not None else s.get(r[5]), registered=r[4] is None,
                                        pid=pid_of(r[6]), tid=tid_of(r[6])))
        self.hostname = None
        if "TARGET_INFO_SYSTEM_ENV" in self.tables:
            row = con.execute("SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' "
                              "ORDER BY rowid LIMIT 1").fetchone()
            self.hostname = row[0] if row else None
        con.close()

    # The launch of each op: the runtime call of the same process (globalPid = globalTid's process
    # part) with the op's correlationId, as nsys's reports join them.
    def launches(self):
        calls = {}
        for c in self.calls:
            calls.setdefault((c["gtid"] & PROCESS_PART, c["corr"]), []).append(c)
        out = {}
        for o in self.ops:
            found = calls.get((o["gpid"], o["corr"]))
            if found:
                out[(o["kind"], o["rowid"])] = min(found, key=lambda c: (c["start"], c["rowid"]))
        return out

    def pairs_on_correlation_only(self):
        by_corr = {}
        for c in self.calls:
            by_corr[c["corr"]] = by_corr.get(c["corr"], 0) + 1
        return sum(by_corr.get(o["corr"], 0) for o in self.ops if o["kind"] == "kernel")

    def kernel_pairs(self, same_process=True):
        calls = {}
        for c in self.calls:
            calls.setdefault(c["corr"], []).append(c)
        n = 0
        for o in self.ops:
            if o["kind"] != "kernel":
                continue
            for c in calls.get(o["corr"], []):
                if not same_process or o["gpid"] == (c["gtid"] & PROCESS_PART):
                    n += 1
        return n


def union(intervals):
    """Merged [start, end) intervals (empty ones add nothing, touching ones merge)."""
    out = []
    for s, e in sorted((s, e) for s, e in intervals if e > s):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def union_length(intervals):
    return sum(e - s for s, e in union(intervals))


def nsys_median(values):
    """The median of nsys stats (SQLite's median: the mean of the two middle values of an even count)."""
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def kern_sum(raw, by="demangled"):
    """nsys stats --report cuda_gpu_kern_sum, computed from its definition (summary per kernel name:
    total, instances, avg, median, min, max, sample stddev; Time % of the summed total, 1 decimal).
    by='demangled' is the default report, 'name' the ':mangled' variant (mangled name where
    recorded, else the demangled one)."""
    groups = {}
    for o in raw.ops:
        if o["kind"] == "kernel":
            groups.setdefault(o[by], []).append(o["end"] - o["start"])
    grand = sum(sum(v) for v in groups.values())
    rows = {}
    for name, d in groups.items():
        total = sum(d)
        rows[name] = dict(time_pct=total * 100.0 / grand, time_pct_1=round(total * 100.0 / grand, 1), total=total,
                          instances=len(d), avg=total / len(d), med=nsys_median(d), min=min(d), max=max(d),
                          stddev=statistics.stdev(d) if len(d) > 1 else 0.0)
    return rows
