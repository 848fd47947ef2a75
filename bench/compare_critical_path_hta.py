#!/usr/bin/python3
"""Our critical path beside HTA's on one Kineto trace (issue 41, docs/critical_path.md "Compared
with HTA"). Not a benchmark: what each path is made of, printed side by side, never asserted.

Usage: compare_critical_path_hta.py --ext BUILD/librocpd_ext --hta DIR TRACE.json[.gz]
                                    --annotation NAME [--instance K]... [--pattern LIKE]

  ours  rocpd_open(TRACE), then rocpd_critical_path(PATTERN) (default: NAME with LIKE's '%' after
        it, HTA's prefix match) for step K: the time by kind, the largest (kind, name) items, the
        waits (their kind, waited_for and whether inferred), the step's inferred edges
  hta   TraceAnalysis(trace_files={0: TRACE}).critical_path_analysis(0, NAME, K) from the `hta`
        package in DIR (a checkout of facebookresearch/HolisticTraceAnalysis, or its `hta` folder's
        parent; it needs Debian's python3-pandas, python3-networkx and python3-plotly): its path's
        weighted edges by bound type (get_critical_path_breakdown), the largest events, and the
        graph's SYNC_DEPENDENCY edges (GPU->GPU between streams, GPU->CPU into a call) with the
        events at their ends

Both in this process (HTA imported from DIR). Times in ms.
"""
import argparse
import collections
import os
import sqlite3
import sys


def ours(ext, trace, pattern, instance):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    con.execute("SELECT rocpd_open(?)", (trace,))
    rows = con.execute("SELECT kind, name, waited_for, inferred, duration, step_inferred_edges, tid, gpu, stream "
                       "FROM rocpd_critical_path(?) WHERE step = ?", (pattern, instance)).fetchall()
    if not rows:
        return None
    kinds, items, waits = collections.Counter(), collections.Counter(), collections.Counter()
    for kind, name, waited, inferred, d, _, tid, gpu, stream in rows:
        kinds[kind] += d
        items[(kind, name)] += d
        if waited is not None:
            waits[(kind, name, waited, inferred)] += d
    return {"step_ns": sum(kinds.values()), "kinds": kinds, "items": items, "waits": waits, "inferred": rows[0][5]}


def hta(hta_dir, trace, annotation, instance):
    sys.path.insert(0, hta_dir)
    import logging
    logging.disable(logging.WARNING)
    from hta.analyzers.critical_path_analysis import CPEdgeType
    from hta.trace_analysis import TraceAnalysis
    # The last ProfilerStep too (HTA drops it by default as possibly incomplete).
    t = TraceAnalysis(trace_files={0: trace}, trace_dir=os.path.dirname(trace) or ".", include_last_profiler_step=True)
    graph, ok = t.critical_path_analysis(rank=0, annotation=annotation, instance_id=instance)
    out = {"ok": ok}
    df = graph.get_critical_path_breakdown()
    if df is None:
        return out
    out["path_ns"] = int(df.duration.sum()) * 1000
    out["bound"] = {k: int(v) * 1000 for k, v in df.groupby("bound_by").duration.sum().items()}
    out["types"] = {k: int(v) * 1000 for k, v in df.groupby("type").duration.sum().items()}
    weighted = df[df.duration > 0]
    out["items"] = [(r.s_name, r.bound_by, int(r.duration) * 1000)
                    for r in weighted.groupby(["s_name", "bound_by"]).duration.sum().reset_index()
                    .sort_values("duration", ascending=False).head(8).itertuples()]
    trace_df = graph.trace_df
    names = dict(zip(trace_df["index"], trace_df["s_name"])) if "s_name" in trace_df else {}
    syncs = []
    for u, v, data in graph.edges(data=True):
        e = data["object"]
        if e.type != CPEdgeType.SYNC_DEPENDENCY:
            continue
        a, b = graph.node_list[u], graph.node_list[v]
        syncs.append((names.get(a.ev_idx, a.ev_idx), "end" if not a.is_start else "start",
                      names.get(b.ev_idx, b.ev_idx), "start" if b.is_start else "end"))
    out["syncs"] = syncs
    on_path = {(graph.node_list[u].ev_idx, graph.node_list[v].ev_idx) for u, v in zip(graph.critical_path_nodes,
                                                                                     graph.critical_path_nodes[1:])}
    out["syncs_on_path"] = sum(1 for u, v, data in graph.edges(data=True)
                               if data["object"].type == CPEdgeType.SYNC_DEPENDENCY
                               and (graph.node_list[u].ev_idx, graph.node_list[v].ev_idx) in on_path)
    return out


def ms(ns):
    return f"{ns / 1e6:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True)
    ap.add_argument("--hta", required=True)
    ap.add_argument("--annotation", required=True)
    ap.add_argument("--instance", type=int, action="append")
    ap.add_argument("--pattern")
    ap.add_argument("trace")
    a = ap.parse_args()
    pattern = a.pattern or a.annotation + "%"
    for k in a.instance or [0]:
        print(f"\n== {os.path.basename(a.trace)}: annotation {a.annotation!r} instance {k} (ours: pattern {pattern!r})")
        o = ours(a.ext, a.trace, pattern, k)
        if o is None:
            print("ours: no such step")
        else:
            print(f"ours: step {ms(o['step_ns'])} ms, inferred edges {o['inferred']}; by kind: "
                  + ", ".join(f"{kind} {ms(ns)}" for kind, ns in o["kinds"].most_common()))
            print("  largest: " + "; ".join(f"{kind} {name} {ms(ns)}" for (kind, name), ns in o["items"].most_common(8)))
            for (kind, name, waited, inferred), ns in o["waits"].most_common():
                print(f"  {kind} {name} waited for {waited}{' (inferred)' if inferred else ''}: {ms(ns)}")
        h = hta(a.hta, a.trace, a.annotation, k)
        if "path_ns" not in h:
            print(f"hta: no path (success {h['ok']})")
            continue
        print(f"hta: success {h['ok']}, weighted path {ms(h['path_ns'])} ms; by bound: "
              + ", ".join(f"{b or '(dependency/sync)'} {ms(ns)}" for b, ns in sorted(h["bound"].items(), key=lambda x: -x[1])))
        print("  by edge type: " + ", ".join(f"{t} {ms(ns)}" for t, ns in sorted(h["types"].items(), key=lambda x: -x[1])))
        print("  largest: " + "; ".join(f"{b} {n} {ms(ns)}" for n, b, ns in h["items"]))
        print(f"  SYNC_DEPENDENCY edges: {len(h['syncs'])} in the graph, {h['syncs_on_path']} on the path")
        for s in h["syncs"][:12]:
            print(f"    {s[0]} ({s[1]}) -> {s[2]} ({s[3]})")


if __name__ == "__main__":
    main()
