#include "diag_truth.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "json_text.h"
#include "kernel_pool.h"

namespace rocpd_gen {
namespace {

struct TimedOp {
  int64_t start, end, launch;  // launch: start of the issuing call
};

struct Breakdown {
  int64_t gaps = 0, idle = 0, host = 0, kernel = 0, other = 0;
};

// Gaps between the merged busy intervals; each is classified by the op(s) starting at its end:
// host wait when the earliest of their launches began after the gap began, else kernel wait when
// shorter than the threshold, else other.
Breakdown breakdown(std::vector<TimedOp> ops) {
  std::erase_if(ops, [](const TimedOp& o) { return o.end <= o.start; });
  std::sort(ops.begin(), ops.end(), [](const TimedOp& a, const TimedOp& b) { return a.start < b.start; });
  Breakdown b;
  int64_t busy_end = 0;
  for (size_t i = 0; i < ops.size();) {
    size_t j = i;
    int64_t launch = ops[i].launch;
    while (j < ops.size() && ops[j].start == ops[i].start) launch = std::min(launch, ops[j++].launch);
    if (i > 0 && ops[i].start > busy_end) {
      const int64_t gap = ops[i].start - busy_end;
      ++b.gaps;
      b.idle += gap;
      if (launch > busy_end) b.host += gap;
      else if (gap < kDiagKernelWaitNs) b.kernel += gap;
      else b.other += gap;
    }
    for (; i < j; ++i) busy_end = i == 0 ? ops[i].end : std::max(busy_end, ops[i].end);
  }
  return b;
}

int64_t union_length(std::vector<std::pair<int64_t, int64_t>> iv) {
  std::sort(iv.begin(), iv.end());
  int64_t total = 0, s = 0, e = 0;
  bool open = false;
  for (auto [a, z] : iv) {
    if (z <= a) continue;
    if (open && a <= e) {
      e = std::max(e, z);
      continue;
    }
    if (open) total += e - s;
    s = a;
    e = z;
    open = true;
  }
  if (open) total += e - s;
  return total;
}

// Communication kernels as docs/diagnosis.md classifies them: NCCL/RCCL and vLLM's custom
// all-reduce (cross_device_reduce), whose pool entries are not of the Nccl family.
bool is_comm_kernel(const KernelInfo& k) {
  std::string name(k.name);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k.family == KernelFamily::Nccl || name.find("nccl") != std::string::npos ||
         name.find("rccl") != std::string::npos || name.find("cross_device_reduce") != std::string::npos;
}

}  // namespace

std::string diagnosis_truth_json(std::span<const ProcessTrace> sessions) {
  const auto pool = kernel_pool();
  std::map<int, std::vector<TimedOp>> gpu_ops;
  std::map<std::pair<int, int>, std::vector<TimedOp>> queue_ops;
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> comm, comp;
  std::map<size_t, int64_t> depths;  // kernels and copies by stack depth
  std::map<std::string, int64_t> tops, bottoms;
  int64_t stalls = 0, waits = 0, helper_ranges = 0;
  for (const ProcessTrace& t : sessions) {
    stalls += t.host_stalls;
    waits += t.event_waits;
    for (const HostCall& c : t.calls)
      if (c.api == HostApi::UserMarker && c.tid == t.helper_tid) ++helper_ranges;
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const Op& op = t.ops[i];
      const TimedOp x{op.start, op.end, t.calls[op.call].start};
      gpu_ops[op.gpu].push_back(x);
      queue_ops[{op.gpu, op.queue}].push_back(x);
      const bool is_comm = op.kind != OpKind::Kernel || is_comm_kernel(pool[static_cast<size_t>(op.kernel)]);
      (is_comm ? comm : comp)[op.gpu].emplace_back(op.start, op.end);
      const std::vector<uint32_t>& stack = t.op_stacks.at(i);
      ++depths[stack.size()];
      if (!stack.empty()) {
        ++tops[std::string(marker_message(t.calls[stack.front()].marker))];
        ++bottoms[std::string(marker_message(t.calls[stack.back()].marker))];
      }
    }
  }
  std::string out = fmt::format("{{\"kernel_wait_threshold_ns\":{},\"host_stalls\":{},\"event_waits\":{},\"helper_ranges\":{},",
                                kDiagKernelWaitNs, stalls, waits, helper_ranges);
  auto counts = [](const auto& m, bool quote) {
    std::string s = "{";
    bool first = true;
    for (const auto& [k, v] : m) {
      s += fmt::format("{}{}:{}", first ? "" : ",", quote ? json_string(fmt::format("{}", k)) : fmt::format("\"{}\"", k), v);
      first = false;
    }
    return s + "}";
  };
  out += "\"stack_depths\":" + counts(depths, false) + ",\"top_levels\":" + counts(tops, true) +
         ",\"bottom_levels\":" + counts(bottoms, true) + ",\n    \"gpus\":[";
  bool first = true;
  for (auto& [gpu, ops] : gpu_ops) {
    const Breakdown b = breakdown(ops);
    const int64_t comm_ns = union_length(comm[gpu]), comp_ns = union_length(comp[gpu]);
    std::vector<std::pair<int64_t, int64_t>> both = comm[gpu];
    both.insert(both.end(), comp[gpu].begin(), comp[gpu].end());
    const int64_t overlap = comm_ns + comp_ns - union_length(both);
    out += fmt::format(
        "{}\n     {{\"gpu\":{},\"gaps\":{},\"idle_ns\":{},\"host_wait_ns\":{},\"kernel_wait_ns\":{},\"other_ns\":{},"
        "\"compute_ns\":{},\"comm_ns\":{},\"overlap_ns\":{}}}",
        first ? "" : ",", gpu, b.gaps, b.idle, b.host, b.kernel, b.other, comp_ns, comm_ns, overlap);
    first = false;
  }
  out += "],\n    \"queues\":[";
  first = true;
  for (auto& [key, ops] : queue_ops) {
    const Breakdown b = breakdown(ops);
    out += fmt::format("{}\n     {{\"gpu\":{},\"queue\":{},\"gaps\":{},\"idle_ns\":{},\"host_wait_ns\":{},\"kernel_wait_ns\":{},\"other_ns\":{}}}",
                       first ? "" : ",", key.first, key.second, b.gaps, b.idle, b.host, b.kernel, b.other);
    first = false;
  }
  return out + "]}";
}

}  // namespace rocpd_gen
