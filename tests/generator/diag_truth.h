// Ground truth of the --diagnosis workload: idle-time causes, communication/computation overlap
// and the marker stacks of launches, computed from the workload in memory (docs/generator.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "workload.h"

namespace rocpd_gen {

// The kernel-wait threshold the truth uses (ns): rocpd_idle_breakdown's default.
inline constexpr int64_t kDiagKernelWaitNs = 5'000;

// The JSON value of the truth key "diagnosis" for the processes (sessions) of one file.
std::string diagnosis_truth_json(std::span<const ProcessTrace> sessions);

}  // namespace rocpd_gen
