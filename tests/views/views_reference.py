"""Independent Python computations of the analysis views of sql/views/3x-5x, from the raw rows of
rocpd_ops / rocpd_apis, used by views_test.py to check the SQL against a second implementation.
Derived reals are rounded as docs/views.md says the views round them (percents to 2 decimals,
averages, standard deviations and interpolated percentiles to 1), with SQLite's own round() on a
connection without the extension, so the comparison can stay exact."""
import math
import re
import sqlite3
import statistics
from collections import defaultdict
from fractions import Fraction

_PLAIN = sqlite3.connect(":memory:")


def sql_round(x, digits):
    """SQLite's builtin round(x, digits) (half away from zero, on the decimal text); None stays None."""
    return None if x is None else _PLAIN.execute("SELECT round(?, ?)", (x, digits)).fetchone()[0]


def natural_key(name):
    """The natural order of member names (rank2 before rank10), written independently of the C++:
    the name as tokens, a run of digits by its value and any other character by its code, where a
    digit run compares with a character as its first digit would ('0' < run < ':'); names equal
    that way ("rank01", "rank1") by their bytes."""
    tokens = tuple((0x30, int(t)) if t.isdigit() else (ord(t), 0) for t in re.findall(r"[0-9]+|[^0-9]", name))
    return tokens, name.encode()


def percentile(values, p):
    """Linear interpolation between closest ranks, as documented in docs/stats.md, in exact
    arithmetic, then the nearest double (what percentile() returns): interpolated values of
    integers often end in .x5 exactly, where rounding to 0.1 depends on the last bit."""
    v = sorted(values)
    h = (len(v) - 1) * Fraction(p) / 100
    k = math.floor(h)
    if k + 1 >= len(v):
        return v[-1]
    return float(v[k] + (h - k) * (v[k + 1] - v[k]))


def summary(durations):
    return {
        "total_ns": sum(durations),
        "instances": len(durations),
        "avg_ns": sql_round(sum(durations) / len(durations), 1),
        "med_ns": statistics.median(durations),
        "min_ns": min(durations),
        "max_ns": max(durations),
        "stddev_ns": sql_round(statistics.stdev(durations), 1) if len(durations) > 1 else None,
    }


def with_pct(rows):
    total = sum(r["total_ns"] for r in rows.values())
    for r in rows.values():
        r["time_pct"] = sql_round(100.0 * r["total_ns"] / total, 2)
    return rows


def union_length(intervals):
    length, cur_lo, cur_hi = 0, None, None
    for lo, hi in sorted(i for i in intervals if i[1] > i[0]):
        if cur_hi is None or lo > cur_hi:
            if cur_hi is not None:
                length += cur_hi - cur_lo
            cur_lo, cur_hi = lo, hi
        else:
            cur_hi = max(cur_hi, hi)
    if cur_hi is not None:
        length += cur_hi - cur_lo
    return length


