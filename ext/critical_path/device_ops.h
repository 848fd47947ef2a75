// The ops of each device (a process's gpu) of a member's graph, by end time: where the waits
// (gpu_waits.h, stream_waits.h) look for the op whose end released a call or another op.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "critical_path/member_graph.h"

namespace rocpd::critical_path {

// How soon after an op's end a call that waited for it returns, or an op that waited for it starts,
// at most (docs/critical_path.md).
inline constexpr int64_t kReleaseWindow = 10'000;  // ns

struct DeviceOps {
  std::vector<uint32_t> lane_device;                              // per lane
  std::vector<std::vector<uint32_t>> proc_devices;                // per process
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> by_end;  // per device: (end, op), ascending

  // The op of `device` with the latest end in [lo, hi] for which ok(op) holds (kNone: none). At
  // most `limit` ops are looked at: a window holding more ends than that is no release to name.
  template <class Ok>
  uint32_t latest_end(uint32_t device, int64_t lo, int64_t hi, Ok ok, int limit = 256) const {
    const auto& list = by_end[device];
    auto it = std::upper_bound(list.begin(), list.end(), std::pair<int64_t, uint32_t>{hi, UINT32_MAX});
    for (int n = 0; it != list.begin() && n < limit; ++n) {
      --it;
      if (it->first < lo) break;
      if (ok(it->second)) return it->second;
    }
    return kNone;
  }
};

DeviceOps device_ops(const Graph& g, const std::function<void()>& tick);

}  // namespace rocpd::critical_path
