// rocpd_queue_depth's step function of one lane, from its ops' (launch, start, end): one step
// per distinct instant, with the depth and waiting counts after every event at that instant.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace rocpd::diagnosis {

struct LaneOp {
  int64_t launched, start, end;
};

struct QueueStep {
  int64_t ts;
  int64_t depth;    // launched at or before ts, end > ts
  int64_t waiting;  // launched at or before ts, start > ts
  std::optional<int64_t> duration;  // next ts - ts (nullopt on the last step, or if it overflows)
  bool duration_overflows = false;  // then SQLite's integer subtraction would give a real
};

std::vector<QueueStep> queue_steps(const std::vector<LaneOp>& ops);

}  // namespace rocpd::diagnosis
