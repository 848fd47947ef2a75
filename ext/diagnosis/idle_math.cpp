#include "diagnosis/idle_math.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/sqlite_util.h"

namespace rocpd::diagnosis {
namespace {
void add(int64_t& sum, __int128 value, const char* table, const char* what) {
  const __int128 total = static_cast<__int128>(sum) + value;
  if (total > std::numeric_limits<int64_t>::max())
    throw Error(fmt::format("{}: {} is longer than an integer holds (INT64_MAX ns)", table, what));
  sum = static_cast<int64_t>(total);
}
}  // namespace

IdleTotals classify_gaps(std::vector<IdleOp>& ops, int64_t kernel_wait_ns, int64_t lo, int64_t hi, const char* table) {
  IdleTotals t;
  t.ops = static_cast<int64_t>(ops.size());
  for (IdleOp& op : ops) {
    op.start = std::max(op.start, lo);
    op.end = std::min(op.end, hi);
  }
  std::erase_if(ops, [](const IdleOp& op) { return op.end <= op.start; });
  // A queue's ops are usually read in start order already: checking first skips the sort.
  const auto by_start = [](const IdleOp& a, const IdleOp& b) { return a.start < b.start; };
  if (!std::is_sorted(ops.begin(), ops.end(), by_start)) std::sort(ops.begin(), ops.end(), by_start);
  int64_t busy_start = 0, busy_end = 0;
  for (size_t i = 0; i < ops.size();) {
    const int64_t b = ops[i].start;
    int64_t launch = kNoLaunch;
    size_t j = i;
    for (; j < ops.size() && ops[j].start == b; ++j)
      if (ops[j].launch != kNoLaunch && (launch == kNoLaunch || ops[j].launch < launch)) launch = ops[j].launch;
    if (i == 0) {
      busy_start = b;
      busy_end = ops[0].end;
    } else if (b > busy_end) {
      add(t.busy_ns, static_cast<__int128>(busy_end) - busy_start, table, "the busy time");
      const __int128 gap = static_cast<__int128>(b) - busy_end;
      ++t.gaps;
      add(t.idle_ns, gap, table, "the idle time");
      if (launch != kNoLaunch && launch > busy_end) add(t.host_wait_ns, gap, table, "the host wait");
      else if (launch != kNoLaunch && gap < kernel_wait_ns) add(t.kernel_wait_ns, gap, table, "the kernel wait");
      else add(t.other_ns, gap, table, "the other wait");
      busy_start = b;
      busy_end = ops[i].end;
    }
    for (; i < j; ++i) busy_end = std::max(busy_end, ops[i].end);
  }
  if (!ops.empty()) add(t.busy_ns, static_cast<__int128>(busy_end) - busy_start, table, "the busy time");
  return t;
}

}  // namespace rocpd::diagnosis
