#include "truth.h"

#include <algorithm>
#include <climits>
#include <map>

#include <fmt/format.h>

#include "json_text.h"
#include "kernel_pool.h"

namespace rocpd_gen {
namespace {

class Totals {
 public:
  void add(std::string_view name, std::string_view kind, int64_t duration) {
    auto [it, inserted] = by_name_.try_emplace(std::pair<std::string, std::string>(name, kind));
    NameTotals& t = it->second;
    if (inserted) {
      t.name = name;
      t.kind = kind;
      t.min_ns = duration;
      t.max_ns = duration;
    }
    ++t.calls;
    t.total_ns += duration;
    t.min_ns = std::min(t.min_ns, duration);
    t.max_ns = std::max(t.max_ns, duration);
  }

  // Largest total first; ties by name so the order is reproducible.
  std::vector<NameTotals> sorted() const {
    std::vector<NameTotals> out;
    out.reserve(by_name_.size());
    for (const auto& [key, value] : by_name_) out.push_back(value);
    std::stable_sort(out.begin(), out.end(), [](const NameTotals& a, const NameTotals& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      if (a.name != b.name) return a.name < b.name;
      return a.kind < b.kind;
    });
    return out;
  }

 private:
  std::map<std::pair<std::string, std::string>, NameTotals> by_name_;
};

template <typename... T>
void append_to(std::string& out, fmt::format_string<T...> format, T&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<T>(args)...);
}

}  // namespace

UnionLength interval_union(std::vector<std::pair<int64_t, int64_t>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  UnionLength u;
  bool open = false;
  int64_t cur_start = 0, cur_end = 0;
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;  // [s, s) is empty
    if (open && s <= cur_end) {
      cur_end = std::max(cur_end, e);
      continue;
    }
    if (open) u.length += cur_end - cur_start;
    open = true;
    ++u.components;
    cur_start = s;
    cur_end = e;
  }
  if (open) u.length += cur_end - cur_start;
  return u;
}

FileTruth compute_truth(std::span<const ProcessTrace> sessions) {
  FileTruth t;
  t.first_ns = INT64_MAX;
  t.last_ns = INT64_MIN;
  Totals ops, apis, markers;
  std::map<int, GpuTruth> gpus;
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> gpu_intervals;
  const auto pool = kernel_pool();
  for (const ProcessTrace& p : sessions) {
    t.hostname = p.hostname;
    t.pids.push_back(p.pid);
    for (const Op& op : p.ops) {
      const int64_t d = op.end - op.start;
      ++t.ops;
      t.ops_sum_ns += d;
      t.first_ns = std::min(t.first_ns, op.start);
      t.last_ns = std::max(t.last_ns, op.end);
      if (op.kind == OpKind::Kernel) {
        ++t.kernels;
        ops.add(pool[static_cast<size_t>(op.kernel)].name, "kernel", d);
      } else {
        ++t.copies;
        ops.add(rpd_op_type(op.kind), "copy", d);
      }
      auto [it, inserted] = gpus.try_emplace(op.gpu);
      GpuTruth& g = it->second;
      if (inserted) {
        g.gpu = op.gpu;
        g.first_ns = op.start;
        g.last_ns = op.end;
      }
      ++g.ops;
      g.sum_ns += d;
      g.first_ns = std::min(g.first_ns, op.start);
      g.last_ns = std::max(g.last_ns, op.end);
      gpu_intervals[op.gpu].emplace_back(op.start, op.end);
    }
    for (const HostCall& c : p.calls) {
      const int64_t d = c.end - c.start;
      t.first_ns = std::min(t.first_ns, c.start);
      t.last_ns = std::max(t.last_ns, c.end);
      if (c.api == HostApi::UserMarker) {
        ++t.markers;
        markers.add(marker_message(c.marker), "", d);
      } else {
        ++t.apis;
        t.apis_sum_ns += d;
        apis.add(host_api_name(c.api), "", d);
      }
    }
  }
  for (auto& [gpu, g] : gpus) {
    const UnionLength u = interval_union(gpu_intervals[gpu]);
    g.busy_ns = u.length;
    g.busy_intervals = u.components;
    t.gpus.push_back(g);
  }
  t.top = ops.sorted();
  t.api_top = apis.sorted();
  t.marker_top = markers.sorted();
  return t;
}

