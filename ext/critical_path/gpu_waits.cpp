#include "critical_path/gpu_waits.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace rocpd::critical_path {

using namespace analysis;

namespace {

bool stream_is(const Cell& c, int64_t v) { return c.type == SQLITE_INTEGER && c.i == v; }

// Whether op o was launched before call c started (an op without a launch: started before it).
bool launched_before(const Graph& g, uint32_t o, const CpuEvent& c) {
  const GpuOp& op = g.ops[o];
  return op.call >= 0 ? g.cpu[static_cast<size_t>(op.call)].start < c.start : op.start < c.start;
}

class Finder {
 public:
  Finder(const Graph& g, const DeviceOps& d, const std::vector<SyncRecord>& records, const std::function<void()>& tick)
      : g_(g), d_(d), tick_(tick) {
    out_.waits.assign(g.cpu.size(), 0);
    for (const SyncRecord& r : records)
      if (r.kind != SyncKind::StreamWaitEvent && r.kind != SyncKind::Other) record_of_.emplace(r.call, &r);
  }

  GpuWaits run() {
    own_ops();
    synchronize_calls();
    inferred();
    return std::move(out_);
  }

 private:
  void edge(uint32_t op, uint32_t call, EdgeClass cls, bool inferred) {
    out_.edges.push_back({op, call, cls, inferred});
    out_.waits[call] = 1;
  }

  // A call whose own op ends inside it waited for it (synchronous copies).
  void own_ops() {
    for (uint32_t o = 0; o < g_.ops.size(); ++o) {
      const GpuOp& op = g_.ops[o];
      if (op.call < 0) continue;
      const CpuEvent& c = g_.cpu[static_cast<size_t>(op.call)];
      if (op.end >= c.start && op.end <= c.end && op.start >= c.start)
        edge(o, static_cast<uint32_t>(op.call), c.type == CpuType::Sync ? EdgeClass::Sync : EdgeClass::GpuWait, false);
    }
  }

  // A *Synchronize* call waits for the last op launched before it on each lane of its process (of
  // the stream its record names, when there is one).
  void synchronize_calls() {
    std::vector<std::vector<std::pair<int64_t, uint32_t>>> launched(g_.lanes.size());
    for (uint32_t o = 0; o < g_.ops.size(); ++o)
      if (g_.ops[o].call >= 0) launched[g_.ops[o].lane].push_back({g_.cpu[static_cast<size_t>(g_.ops[o].call)].start, o});
    std::vector<std::vector<uint32_t>> lanes_of_proc(g_.proc_pid.size());
    for (uint32_t lane = 0; lane < launched.size(); ++lane) {
      tick_();
      std::sort(launched[lane].begin(), launched[lane].end());
      if (!launched[lane].empty()) lanes_of_proc[g_.lanes[lane].first].push_back(lane);
    }
    for (uint32_t e = 0; e < g_.cpu.size(); ++e) {
      const CpuEvent& c = g_.cpu[e];
      if (c.type != CpuType::Sync) continue;
      tick_();
      std::optional<int64_t> stream, device;
      if (auto r = record_of_.find(e); r != record_of_.end()) {
        const SyncRecord& rec = *r->second;
        if (rec.kind == SyncKind::StreamSync) stream = rec.stream;
        if (rec.kind == SyncKind::EventSync) stream = rec.event_stream;
        if (rec.kind != SyncKind::ContextSync) device = rec.device;
      }
      for (uint32_t lane : lanes_of_proc[g_.threads[c.thread].first]) {
        const auto& [gpu, queue, s] = g_.lanes[lane].second;
        if ((stream && !stream_is(s, *stream)) || (device && !stream_is(gpu, *device))) continue;
        const auto& list = launched[lane];
        auto it = std::lower_bound(list.begin(), list.end(), std::pair<int64_t, uint32_t>{c.start, 0});
        if (it == list.begin()) continue;
        const uint32_t o = std::prev(it)->second;
        const GpuOp& op = g_.ops[o];
        if (op.end >= c.start && op.end <= c.end) edge(o, e, EdgeClass::Sync, false);
      }
    }
  }