class Reference:
    """ops: dicts with db, pid, gpu, kind, name, start, end, duration, correlation_id;
    apis: dicts with db, correlation_id, start, name."""

    def __init__(self, ops, apis):
        self.ops, self.apis = ops, apis

    def kernel_summary(self):
        by_name = defaultdict(list)
        for o in self.ops:
            if o["kind"] == "kernel":
                by_name[o["name"]].append(o["duration"])
        return with_pct({name: summary(d) for name, d in by_name.items()})

    def kernel_summary_by_db(self):
        by_db = defaultdict(lambda: defaultdict(list))
        for o in self.ops:
            if o["kind"] == "kernel":
                by_db[o["db"]][o["name"]].append(o["duration"])
        out = {}
        for db, names in by_db.items():
            for name, row in with_pct({n: summary(d) for n, d in names.items()}).items():
                out[(db, name)] = row
        return out

    def copy_summary(self):
        by_name = defaultdict(list)
        for o in self.ops:
            if o["kind"] == "copy":
                by_name[o["name"]].append(o["duration"])
        return with_pct({name: summary(d) for name, d in by_name.items()})

    def op_summary(self):
        by_key = defaultdict(list)
        for o in self.ops:
            by_key[(o["kind"], o["name"])].append(o["duration"])
        return with_pct({key: summary(d) for key, d in by_key.items()})

    def gpu_summary(self):
        groups = defaultdict(list)
        for o in self.ops:
            groups[(o["db"], o["gpu"])].append(o)
        out = {}
        for key, ops in groups.items():
            kernels = [o for o in ops if o["kind"] == "kernel"]
            copies = [o for o in ops if o["kind"] == "copy"]
            valid = [o for o in ops if o["end"] >= o["start"]]
            span = max(o["end"] for o in valid) - min(o["start"] for o in valid)
            kernel_busy = union_length([(o["start"], o["end"]) for o in kernels])
            out[key] = {
                "ops": len(ops), "kernels": len(kernels), "kernel_ns": sum(o["duration"] for o in kernels),
                "kernel_busy_ns": kernel_busy, "copies": len(copies), "copy_ns": sum(o["duration"] for o in copies),
                "busy_ns": union_length([(o["start"], o["end"]) for o in ops]), "span_ns": span,
                "kernel_busy_pct": sql_round(100.0 * kernel_busy / span, 2) if span > 0 else None,
            }
            busy = out[key]["busy_ns"]
            out[key]["busy_pct"] = sql_round(100.0 * busy / span, 2) if span > 0 else None
        return out

    def launch_latency(self):
        # The launch of a kernel (docs/diagnosis.md): of its member's calls with its correlation id, the
        # earliest start, then the smallest api_id; calls without a start are no launches.
        call = {}
        for a in self.apis:
            if a["correlation_id"] is None or a["start"] is None:
                continue
            k = (a["db"], a["correlation_id"])
            if k not in call or (a["start"], a["api_id"]) < (call[k]["start"], call[k]["api_id"]):
                call[k] = a
        lat, names = defaultdict(list), defaultdict(set)
        for o in self.ops:
            a = call.get((o["db"], o["correlation_id"])) if isinstance(o["correlation_id"], int) else None
            if o["kind"] == "kernel" and a is not None:
                lat[o["name"]].append(o["start"] - a["start"])
                if a["name"] is not None:
                    names[o["name"]].add(a["name"])
        return {
            name: {"launches": len(v), "avg_ns": sql_round(sum(v) / len(v), 1),
                   "med_ns": statistics.median(v), "p95_ns": sql_round(percentile(v, 95), 1), "min_ns": min(v), "max_ns": max(v), "api_names": ",".join(sorted(names[name])) or None}
            for name, v in lat.items()
        }

    def per_rank_kernel_totals(self):
        totals = defaultdict(lambda: defaultdict(lambda: [0, 0]))
        for o in self.ops:
            if o["kind"] == "kernel":
                t = totals[o["name"]][(o["db"], o["pid"])]
                t[0] += o["duration"]
                t[1] += 1
        return totals

    def rank_imbalance(self):
        out = {}
        for name, ranks in self.per_rank_kernel_totals().items():
            # Slowest: largest total; ties broken by db in natural order, then pid (NULL pid first, as
            # SQLite sorts).
            (db, pid), (total, instances) = min(ranks.items(), key=lambda kv: (-kv[1][0], natural_key(kv[0][0]),
                                                                             (kv[0][1] is not None, kv[0][1])))
            med = statistics.median(t for t, _ in ranks.values())
            out[name] = {"ranks": len(ranks), "slowest_db": db, "slowest_pid": pid, "slowest_total_ns": total,
                         "slowest_instances": instances, "median_total_ns": med,
                         "fastest_total_ns": min(t for t, _ in ranks.values()), "lead_ns": total - med,
                         "lead_pct": sql_round(100.0 * (total - med) / med, 2) if med != 0 else None}
        return out

    def rank_summary(self):
        ranks = defaultdict(list)
        for o in self.ops:
            ranks[(o["db"], o["pid"])].append(o)
        out = {}
        for key, ops in ranks.items():
            out[key] = {
                "kernels": sum(1 for o in ops if o["kind"] == "kernel"),
                "kernel_ns": sum(o["duration"] for o in ops if o["kind"] == "kernel"),
                "copies": sum(1 for o in ops if o["kind"] == "copy"),
                "copy_ns": sum(o["duration"] for o in ops if o["kind"] == "copy"),
                "first_ns": min(o["start"] for o in ops), "last_ns": max(o["end"] for o in ops),
            }
        med = statistics.median(r["kernel_ns"] for r in out.values())
        for r in out.values():
            r["median_kernel_ns"] = med
            r["lead_ns"] = r["kernel_ns"] - med
            r["lead_pct"] = sql_round(100.0 * (r["kernel_ns"] - med) / med, 2) if med != 0 else None
        return out

    def kernel_histogram(self):
        counts = defaultdict(lambda: defaultdict(int))
        for o in self.ops:
            if o["kind"] == "kernel" and o["duration"] >= 0:
                lo = 0 if o["duration"] < 1 else 1 << (int(o["duration"]).bit_length() - 1)
                counts[o["name"]][lo] += 1
        out = {}
        for name, buckets in counts.items():
            lo = min(buckets)
            top = max(buckets)
            while True:
                hi = 1 if lo == 0 else lo * 2
                out[(name, lo)] = {"hi_ns": hi, "count": buckets.get(lo, 0)}
                if lo == top:
                    break
                lo = hi
        return out