std::string truth_json(const JobTruthHeader& header, std::span<const FileTruth> files) {
  std::string out;
  auto totals = [&](std::string_view key, const std::vector<NameTotals>& list, bool with_kind) {
    append_to(out, ",\n   \"{}\":[", key);
    for (size_t i = 0; i < list.size(); ++i) {
      const NameTotals& n = list[i];
      append_to(out, "{}\n    {{\"name\":{}", i ? "," : "", json_string(n.name));
      if (with_kind) append_to(out, ",\"kind\":{}", json_string(n.kind));
      append_to(out, ",\"calls\":{},\"total_ns\":{}", n.calls, n.total_ns);
      if (with_kind) append_to(out, ",\"min_ns\":{},\"max_ns\":{}", n.min_ns, n.max_ns);
      append_to(out, "}}");
    }
    append_to(out, "]");
  };

  append_to(out, "{{\"seed\":{},\"format\":{},\"procs\":{},\n \"files\":[", header.seed, json_string(header.format),
         header.procs);
  int64_t job_ops = 0, job_apis = 0, job_sum = 0, job_first = INT64_MAX, job_last = INT64_MIN;
  for (size_t i = 0; i < files.size(); ++i) {
    const FileTruth& f = files[i];
    job_ops += f.ops;
    job_apis += f.apis;
    job_sum += f.ops_sum_ns;
    job_first = std::min(job_first, f.first_ns);
    job_last = std::max(job_last, f.last_ns);
    append_to(out, "{}\n  {{\"file\":{},\"db\":{},\"format\":{},\"schema_version\":{},\"uuid\":{},\"hostname\":{},",
           i ? "," : "", json_string(f.file), json_string(f.db), json_string(f.format), f.schema_version,
           f.uuid ? json_string(*f.uuid) : std::string("null"), json_string(f.hostname));
    append_to(out, "\"pids\":[{}],", fmt::join(f.pids, ","));
    append_to(out, "\n   \"first_ns\":{},\"last_ns\":{},\"ops\":{},\"apis\":{},\"markers\":{},\"kernels\":{},"
           "\"copies\":{},\"ops_sum_ns\":{},\"apis_sum_ns\":{},",
           f.first_ns, f.last_ns, f.ops, f.apis, f.markers, f.kernels, f.copies, f.ops_sum_ns, f.apis_sum_ns);
    append_to(out, "\n   \"gpus\":[");
    for (size_t g = 0; g < f.gpus.size(); ++g) {
      const GpuTruth& x = f.gpus[g];
      append_to(out, "{}\n    {{\"gpu\":{},\"ops\":{},\"sum_ns\":{},\"busy_ns\":{},\"first_ns\":{},\"last_ns\":{},"
             "\"busy_intervals\":{}}}",
             g ? "," : "", x.gpu, x.ops, x.sum_ns, x.busy_ns, x.first_ns, x.last_ns, x.busy_intervals);
    }
    append_to(out, "]");
    totals("top", f.top, true);
    totals("api_top", f.api_top, false);
    totals("marker_top", f.marker_top, false);
    for (size_t k = 0; k < f.extra.size(); ++k)
      append_to(out, "{}{}:{}", k ? "," : ",\n   ", json_string(f.extra[k].first), f.extra[k].second);
    append_to(out, "}}");
  }
  if (files.empty()) job_first = job_last = 0;
  append_to(out, "],\n \"job\":{{\"ops\":{},\"apis\":{},\"ops_sum_ns\":{},\"first_ns\":{},\"last_ns\":{}}}}}\n", job_ops,
         job_apis, job_sum, job_first, job_last);
  return out;
}

}  // namespace rocpd_gen
