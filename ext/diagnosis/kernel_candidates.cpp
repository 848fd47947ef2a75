#include "diagnosis/kernel_candidates.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>
#include <variant>

#include "stats/percentile_select.h"

namespace rocpd::diagnosis {

void KernelCandidates::add(const KernelRow& k) {
  if (inexact_) return;
  if (k.name.type == SQLITE_NULL) return;  // rocpd_anomalies pairs a group's instances by name: never NULL
  if (k.start.type == SQLITE_NULL || k.end.type == SQLITE_NULL) return;  // untimed: no duration
  if (k.name.type != SQLITE_TEXT || (k.gpu.type != SQLITE_NULL && k.gpu.type != SQLITE_INTEGER) ||
      k.start.type != SQLITE_INTEGER || k.end.type != SQLITE_INTEGER) {
    inexact_ = true;
    return;
  }
  // rocpd_ops' duration: end - start, 0 when the op ends before it starts.
  int64_t d = 0;
  if (k.end.i > k.start.i && __builtin_sub_overflow(k.end.i, k.start.i, &d)) {
    inexact_ = true;
    return;
  }
  const bool gpu_null = k.gpu.type == SQLITE_NULL;
  const int64_t gpu = gpu_null ? 0 : k.gpu.i;
  auto group_of_name = [&] {
    std::string name(static_cast<const char*>(k.name.bytes), static_cast<size_t>(k.name.length));
    auto [it, added] = by_name_.try_emplace({gpu_null, gpu, name}, static_cast<uint32_t>(groups_.size()));
    if (added) groups_.push_back({gpu_null, gpu, std::move(name), {}});
    return it->second;
  };
  uint32_t g;
  if (k.name_token >= 0) {
    auto [it, added] = by_token_.try_emplace({gpu_null, gpu, k.name_token}, 0);
    if (added) it->second = group_of_name();  // tokens of one name share its group
    g = it->second;
  } else {
    g = group_of_name();
  }
  groups_[g].durations.push_back(d);
}

std::map<analysis::GpuKey, int64_t> KernelCandidates::per_gpu() {
  std::map<analysis::GpuKey, int64_t> out;
  for (Group& g : groups_) {
    if (g.durations.size() < 5) continue;
    std::vector<int64_t>& values = g.durations;
    const int64_t max = *std::max_element(values.begin(), values.end());
    const double med = std::visit([](auto x) { return static_cast<double>(x); }, stats::percentile_select(values, 50.0));
    // rocpd_anomalies' test (0.999) with a margin for rounding; the view tests the group again.
    if (static_cast<double>(max) - med < 0.998 * 5 * 1.4826 * std::max(0.1 * std::abs(med), 1000.0)) continue;
    analysis::GpuKey key;
    if (!g.gpu_null) {
      key.type = SQLITE_INTEGER;
      key.i = g.gpu;
    }
    ++out[key];
  }
  return out;
}

}  // namespace rocpd::diagnosis
