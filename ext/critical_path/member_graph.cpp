#include "critical_path/member_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "common/corr_slots.h"
#include "critical_path/call_names.h"
#include "critical_path/device_ops.h"
#include "critical_path/gpu_waits.h"
#include "critical_path/stream_waits.h"
#include "critical_path/sync_records.h"
#include "analysis/comm_class.h"
#include "analysis/member_read.h"
#include "members/member_columns.h"
#include "analysis/collective_family.h"

namespace rocpd::critical_path {

using namespace analysis;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::CpuOp: return "cpu_op";
    case Kind::Launch: return "launch";
    case Kind::Kernel: return "kernel";
    case Kind::Copy: return "copy";
    case Kind::SyncWait: return "sync_wait";
    case Kind::CollectiveWait: return "collective_wait";
    case Kind::IdleGap: return "idle_gap";
    case Kind::GpuWait: return "gpu_wait";
    case Kind::StreamWait: return "stream_wait";
  }
  return "";
}

int64_t Graph::lag(uint32_t v, uint32_t i, double factor) const {
  const Edge& e = preds[i];
  const int64_t base = bind[v] == static_cast<int32_t>(i) ? time(v) - time(e.u) : e.min_lag();
  if (!e.scaled() || factor == 1.0) return base;
  // A launch edge scales with its call (the part up to the call's return), not the latency after.
  const int64_t part = e.cls() == EdgeClass::Launch ? e.min_lag() : base;
  return saturated_add(base - part, scaled_lag(part, factor));
}

namespace {

using members::MemberColumns;
using canonical::TableKind;

// The graph adds and subtracts times and lags in int64: times within +-2^62 ns (146 years around
// 1970) keep every difference inside it. A time beyond is refused, by name, rather than wrapped.
constexpr int64_t kTimeBound = kTimeLimit;
std::optional<int64_t> graph_time(const StoredValue& v, const char* table, const std::string& db, const char* what) {
  const auto t = analysis::time_value(v, table, db, what);
  if (t && (*t <= -kTimeBound || *t >= kTimeBound))
    throw Error(fmt::format("{}: member {}: {} {} lies beyond the times a critical path handles (-2^62, 2^62) ns",
                            table, db, what, *t));
  return t;
}

// A value as a key: equal keys, equal values (text by its interned index in the graph's cells).
using ValueKey = std::pair<int, int64_t>;
ValueKey key_of(const Cell& c) {
  if (c.type == SQLITE_FLOAT) return {c.type, std::bit_cast<int64_t>(c.d)};
  if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) return {c.type, static_cast<int64_t>(c.text)};
  return {c.type, c.type == SQLITE_INTEGER ? c.i : 0};
}

class Builder {
 public:
  Builder(const canonical::Member& m, const GraphRequest& request, members::InterruptWatch& watch, bool host_thread,
          const char* table)
      : m_(m), request_(request), watch_(watch), host_thread_(host_thread), table_(table) {}

  Graph build(sqlite3* conn, const canonical::Profile* profile) {
    read_ops(conn, profile);
    read_apis(conn);
    if (sync_rows_) records_ = read_sync_records(m_, conn, sync_calls_, tick_);
    sync_calls_ = {};
    classify_calls();
    merge_backward_threads();
    find_steps();
    make_nodes();
    sort_nodes();
    {
      const DeviceOps devices = device_ops(g_, tick_);
      add_gpu_waits(devices);
      add_gpu_edges();
      add_stream_waits(devices);
    }
    add_chain_edges();
    finish_edges();
    order_nodes();
    bind_nodes();
    return std::move(g_);
  }

 private:
  // On the host thread the host connection is looked at itself (nobody else polls it meanwhile).
  void check() {
    if (host_thread_ ? watch_.poll() : watch_.stopped()) members::InterruptWatch::raise();
  }
  void tick() {
    if ((++read_ & 0xffff) == 0) check();
  }

