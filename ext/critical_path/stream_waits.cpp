#include "critical_path/stream_waits.h"

#include <algorithm>
#include <unordered_map>

#include "critical_path/call_names.h"

namespace rocpd::critical_path {

using namespace analysis;

namespace {

bool stream_is(const Cell& c, int64_t v) { return c.type == SQLITE_INTEGER && c.i == v; }

constexpr size_t kWaitingLaunches = 64;

class Finder {
 public:
  Finder(const Graph& g, const DeviceOps& d, const BigVector<int64_t>& ahead_end, const std::function<void()>& tick)
      : g_(g), d_(d), ahead_end_(ahead_end), tick_(tick), waited_(g.ops.size(), 0) {}

  std::vector<OpWait> run(const std::vector<SyncRecord>& records) {
    recorded(records);
    inferred();
    return std::move(out_);
  }

 private:
  // Per thread: the ops its calls launched, by the call's start; and its *EventRecord* calls.
  void index_threads() {
    launched_.resize(g_.threads.size());
    records_.resize(g_.threads.size());
    for (uint32_t o = 0; o < g_.ops.size(); ++o)
      if (g_.ops[o].call >= 0) {
        const CpuEvent& c = g_.cpu[static_cast<size_t>(g_.ops[o].call)];
        launched_[c.thread].push_back({c.start, o});
      }
    for (auto& list : launched_) {
      tick_();
      std::sort(list.begin(), list.end());
    }
    for (uint32_t e = 0; e < g_.cpu.size(); ++e) {
      const CpuEvent& c = g_.cpu[e];
      if (c.type == CpuType::Other && c.name != kNone && event_record_call(g_.names[c.name])) records_[c.thread].push_back(e);
    }
    for (auto& list : records_)
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) { return g_.cpu[a].start < g_.cpu[b].start; });
  }

  // The stream wait of call w: its record's facts where there is one.
  void wait(uint32_t w, const SyncRecord* rec) {
    const CpuEvent& c = g_.cpu[w];
    uint32_t r = rec ? rec->event_call : kNone;
    if (r == kNone) {  // the thread's last event record before the wait
      const auto& list = records_[c.thread];
      auto it = std::lower_bound(list.begin(), list.end(), c.start,
                                 [&](uint32_t e, int64_t t) { return g_.cpu[e].start < t; });
      if (it == list.begin()) return;
      r = *std::prev(it);
    }
    const CpuEvent& rc = g_.cpu[r];
    // -1: not recorded (streams are numbers >= 0, sync_records.h)
    const int64_t event_stream = rec && rec->event_stream ? *rec->event_stream : -1;
    const int64_t stream = rec && rec->stream ? *rec->stream : -1;
    // A: the last op launched on the record's thread before it, on the event's stream.
    uint32_t a = kNone;
    {
      const auto& list = launched_[rc.thread];
      auto it = std::lower_bound(list.begin(), list.end(), std::pair<int64_t, uint32_t>{rc.start, 0});
      while (it != list.begin()) {
        --it;
        const uint32_t o = it->second;
        if (event_stream < 0 || stream_is(g_.lanes[g_.ops[o].lane].second[2], event_stream)) {
          a = o;
          break;
        }
      }
    }
    if (a == kNone) return;
    // B: the first op launched on the wait's thread after it on the waiting stream (looked for
    // among the next kWaitingLaunches launches); without a recorded stream, the next launch, unless
    // it goes to the event's own lane (a wait there changes nothing).
    const auto& list = launched_[c.thread];
    auto it = std::lower_bound(list.begin(), list.end(), std::pair<int64_t, uint32_t>{c.start, 0});
    for (size_t n = 0; it != list.end() && n < kWaitingLaunches; ++it, ++n) {
      const uint32_t o = it->second;
      const uint32_t lane = g_.ops[o].lane;
      if (stream >= 0 && !stream_is(g_.lanes[lane].second[2], stream)) continue;
      if (stream < 0 && lane == g_.ops[a].lane) break;
      if (g_.ops[a].end <= g_.ops[o].start) out_.push_back({a, o, false});
      waited_[o] = 1;
      break;
    }
  }

  void recorded(const std::vector<SyncRecord>& records) {
    bool any = !records.empty();
    std::vector<uint8_t> has_record(g_.cpu.size(), 0);
    for (const SyncRecord& r : records)
      if (r.kind == SyncKind::StreamWaitEvent) has_record[r.call] = 1;
    std::vector<uint32_t> plain;
    for (uint32_t e = 0; e < g_.cpu.size(); ++e) {
      const CpuEvent& c = g_.cpu[e];
      if (!has_record[e] && c.type == CpuType::Other && c.name != kNone && stream_wait_call(g_.names[c.name]))
        plain.push_back(e);
    }
    if (!any && plain.empty()) return;
    index_threads();
    for (const SyncRecord& r : records) {
      tick_();
      if (r.kind == SyncKind::StreamWaitEvent) wait(r.call, &r);
    }
    for (uint32_t e : plain) {
      tick_();
      wait(e, nullptr);
    }
  }

  void inferred() {
    for (uint32_t o = 0; o < g_.ops.size(); ++o) {
      if ((o & 0xfff) == 0) tick_();
      if (waited_[o]) continue;
      const GpuOp& op = g_.ops[o];
      int64_t ready = ahead_end_[o];
      if (op.call >= 0) ready = std::max(ready, g_.cpu[static_cast<size_t>(op.call)].end);
      if (ready == INT64_MIN || op.start - ready < kLateStart) continue;
      const uint32_t a = d_.latest_end(d_.lane_device[op.lane], op.start - kReleaseWindow, op.start, [&](uint32_t x) {
        const GpuOp& other = g_.ops[x];
        if (other.lane == op.lane || other.end <= ready) return false;
        if (other.call >= 0 && op.call >= 0)
          return g_.cpu[static_cast<size_t>(other.call)].start < g_.cpu[static_cast<size_t>(op.call)].start;
        return other.start < op.start;
      });
      if (a != kNone) out_.push_back({a, o, true});
    }
  }

  const Graph& g_;
  const DeviceOps& d_;
  const BigVector<int64_t>& ahead_end_;
  const std::function<void()>& tick_;
  std::vector<uint8_t> waited_;
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> launched_;
  std::vector<std::vector<uint32_t>> records_;
  std::vector<OpWait> out_;
};

}  // namespace

std::vector<OpWait> find_stream_waits(const Graph& g, const DeviceOps& devices, const std::vector<SyncRecord>& records,
                                      const BigVector<int64_t>& ahead_end, const std::function<void()>& tick) {
  return Finder(g, devices, ahead_end, tick).run(records);
}

}  // namespace rocpd::critical_path
