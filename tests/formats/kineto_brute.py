"""Brute-force readings of PyTorch profiler (Kineto) Chrome-trace JSON, written from the format's
description (docs/formats.md, ../shared/formats-nvidia.md) independently of the extension's
importer: Python's json with every number kept as a Decimal, times in exact integer ns.

Also an HTA-style call stack: HolisticTraceAnalysis builds, per (pid, tid), a tree of the thread's
CPU events by sweeping their start and end points in the order of its comparator
(hta/common/trace_call_stack.py: _less_than), pushing on a start and popping on an end; the
operator stack of a kernel is the path from its launching call to the root, keeping the
operators. This file sweeps the same way (the comparator restated below), independently of the
extension's containment rule (docs/diagnosis.md)."""
import functools
import gzip
import json
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

OP_KINDS = {"kernel": "kernel", "gpu_memcpy": "copy", "gpu_memset": "fill"}
GPU_SIDE = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_profiler_range", "cuda_sync"}
RANGE_CATS = ("cpu_op", "user_annotation")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal)


def ns(value):
    """µs as written -> integer ns, halves away from zero past the third decimal."""
    return int((Decimal(value) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Trace:
    def __init__(self, path):
        doc = load(path)
        self.doc = doc if isinstance(doc, dict) else {"traceEvents": doc}
        self.base = int(self.doc.get("baseTimeNanoseconds", 0))
        self.events = []  # (index, event, start, end)
        for i, e in enumerate(self.doc["traceEvents"]):
            start = end = None
            if "ts" in e:
                start = self.base + ns(e["ts"])
                end = start + ns(e["dur"]) if "dur" in e else None
            self.events.append((i, e, start, end))
        self.x = [t for t in self.events if t[1].get("ph") == "X"]
        self.has_kernels = any(e.get("cat") == "kernel" for _, e, _, _ in self.x)

    def rank(self):
        return (self.doc.get("distributedInfo") or {}).get("rank")

    # GPU ops: kernel / gpu_memcpy / gpu_memset X events, and the profiler ranges of a trace
    # without kernel events (CUPTI's range profiler records kernels only as ranges).
    def ops(self):
        out = []
        matched = self.range_launches()
        for i, e, start, end in self.x:
            cat = e.get("cat")
            args = e.get("args", {})
            if cat in OP_KINDS:
                gpu = args["device"] if "device" in args else (e["pid"] if is_int(e.get("pid")) else None)
                out.append(dict(index=i, kind=OP_KINDS[cat], name=e.get("name"), gpu=gpu,
                                stream=args.get("stream", e.get("tid")), start=start, end=end,
                                correlation=args.get("correlation"), args=args))
            elif cat == "cuda_profiler_range" and not self.has_kernels:
                launch = matched.get(i)
                out.append(dict(index=i, kind="kernel", name=e.get("name"), gpu=e.get("pid"), stream=e.get("tid"),
                                start=start, end=end, correlation=launch["correlation"] if launch else None,
                                args=args))
        return out

    def calls(self):
        out = []
        for i, e, start, end in self.x:
            cat = e.get("cat")
            if cat in OP_KINDS or cat == "cuda_profiler_range" or not is_int(e.get("pid")) or cat is None:
                continue
            name = e.get("name")
            if cat == "cuda_runtime":
                domain = "hip" if name.startswith("hip") else "cuda"
            elif cat == "cuda_driver":
                domain = "hip" if name.startswith("hip") else "cuda_driver"
            elif cat in RANGE_CATS:
                domain = "marker"
            elif cat == "gpu_user_annotation":
                domain = "gpu_annotation"
            else:
                domain = cat.lower()
            args = e.get("args", {})
            corr = args.get("correlation") if cat in ("cuda_runtime", "cuda_driver") else None
            out.append(dict(index=i, cat=cat, domain=domain, name=name, pid=e["pid"], tid=e.get("tid"),
                            start=start, end=end, correlation=corr, args=args))
        return out

    def launches(self):
        """correlation -> the launching call (runtime or driver)."""
        return {c["correlation"]: c for c in self.calls() if c["correlation"] is not None}

    def profiler_ranges(self):
        return sorted(((start, i, e) for i, e, start, _ in self.x if e.get("cat") == "cuda_profiler_range"),
                      key=lambda t: (t[0], t[1]))

    def range_launches(self):
        """HTA's counter analysis: the i-th profiler range (time order) is the kernel of the i-th
        kernel launch call (time order), when the counts agree; range index -> launch call."""
        ranges = self.profiler_ranges()
        launches = self.kernel_launch_calls()
        if not ranges or len(ranges) != len(launches):
            return {}
        return {i: c for (_, i, _), c in zip(ranges, launches)}

    def kernel_launch_calls(self):
        """HTA's counter analysis: cuda_runtime calls whose name matches ^cudaLaunchKernel, in time order."""
        calls = [c for c in self.calls() if c["cat"] == "cuda_runtime" and c["name"].startswith("cudaLaunchKernel")]
        return sorted(calls, key=lambda c: (c["start"], c["index"]))


def duration(op):
    if op["start"] is None or op["end"] is None:
        return None
    return max(op["end"] - op["start"], 0)


def sums_by(rows, key):
    out = defaultdict(lambda: [0, 0])
    for r in rows:
        k = key(r)
        out[k][0] += 1
        out[k][1] += duration(r) or 0
    return {k: tuple(v) for k, v in out.items()}


# --- HTA-style call stacks -------------------------------------------------------------------
OPEN, CLOSE = -1, 1


def _less(x, y):
    """HTA's order of sweep points (index, dur, kind, time): by time; at one time, the two ends of
    one event open first; zero-length events sit inside longer ones; closes come before opens;
    of two opens the longer first (then the smaller index), of two closes the shorter first (then
    the larger index)."""
    xi, xd, xk, xt = x
    yi, yd, yk, yt = y
    if xt != yt:
        return xt < yt
    if xi == yi:
        return xk == OPEN
    if xd == 0 or yd == 0:
        if xd == 0 and yd > 0:
            return yk == CLOSE
        if xd > 0 and yd == 0:
            return xk == OPEN
        if xk == OPEN and yk == OPEN:
            return xi < yi
        if xk == CLOSE and yk == CLOSE:
            return xi > yi
        return xk == OPEN
    if xk == CLOSE and yk == OPEN:
        return True
    if xk == OPEN and yk == CLOSE:
        return False
    if xk == OPEN and yk == OPEN and xd != yd:
        return xd > yd
    if xk == CLOSE and yk == CLOSE and xd != yd:
        return xd < yd
    return xi < yi if xk == OPEN else xi > yi


def hta_parents(trace):
    """index -> parent index (None at a root), for every CPU-side X event, thread by thread."""
    threads = defaultdict(list)
    for i, e, start, end in trace.x:
        if e.get("cat") in GPU_SIDE or not is_int(e.get("pid")):
            continue
        threads[(e["pid"], e.get("tid"))].append((i, start, end))
    parent = {}
    cmp = functools.cmp_to_key(lambda a, b: -1 if _less(a, b) else 1)
    for evs in threads.values():
        points = []
        for i, start, end in evs:
            d = end - start
            points.append((i, d, OPEN, start))
            points.append((i, d, CLOSE, end))
        points.sort(key=cmp)
        stack = []
        for i, _d, kind, _t in points:
            if kind == OPEN:
                parent[i] = stack[-1] if stack else None
                stack.append(i)
            elif stack:
                stack.pop()
    return parent


def hta_stack(trace, parents, call_index, cats=RANGE_CATS):
    """Names of the ancestors of call `call_index` whose category is in `cats`, outermost first."""
    by_index = {i: e for i, e, _, _ in trace.x}
    path = []
    p = parents.get(call_index)
    while p is not None:
        path.append(p)
        p = parents.get(p)
    return [by_index[i]["name"] for i in reversed(path) if by_index[i].get("cat") in cats]
