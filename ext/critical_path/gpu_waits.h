// Calls that waited for GPU work, and the op whose end released each (docs/critical_path.md,
// "Waiting for the GPU"):
//   - a call whose own op ends inside it (a synchronous copy): recorded (the op names its call);
//   - a *Synchronize* call: the last op launched before it on each lane of its process that ends
//     inside it, or only on the stream a `cuda_sync` record names (sync_records.h);
//   - any other call (a launch that found its queue full, an allocation that synchronises), inferred
//     from the timing: it lasted at least kWaitFactor times the kWaitQuantile of its name's calls on
//     its thread and kWaitMargin more than it, and returned within kReleaseWindow after the end of
//     an op of its device (its own op's gpu; any gpu of its process for a call without op) that was
//     launched before it started.
// Such a call's end may come as soon as the op it waited for ends (a what-if moves it with that op);
// its own time is its name's kWaitQuantile on its thread for an inferred wait, none otherwise.
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "critical_path/device_ops.h"
#include "critical_path/member_graph.h"
#include "critical_path/sync_records.h"

namespace rocpd::critical_path {

inline constexpr double kWaitQuantile = 0.05;
inline constexpr int64_t kWaitFactor = 4;
inline constexpr int64_t kWaitMargin = 50'000;      // ns

struct CallWait {
  uint32_t op = 0, call = 0;  // op's end -> call's end
  EdgeClass cls = EdgeClass::GpuWait;  // Sync for *Synchronize* calls
  bool inferred = false;
};

struct GpuWaits {
  std::vector<CallWait> edges;
  std::vector<uint8_t> waits;  // per call: 1 when it has an edge above
  std::unordered_map<uint32_t, int64_t> own;  // per inferred call: its own time (the quantile)
};

GpuWaits find_gpu_waits(const Graph& g, const DeviceOps& devices, const std::vector<SyncRecord>& records,
                        const std::function<void()>& tick);

}  // namespace rocpd::critical_path
