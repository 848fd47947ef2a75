// The launch delays of a member's kernels per gpu, as rocpd_op_launches gives them (start -
// launch_end of the kernels with a launch, a start and a launch end): how many, their median, 99th
// percentile and largest, read straight from the member (its kernels and launch calls, the launch
// rule of docs/diagnosis.md) without the op and call columns rocpd_op_launches also carries.
// Shared by rocpd_launch_delay_groups and rocpd_gpu_screen.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "analysis/ops_window.h"
#include "canonical/member.h"
#include "common/affinity.h"
#include "members/interrupt.h"
#include "stats/percentile_select.h"

namespace rocpd::diagnosis {

struct DelayFigures {
  analysis::GpuKey gpu;
  int64_t delays = 0, max = 0;
  // The kernels whose delay is not the difference of two integers (a gpu, start or end of another
  // type, or an overflow): the member's figures are then not those of the SQL.
  int64_t inexact = 0;
  std::optional<stats::Number> med, p99;  // percentile(x, 50), percentile(x, 99)
};

// A kernel as launch_delay_figures reads it, for a caller that needs more of the same rows
// (rocpd_gpu_screen's kernel groups): its gpu, start, end and name as rocpd_ops holds them, and
// the name's token (MemberColumns::name_token: equal tokens, equal names; -1 when none).
struct KernelRow {
  const StoredValue &gpu, &start, &end, &name;
  int64_t name_token;
};
using KernelVisitor = std::function<void(const KernelRow&)>;

// One entry per gpu with a delay or an inexact kernel, sorted by gpu. `also`, when given, sees
// every kernel row read (with or without a launch).
std::vector<DelayFigures> launch_delay_figures(const canonical::Member& m, sqlite3* conn,
                                               const members::InterruptWatch& watch, const char* table,
                                               const KernelVisitor* also = nullptr);

}  // namespace rocpd::diagnosis