  uint32_t process(const Cell& pid) {
    auto [it, added] = procs_.try_emplace(key_of(pid), static_cast<uint32_t>(g_.proc_pid.size()));
    if (added) g_.proc_pid.push_back(pid);
    return it->second;
  }
  // Whether name id n is LIKE the what-if's pattern (computed once per name).
  bool scaled_name(uint32_t n) {
    if (!request_.scale_pattern || n == kNone) return false;
    if (n >= scaled_.size()) scaled_.resize(g_.names.size(), 2);
    if (scaled_[n] == 2) scaled_[n] = sqlite3_strlike(request_.scale_pattern->c_str(), g_.names[n].c_str(), 0) == 0;
    return scaled_[n] == 1;
  }

  void read_ops(sqlite3* conn, const canonical::Profile* profile) {
    using namespace canonical;
    using namespace members;
    enum { kPid, kGpu, kQueue, kStream, kKindCol, kName, kStart, kEnd, kCorr };
    std::map<std::string, uint32_t> family_index;
    std::map<std::tuple<uint32_t, ValueKey, ValueKey, ValueKey>, uint32_t> lanes;
    uint32_t last_lane = kNone;
    std::array<ValueKey, 4> last_lane_key{};
    analysis::TokenNames op_names;
    std::vector<int32_t> family_of_name;  // per name id: -2 unknown, -1 no collective, else its family
    // A collective's family (analysis/collective_family.h), member-local; -1 for other kernels.
    auto family_of = [&](const StoredValue& name) -> int32_t {
      if (analysis::kernel_class(name) != analysis::CommClass::Comm) return -1;
      const std::string_view text(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length));
      auto [it, added] = family_index.try_emplace(analysis::collective_family(text), static_cast<uint32_t>(g_.families.size()));
      if (added) g_.families.push_back(it->first);
      return static_cast<int32_t>(it->second);
    };
    MemberColumns rows(m_, conn, TableKind::Ops,
                       {kOpsPid, kOpsGpu, kOpsQueue, kOpsStream, kOpsKind, kOpsName, kOpsStart, kOpsEnd,
                        kOpsCorrelationId},
                       profile);
    while (rows.next()) {
      tick();
      const auto start = graph_time(rows[kStart], table_, m_.alias, "start");
      const auto end = graph_time(rows[kEnd], table_, m_.alias, "end");
      if (!start || !end) continue;  // an op that cannot be placed
      GpuOp op;
      op.start = *start;
      op.end = *end;
      const int64_t rowid = rows.rowid();
      const Cell pid = g_.cells.keep(rows[kPid]);
      const Cell gpu = g_.cells.keep(rows[kGpu]), queue = g_.cells.keep(rows[kQueue]),
                 stream = g_.cells.keep(rows[kStream]);
      const std::array<ValueKey, 4> lkey{key_of(pid), key_of(gpu), key_of(queue), key_of(stream)};
      if (last_lane == kNone || lkey != last_lane_key) {
        const uint32_t proc = process(pid);
        auto [lane, added] = lanes.try_emplace({proc, lkey[1], lkey[2], lkey[3]}, static_cast<uint32_t>(g_.lanes.size()));
        if (added) g_.lanes.push_back({proc, {gpu, queue, stream}});
        last_lane = lane->second;
        last_lane_key = lkey;
      }
      op.lane = last_lane;
      const StoredValue name = rows[kName];
      op.name = op_names.id(rows, name, g_.names);
      const StoredValue kind = rows[kKindCol];
      const std::string_view k = kind.type == SQLITE_TEXT
                                     ? std::string_view(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length))
                                     : std::string_view();
      if (k == "copy" || k == "fill") {
        op.kind = Kind::Copy;
      } else if (k == "kernel") {
        int32_t family = -1;
        if (op.name != kNone) {
          if (op.name >= family_of_name.size()) family_of_name.resize(g_.names.size(), -2);
          if (family_of_name[op.name] == -2) family_of_name[op.name] = family_of(name);
          family = family_of_name[op.name];
        } else {
          family = family_of(name);
        }
        if (family >= 0) {
          // Every collective is matched across members (analysis/collective_match.h) as rocpd_collectives
          // matches them, those that cannot be placed in the graph (end before start) too.
          op.kind = Kind::CollectiveWait;
          MemberCollective c;
          c.rowid = rowid;
          c.start = op.start;
          c.end = op.end;
          c.pid = pid;
          c.gpu = gpu;
          c.family = static_cast<uint32_t>(family);
          if (op.end >= op.start) {
            c.op = static_cast<int32_t>(g_.ops.size());
            op.collective = static_cast<int32_t>(g_.collectives.size());
          }
          g_.collectives.push_back(c);
        }
      }
      if (op.end < op.start) continue;
      op.scaled = scaled_name(op.name);
      const StoredValue corr = rows[kCorr];
      op_corr_.push_back(corr.type == SQLITE_INTEGER ? std::optional<int64_t>(corr.i) : std::nullopt);
      g_.ops.push_back(op);
    }
  }

  void read_apis(sqlite3* conn) {
    using namespace canonical;
    using namespace members;
    enum { kPid, kTid, kDomain, kName, kStart, kEnd, kCorr, kApiId };
    std::vector<int64_t> corrs;
    for (const auto& c : op_corr_)
      if (c) corrs.push_back(*c);
    CorrSlots wanted;
    wanted.assign(corrs);
    corrs = {};
    struct Best {
      int32_t call = -1;
      int64_t start = 0, api_id = 0;
    };
    std::vector<Best> best(wanted.size());
    std::map<std::pair<ValueKey, ValueKey>, uint32_t> threads;
    analysis::TokenNames api_names;  // names read by key: hashed once per key
    uint32_t last_thread = kNone;
    std::pair<ValueKey, ValueKey> last_thread_key;
    MemberColumns rows(m_, conn, TableKind::Apis,
                       {kApisPid, kApisTid, kApisDomain, kApisName, kApisStart, kApisEnd, kApisCorrelationId, kApisApiId},
                       nullptr, std::nullopt, {}, nullptr, true);
    while (rows.next()) {
      tick();
      const auto start = graph_time(rows[kStart], table_, m_.alias, "start");
      if (!start) continue;  // no place in time
      const auto end_value = graph_time(rows[kEnd], table_, m_.alias, "end");
      const int64_t end = end_value ? std::max(*end_value, *start) : *start;
      const StoredValue domain = rows[kDomain];
      const std::string_view d = domain.type == SQLITE_TEXT
                                     ? std::string_view(static_cast<const char*>(domain.bytes), static_cast<size_t>(domain.length))
                                     : std::string_view();
      const bool range = d == "marker";
      if (range && end <= *start) continue;  // marks enclose nothing
      // GPU-side spans of Kineto traces, host waits of nsys: no CPU thread's time of its own
      // (a cuda_sync row's facts are read after, sync_records.h).
      if (d == "cuda_sync") sync_rows_ = true;
      if (d == "gpu_annotation" || d == "cuda_sync") continue;
      CpuEvent e;
      e.start = *start;
      e.end = end;
      const Cell pid = g_.cells.keep(rows[kPid]), tid = g_.cells.keep(rows[kTid]);
      const std::pair<ValueKey, ValueKey> tkey{key_of(pid), key_of(tid)};
      if (last_thread == kNone || tkey != last_thread_key) {  // calls come in runs of one thread
        const uint32_t proc = process(pid);
        auto [th, added] = threads.try_emplace(tkey, static_cast<uint32_t>(g_.threads.size()));
        if (added) g_.threads.push_back({proc, tid});
        last_thread = th->second;
        last_thread_key = tkey;
      }
      e.thread = last_thread;
      e.name = api_names.id(rows, rows[kName], g_.names);
      e.type = range ? CpuType::Range : CpuType::Other;
      e.scaled = scaled_name(e.name);
      const auto idx = static_cast<int32_t>(g_.cpu.size());
      if (!range) {
        const StoredValue corr = rows[kCorr];
        if (corr.type == SQLITE_INTEGER && e.name != kNone) {
          if (e.name >= sync_name_.size()) sync_name_.resize(g_.names.size(), 2);
          if (sync_name_[e.name] == 2) {
            const std::string& n = g_.names[e.name];
            sync_name_[e.name] = synchronize_call(n) || event_record_call(n) || stream_wait_call(n);
          }
          if (sync_name_[e.name]) sync_calls_.emplace(corr.i, static_cast<uint32_t>(idx));
        }
        if (corr.type == SQLITE_INTEGER) {
          if (const int64_t slot = wanted.find(corr.i); slot >= 0) {
            Best& b = best[static_cast<size_t>(slot)];
            const int64_t api_id = analysis::launch_order(rows[kApiId]);
            if (analysis::better_launch(b.call >= 0, b.start, b.api_id, *start, api_id)) b = {idx, *start, api_id};
          }
        }
      }
      g_.cpu.push_back(e);
    }
    for (size_t o = 0; o < g_.ops.size(); ++o)
      if (op_corr_[o]) {
        const int64_t slot = wanted.find(*op_corr_[o]);
        if (slot >= 0) g_.ops[o].call = best[static_cast<size_t>(slot)].call;
      }
    op_corr_ = {};
  }

  void classify_calls() {
    for (const GpuOp& op : g_.ops)
      if (op.call >= 0) g_.cpu[static_cast<size_t>(op.call)].type = CpuType::Launch;
    for (CpuEvent& e : g_.cpu)
      if (e.type == CpuType::Other && e.name != kNone && synchronize_call(g_.names[e.name]))
        e.type = CpuType::Sync;
  }

  // HTA's rule (hta/analyzers/critical_path_analysis.py): PyTorch runs backward on an autograd
  // thread while the thread that ran forward waits for it, so when a process has exactly one thread
  // with a range named like 'autograd' and exactly one with a range named like 'forward', the first
  // joins the second's chain.
  void merge_backward_threads() {
    chain_of_thread_.resize(g_.threads.size());
    std::iota(chain_of_thread_.begin(), chain_of_thread_.end(), 0u);
    std::vector<std::vector<uint32_t>> fwd(g_.proc_pid.size()), bwd(g_.proc_pid.size());
    std::vector<uint8_t> seen(g_.threads.size() * 2, 0);
    for (const CpuEvent& e : g_.cpu) {
      if (e.type != CpuType::Range || e.name == kNone) continue;
      const std::string& n = g_.names[e.name];
      const uint32_t p = g_.threads[e.thread].first;
      if (!seen[2 * e.thread] && n.find("forward") != std::string::npos) {
        seen[2 * e.thread] = 1;
        fwd[p].push_back(e.thread);
      }
      if (!seen[2 * e.thread + 1] && n.find("autograd") != std::string::npos) {
        seen[2 * e.thread + 1] = 1;
        bwd[p].push_back(e.thread);
      }
    }
    for (size_t p = 0; p < g_.proc_pid.size(); ++p)
      if (fwd[p].size() == 1 && bwd[p].size() == 1 && fwd[p][0] != bwd[p][0]) chain_of_thread_[bwd[p][0]] = fwd[p][0];
  }

  void find_steps() {
    std::vector<std::vector<uint32_t>> per_proc(g_.proc_pid.size());
    std::vector<int8_t> is_step(g_.names.size(), -1);
    for (uint32_t e = 0; e < g_.cpu.size(); ++e) {
      const CpuEvent& c = g_.cpu[e];
      if (c.type != CpuType::Range || c.name == kNone) continue;
      if (is_step[c.name] < 0)
        is_step[c.name] = sqlite3_strlike(request_.step_pattern.c_str(), g_.names[c.name].c_str(), 0) == 0;
      if (is_step[c.name]) per_proc[g_.threads[c.thread].first].push_back(e);
    }
    for (uint32_t p = 0; p < per_proc.size(); ++p) {
      auto& list = per_proc[p];
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
        return g_.cpu[a].start != g_.cpu[b].start ? g_.cpu[a].start < g_.cpu[b].start : a < b;
      });
      for (size_t k = 0; k < list.size(); ++k) {
        const CpuEvent& c = g_.cpu[list[k]];
        MemberStep s;
        s.proc = p;
        s.index = static_cast<int64_t>(k);
        s.start = c.start;
        s.end = c.end;
        s.name = c.name;
        s.place = c.thread;
        s.end_node = 2 * list[k] + 1;
        g_.steps.push_back(s);
      }
    }
  }

  void make_nodes() {
    g_.arrival.assign(g_.collectives.size(), -1);
    g_.chain_owner.assign(2 * g_.cpu.size(), kNone);
    // A chain edge per CPU point; a duration, launch, stream and stream wait edge per op at most;
    // the GPU waits (add_gpu_waits() adds to this). Pages never touched take no memory.
    g_.preds.reserve(2 * g_.cpu.size() + 4 * g_.ops.size() + 1024);
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      const int32_t c = g_.ops[o].collective;
      if (c >= 0) g_.arrival[static_cast<size_t>(c)] = static_cast<int32_t>(g_.op_start(o));  // its end is cut
    }
  }

  // `owner`: for a chain edge, the innermost CPU event open (the others' follow from their nodes).
  void add(uint32_t u, uint32_t v, int64_t min_lag, EdgeClass cls, uint32_t owner, bool scaled, bool inferred = false) {
    // Every edge runs forward in time and takes no more than the measured time.
    if (g_.time(u) > g_.time(v) || min_lag < 0 || g_.time(v) - g_.time(u) < min_lag) return;
    if (cls == EdgeClass::Chain) g_.chain_owner[v] = owner;
    g_.preds.emplace_back(u, v, min_lag, cls, scaled, inferred);
  }

  // Calls that waited for GPU work: the op's end -> the call's end (gpu_waits.h).
  void add_gpu_waits(const DeviceOps& devices) {
    GpuWaits w = find_gpu_waits(g_, devices, records_, tick_);
    g_.preds.reserve(g_.preds.capacity() + w.edges.size());
    for (const CallWait& e : w.edges)
      add(g_.op_start(e.op) + 1, 2 * e.call + 1, 0, e.cls, e.call, false, e.inferred);
    waits_ = std::move(w.waits);
    own_ = std::move(w.own);
  }

  // The least time of a call before its end may come: its measured time, or for a call that waited
  // for the GPU its own time (gpu_waits.h: the quantile of its name's calls when inferred, none
  // when recorded).
  int64_t own_time(uint32_t e, int64_t measured) const {
    if (!waits_[e]) return measured;
    const auto it = own_.find(e);
    return it == own_.end() ? 0 : std::min(it->second, measured);
  }

  void add_gpu_edges() {
    std::vector<std::vector<uint32_t>> per_lane(g_.lanes.size());
    for (uint32_t o = 0; o < g_.ops.size(); ++o) {
      const GpuOp& op = g_.ops[o];
      per_lane[op.lane].push_back(o);
      const uint32_t s = g_.op_start(o);
      add(s, s + 1, op.end - op.start, EdgeClass::Duration, o, op.scaled);
      if (op.call >= 0) {
        const auto call = static_cast<uint32_t>(op.call);
        const CpuEvent& c = g_.cpu[call];
        // Up to the call's return (or the op's start, if earlier); a call that waited for the GPU
        // takes its own time only.
        add(2 * call, s, own_time(call, std::min(op.start, c.end) - c.start), EdgeClass::Launch, call, c.scaled);
      }
    }
    ahead_end_.assign(g_.ops.size(), INT64_MIN);
    for (uint32_t lane = 0; lane < per_lane.size(); ++lane) {
      tick();
      auto& list = per_lane[lane];
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
        const GpuOp &x = g_.ops[a], &y = g_.ops[b];
        return x.start != y.start ? x.start < y.start : x.end != y.end ? x.end < y.end : a < b;
      });
      int64_t ahead_end = INT64_MIN;
      int64_t ahead = -1;
      for (uint32_t o : list) {
        const GpuOp& op = g_.ops[o];
        if (ahead >= 0 && ahead_end <= op.start) {
          add(g_.op_start(static_cast<size_t>(ahead)) + 1, g_.op_start(o), 0, EdgeClass::Stream, lane, false);
          ahead_end_[o] = ahead_end;
        }
        if (op.end > ahead_end || ahead < 0) {
          ahead_end = op.end;
          ahead = o;
        }
      }
    }
  }

  // Ops that waited for an op of another stream: its end -> their start (stream_waits.h).
  void add_stream_waits(const DeviceOps& devices) {
    for (const OpWait& w : find_stream_waits(g_, devices, records_, ahead_end_, tick_))
      add(g_.op_start(w.from) + 1, g_.op_start(w.to), 0, EdgeClass::StreamWait, w.to, false, w.inferred);
    ahead_end_ = {};
    records_ = {};
  }

  void add_chain_edges() {
    std::vector<std::vector<uint32_t>> per_chain(g_.threads.size());
    for (uint32_t e = 0; e < g_.cpu.size(); ++e) per_chain[chain_of_thread_[g_.cpu[e].thread]].push_back(e);
    std::vector<uint8_t> ended(g_.cpu.size(), 0);
    for (auto& events : per_chain) {
      if (events.empty()) continue;
      tick();
      // Nesting order: start ascending, end descending (the longer range is outside).
      std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
        const CpuEvent &x = g_.cpu[a], &y = g_.cpu[b];
        return x.start != y.start ? x.start < y.start : x.end != y.end ? x.end > y.end : a < b;
      });
      // Points in time order; at one instant, ends of ranges that took time (inner first) before
      // starts and instants (outer first). 16 bytes a point: the order within an instant is a
      // number from which the point is found again: (class << 40) + rank order + 2^39, where the
      // class is 0 for an end that took time (order -rank), 1 for a start (2 rank) and the end of
      // an instant (2 rank + 1).
      struct Point {
        int64_t t, key;
      };
      constexpr int64_t kOffset = int64_t{1} << 39;
      BigVector<Point> points;
      points.reserve(2 * events.size());
      for (size_t r = 0; r < events.size(); ++r) {
        const CpuEvent& c = g_.cpu[events[r]];
        const auto rank = static_cast<int64_t>(r);
        points.push_back({c.start, (int64_t{1} << 40) + 2 * rank + kOffset});
        if (c.end > c.start) points.push_back({c.end, -rank + kOffset});
        else points.push_back({c.end, (int64_t{1} << 40) + 2 * rank + 1 + kOffset});
      }
      uint64_t compared = 0;
      std::sort(points.begin(), points.end(), [&](const Point& a, const Point& b) {
        if ((++compared & 0xfffff) == 0) check();
        return a.t != b.t ? a.t < b.t : a.key < b.key;
      });
      auto node_of = [&](const Point& p) -> uint32_t {
        const int64_t ord = (p.key & ((int64_t{1} << 40) - 1)) - kOffset;
        if (p.key >> 40 == 0) return 2 * events[static_cast<size_t>(-ord)] + 1;
        return ord % 2 == 0 ? 2 * events[static_cast<size_t>(ord / 2)] : 2 * events[static_cast<size_t>(ord / 2)] + 1;
      };
      std::vector<uint32_t> open;
      int open_scaled = 0;
      for (size_t i = 0; i < points.size(); ++i) {
        if ((i & 0xffff) == 0) check();
        const uint32_t node = node_of(points[i]), e = node / 2;
        if (node % 2 == 0) {
          open.push_back(e);
          if (g_.cpu[e].scaled) ++open_scaled;
        } else {
          ended[e] = 1;
          if (g_.cpu[e].scaled) --open_scaled;
        }
        if (i + 1 == points.size()) break;
        while (!open.empty() && ended[open.back()]) open.pop_back();
        const uint32_t next = node_of(points[i + 1]);
        // The end of a call that waited for GPU work may come as soon as that work is done and the
        // call's own time has passed.
        const int64_t gap = points[i + 1].t - points[i].t;
        const bool waits = next % 2 == 1 && waits_[next / 2];
        add(node, next, waits ? own_time(next / 2, gap) : gap, EdgeClass::Chain, open.empty() ? kNone : open.back(),
            open_scaled > 0);
      }
    }
  }

  // The edges by node, sorted in place (no second array of edges). Within a node the order is
  // fixed by the edges' contents, so that ties in bind_nodes() fall the same way on every run.
  void finish_edges() {
    uint64_t compared = 0;
    std::sort(g_.preds.begin(), g_.preds.end(), [&](const Edge& a, const Edge& b) {
      if ((++compared & 0xfffff) == 0) check();
      const uint64_t ka = (uint64_t{a.v} << 32) | a.u, kb = (uint64_t{b.v} << 32) | b.u;
      if (ka != kb) return ka < kb;
      return a.bits() < b.bits();
    });
    const size_t n = g_.nodes();
    g_.pred_begin.assign(n + 1, 0);
    for (const Edge& e : g_.preds) ++g_.pred_begin[e.v + 1];
    for (size_t v = 0; v < n; ++v) g_.pred_begin[v + 1] += g_.pred_begin[v];
  }

  // Nodes by time, then number (before any edge exists: the times and numbers are sorted together,
  // while the graph is still small).
  void sort_nodes() {
    const size_t n = g_.nodes();
    BigVector<std::pair<int64_t, uint32_t>> keyed(n);
    for (uint32_t v = 0; v < n; ++v) {
      if ((v & 0xffff) == 0) check();
      keyed[v] = {g_.time(v), v};
    }
    uint64_t compared = 0;
    std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
      if ((++compared & 0xfffff) == 0) check();
      return a < b;
    });
    g_.order.resize(n);
    for (size_t i = 0; i < n; ++i) g_.order[i] = keyed[i].second;
  }

  void order_nodes() {
    const size_t n = g_.nodes();
    BigVector<uint32_t> pos(n);
    for (size_t i = 0; i < n; ++i) pos[g_.order[i]] = static_cast<uint32_t>(i);
    for (size_t a = 0; a < n;) {
      if ((a & 0xffff) == 0) check();
      size_t b = a + 1;
      while (b < n && g_.time(g_.order[b]) == g_.time(g_.order[a])) ++b;
      if (b - a > 1) fix_instant(a, b, pos);
      a = b;
    }
    for (uint32_t v = 0; v < n; ++v) {
      if ((v & 0xffff) == 0) check();
      for (uint32_t i = g_.pred_begin[v]; i < g_.pred_begin[v + 1]; ++i)
        if (pos[g_.preds[i].u] >= pos[v]) g_.preds[i].drop();
    }
  }

  void fix_instant(size_t a, size_t b, BigVector<uint32_t>& pos) {
    bool backward = false;
    for (size_t i = a; i < b && !backward; ++i) {
      const uint32_t v = g_.order[i];
      for (uint32_t k = g_.pred_begin[v]; k < g_.pred_begin[v + 1]; ++k) {
        const uint32_t u = g_.preds[k].u;
        if (g_.time(u) == g_.time(v) && pos[u] > pos[v]) backward = true;
      }
    }
    if (!backward) return;
    tick();
    const size_t size = b - a;
    std::vector<uint32_t> indeg(size, 0);
    std::vector<std::vector<uint32_t>> succ(size);
    for (size_t i = a; i < b; ++i) {
      const uint32_t v = g_.order[i];
      for (uint32_t k = g_.pred_begin[v]; k < g_.pred_begin[v + 1]; ++k) {
        const uint32_t u = g_.preds[k].u;
        if (u == v || g_.time(u) != g_.time(v)) continue;
        succ[pos[u] - a].push_back(static_cast<uint32_t>(i - a));
        ++indeg[i - a];
      }
    }
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (uint32_t i = 0; i < size; ++i)
      if (indeg[i] == 0) ready.push(i);
    std::vector<uint32_t> out;
    std::vector<uint8_t> placed(size, 0);
    while (out.size() < size) {
      if (ready.empty()) {  // a cycle: take the first node left as it is
        uint32_t i = 0;
        while (placed[i]) ++i;
        indeg[i] = 0;
        ready.push(i);
      }
      const uint32_t i = ready.top();
      ready.pop();
      if (placed[i]) continue;
      placed[i] = 1;
      out.push_back(i);
      for (uint32_t j : succ[i])
        if (!placed[j] && indeg[j] > 0 && --indeg[j] == 0) ready.push(j);
    }
    std::vector<uint32_t> nodes(size);
    for (size_t i = 0; i < size; ++i) nodes[i] = g_.order[a + out[i]];
    for (size_t i = 0; i < size; ++i) {
      g_.order[a + i] = nodes[i];
      pos[nodes[i]] = static_cast<uint32_t>(a + i);
    }
  }

  static int priority(EdgeClass c) {
    switch (c) {
      case EdgeClass::Sync:
      case EdgeClass::GpuWait: return 5;
      case EdgeClass::Stream: return 4;
      case EdgeClass::StreamWait: return 3;
      case EdgeClass::Launch: return 2;
      case EdgeClass::Duration: return 1;
      case EdgeClass::Chain: return 0;
    }
    return 0;
  }

  // Of a node's predecessors the one ready last (t + min_lag) binds it; ties: the later
  // predecessor, then sync and GPU waits, stream, stream waits, launch, duration, chain.
  void bind_nodes() {
    const size_t n = g_.nodes();
    g_.bind.assign(n, -1);
    for (uint32_t v = 0; v < n; ++v) {
      if ((v & 0xffff) == 0) check();
      int32_t best = -1;
      int64_t best_ready = 0, best_t = 0;
      for (uint32_t i = g_.pred_begin[v]; i < g_.pred_begin[v + 1]; ++i) {
        const Edge& e = g_.preds[i];
        if (!e.live()) continue;
        const int64_t ready = g_.time(e.u) + e.min_lag(), tu = g_.time(e.u);
        const bool better = best < 0 || ready > best_ready || (ready == best_ready && tu > best_t) ||
                            (ready == best_ready && tu == best_t &&
                             priority(e.cls()) > priority(g_.preds[static_cast<size_t>(best)].cls()));
        if (better) {
          best = static_cast<int32_t>(i);
          best_ready = ready;
          best_t = tu;
        }
      }
      g_.bind[v] = best;
    }
  }

  const canonical::Member& m_;
  const GraphRequest& request_;
  members::InterruptWatch& watch_;
  bool host_thread_;
  const char* table_;
  uint64_t read_ = 0;
  Graph g_;
  std::map<ValueKey, uint32_t> procs_;
  BigVector<std::optional<int64_t>> op_corr_;
  std::vector<uint8_t> scaled_;
  std::vector<uint32_t> chain_of_thread_;
  std::vector<uint8_t> waits_;                 // per CPU event: it waited for GPU work (gpu_waits.h)
  std::unordered_map<uint32_t, int64_t> own_;  // per call whose wait was inferred: its own time
  bool sync_rows_ = false;                     // the member has cuda_sync rows
  std::vector<uint8_t> sync_name_;             // per name: a synchronize, event record or stream wait call (2: unknown)
  std::unordered_map<int64_t, uint32_t> sync_calls_;  // such calls by correlation id
  std::vector<SyncRecord> records_;
  BigVector<int64_t> ahead_end_;               // per op: the end of the op ahead on its lane
  std::function<void()> tick_ = [this] { check(); };
};

}  // namespace

Graph build_graph(const canonical::Member& m, sqlite3* conn, const GraphRequest& request,
                  members::InterruptWatch& watch, bool host_thread, const canonical::Profile* profile,
                  const char* table) {
  return Builder(m, request, watch, host_thread, table).build(conn, profile);
}

}  // namespace rocpd::critical_path
