// Ops made to wait for an op of another stream (docs/critical_path.md, "Waits between streams"):
//   - recorded: a stream wait (a `cuda_sync` 'Stream Wait Event' record, else a call named like
//     *StreamWaitEvent*) makes the first op launched after it on its thread (on the stream the
//     record names, among the next 64 launches; else the next launch, if on another lane than the
//     event's) wait for the last op launched before the
//     event's record call (the record's `event_call`, else the last *EventRecord* call of the thread
//     before the wait) on the event's stream (`event_stream`, else any lane);
//   - inferred from the timing: an op that started at least kLateStart after both its launch call
//     returned and the op ahead on its stream ended, within kReleaseWindow after the end of an op
//     of another stream of its device launched before it (the latest such end, later than both).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "critical_path/device_ops.h"
#include "critical_path/member_graph.h"
#include "critical_path/sync_records.h"

namespace rocpd::critical_path {

inline constexpr int64_t kLateStart = 50'000;  // ns

struct OpWait {
  uint32_t from = 0, to = 0;  // op from's end -> op to's start
  bool inferred = false;
};

// `ahead_end`: per op, the end of the op ahead of it on its lane (INT64_MIN: none).
std::vector<OpWait> find_stream_waits(const Graph& g, const DeviceOps& devices, const std::vector<SyncRecord>& records,
                                      const BigVector<int64_t>& ahead_end, const std::function<void()>& tick);

}  // namespace rocpd::critical_path