  // The quantile of each (thread, name)'s call durations; calls far longer than theirs that
  // returned right after an op of their device ended.
  void inferred() {
    // The calls of each (thread, name), grouped by a counting sort of their group numbers.
    std::unordered_map<uint64_t, uint32_t> group_of;
    std::vector<uint32_t> group(g_.cpu.size(), kNone);
    for (uint32_t e = 0; e < g_.cpu.size(); ++e) {
      const CpuEvent& c = g_.cpu[e];
      if (c.type != CpuType::Launch && c.type != CpuType::Other) continue;
      const uint64_t key = (uint64_t{c.thread} << 32) | c.name;
      group[e] = group_of.try_emplace(key, static_cast<uint32_t>(group_of.size())).first->second;
    }
    std::vector<uint32_t> begin(group_of.size() + 1, 0);
    for (uint32_t gr : group)
      if (gr != kNone) ++begin[gr + 1];
    for (size_t k = 0; k + 1 < begin.size(); ++k) begin[k + 1] += begin[k];
    std::vector<uint32_t> calls(begin.back()), next(begin.begin(), begin.end() - 1);
    for (uint32_t e = 0; e < g_.cpu.size(); ++e)
      if (group[e] != kNone) calls[next[group[e]]++] = e;
    group = {};
    std::vector<std::pair<uint32_t, int64_t>> candidates;  // (call, its quantile)
    std::vector<int64_t> durations;
    for (size_t gr = 0; gr + 1 < begin.size(); ++gr) {
      tick_();
      const size_t lo = begin[gr], hi = begin[gr + 1];
      durations.clear();
      for (size_t k = lo; k < hi; ++k) durations.push_back(g_.cpu[calls[k]].end - g_.cpu[calls[k]].start);
      const auto at = durations.begin() + static_cast<std::ptrdiff_t>(kWaitQuantile * static_cast<double>(hi - lo - 1));
      std::nth_element(durations.begin(), at, durations.end());
      const int64_t typical = *at;
      for (size_t k = lo; k < hi; ++k) {
        const uint32_t e = calls[k];
        const int64_t d = g_.cpu[e].end - g_.cpu[e].start;
        if (d >= kWaitFactor * typical && d - typical >= kWaitMargin && !out_.waits[e]) candidates.push_back({e, typical});
      }
    }
    if (candidates.empty()) return;
    // A launch's device is its op's.
    std::unordered_map<uint32_t, uint32_t> device_of;
    for (const auto& [e, typical] : candidates)
      if (g_.cpu[e].type == CpuType::Launch) device_of.emplace(e, kNone);
    for (const GpuOp& op : g_.ops)
      if (op.call >= 0)
        if (auto it = device_of.find(static_cast<uint32_t>(op.call)); it != device_of.end() && it->second == kNone)
          it->second = d_.lane_device[op.lane];
    for (const auto& candidate : candidates) {
      // A named copy, not a structured binding: C++20 lambdas cannot capture bindings under clang 14.
      const uint32_t e = candidate.first;
      const int64_t typical = candidate.second;
      tick_();
      const CpuEvent& c = g_.cpu[e];
      uint32_t best = kNone;
      auto look = [&](uint32_t device) {
        const uint32_t o = d_.latest_end(device, std::max(c.start, c.end - kReleaseWindow), c.end, [&](uint32_t x) {
          return g_.ops[x].call != static_cast<int32_t>(e) && launched_before(g_, x, c);
        });
        if (o != kNone && (best == kNone || g_.ops[o].end > g_.ops[best].end)) best = o;
      };
      if (auto it = device_of.find(e); it != device_of.end() && it->second != kNone) look(it->second);
      else
        for (uint32_t device : d_.proc_devices[g_.threads[c.thread].first]) look(device);
      if (best == kNone) continue;
      edge(best, e, EdgeClass::GpuWait, true);
      out_.own.emplace(e, typical);
    }
  }

  const Graph& g_;
  const DeviceOps& d_;
  const std::function<void()>& tick_;
  std::unordered_map<uint32_t, const SyncRecord*> record_of_;
  GpuWaits out_;
};

}  // namespace

GpuWaits find_gpu_waits(const Graph& g, const DeviceOps& devices, const std::vector<SyncRecord>& records,
                        const std::function<void()>& tick) {
  return Finder(g, devices, records, tick).run();
}

}  // namespace rocpd::critical_path
