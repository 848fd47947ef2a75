#include "critical_path/device_ops.h"

#include <algorithm>
#include <bit>
#include <map>

namespace rocpd::critical_path {

using namespace analysis;

DeviceOps device_ops(const Graph& g, const std::function<void()>& tick) {
  DeviceOps d;
  d.proc_devices.resize(g.proc_pid.size());
  std::map<std::pair<uint32_t, std::pair<int, int64_t>>, uint32_t> index;  // (process, gpu) -> device
  for (const auto& [proc, lane] : g.lanes) {
    const Cell& gpu = lane[0];
    const int64_t v = gpu.type == SQLITE_FLOAT ? std::bit_cast<int64_t>(gpu.d)
                      : gpu.type == SQLITE_INTEGER ? gpu.i
                      : gpu.type == SQLITE_NULL    ? 0
                                                   : static_cast<int64_t>(gpu.text);
    auto [it, added] = index.try_emplace({proc, {gpu.type, v}}, static_cast<uint32_t>(d.by_end.size()));
    if (added) {
      d.by_end.emplace_back();
      d.proc_devices[proc].push_back(it->second);
    }
    d.lane_device.push_back(it->second);
  }
  for (uint32_t o = 0; o < g.ops.size(); ++o) d.by_end[d.lane_device[g.ops[o].lane]].push_back({g.ops[o].end, o});
  for (auto& list : d.by_end) {
    tick();
    std::sort(list.begin(), list.end());
  }
  return d;
}

}  // namespace rocpd::critical_path
