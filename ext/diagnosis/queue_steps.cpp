#include "diagnosis/queue_steps.h"

#include <algorithm>

namespace rocpd::diagnosis {

std::vector<QueueStep> queue_steps(const std::vector<LaneOp>& ops) {
  struct Event {
    int64_t ts;
    int d_depth, d_wait;
  };
  std::vector<Event> events;
  events.reserve(ops.size() * 3);
  for (const LaneOp& o : ops) {
    events.push_back({o.launched, 1, 1});
    events.push_back({o.start, 0, -1});
    events.push_back({o.end, -1, 0});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
  std::vector<QueueStep> out;
  int64_t depth = 0, waiting = 0;
  for (size_t i = 0; i < events.size();) {
    const int64_t ts = events[i].ts;
    for (; i < events.size() && events[i].ts == ts; ++i) {
      depth += events[i].d_depth;
      waiting += events[i].d_wait;
    }
    out.push_back({ts, depth, waiting, std::nullopt});
  }
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    int64_t d = 0;
    if (__builtin_sub_overflow(out[i + 1].ts, out[i].ts, &d)) out[i].duration_overflows = true;
    else out[i].duration = d;
  }
  return out;
}

}  // namespace rocpd::diagnosis
