// A process as PyTorch's profiler (Kineto) writes it on ROCm: Chrome-trace JSON with HIP calls under
// cat cuda_runtime, kernels and copies on rows named by device and stream, operators (cpu_op)
// around launches, roctx markers as user_annotation events, ac2g flows, hardware counter samples.
// What each file exercises (docs/generator.md, "Kineto"):
//  - times: even ranks write baseTimeNanoseconds (rank % 4 == 2: after traceEvents) with `ts`
//    relative to it, chosen so that every ts lies just past 2^53 ns, where a double no longer
//    holds the ns digit (the base is then negative); odd ranks write absolute µs (older traces);
//  - launch links: every 7th op has no `correlation` arg and every 13th launching call none
//    either (their ac2g flows link them; every 5th flow has cat async_cpu_to_gpu); every 101st
//    op has neither correlation nor flow (no launch);
//  - operator stacks: two nested cpu_op events around each launching call that has room for them
//    (not with --diagnosis, whose truth lists the markers' stacks alone).
#include "write_kineto.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "json_text.h"
#include "kernel_pool.h"
#include "random.h"

namespace rocpd_gen {

namespace {

constexpr int64_t k2Pow53 = int64_t{1} << 53;
constexpr const char* kCounterName = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr int64_t kCounterPeriodNs = 1'000'000;

// Kineto's copy names; a device-to-device copy between two GPUs is a peer copy (PtoP).
constexpr const char* kHtoD = "Memcpy HtoD (Host -> Device)";
constexpr const char* kDtoH = "Memcpy DtoH (Device -> Host)";
constexpr const char* kDtoD = "Memcpy DtoD (Device -> Device)";
constexpr const char* kPtoP = "Memcpy PtoP (Device -> Device)";
std::string_view copy_name(const Op& op) {
  switch (op.kind) {
    case OpKind::CopyHostToDevice: return kHtoD;
    case OpKind::CopyDeviceToHost: return kDtoH;
    case OpKind::CopyDeviceToDevice: return op.peer_gpu == op.gpu ? kDtoD : kPtoP;
    case OpKind::Kernel: break;
  }
  return "";
}

// Operator names around a launch: (outer, inner).
std::pair<const char*, const char*> operator_names(const Op& op, size_t index) {
  if (op.kind != OpKind::Kernel) return {"aten::to", "aten::copy_"};
  static const std::pair<const char*, const char*> kNames[] = {
      {"aten::linear", "aten::addmm"}, {"aten::conv2d", "aten::cudnn_convolution"},
      {"aten::softmax", "aten::_softmax"}, {"aten::add", "aten::add_"}};
  return kNames[index % 4];
}

class Out {
 public:
  explicit Out(const std::filesystem::path& path) : f_(std::fopen(path.c_str(), "wb")), path_(path) {
    if (!f_) throw std::runtime_error(fmt::format("cannot create '{}'", path.string()));
    buf_.reserve(1 << 21);
  }
  ~Out() {
    if (f_) std::fclose(f_);
  }
  template <typename... T>
  void put(fmt::format_string<T...> format, T&&... args) {
    fmt::format_to(std::back_inserter(buf_), format, std::forward<T>(args)...);
    if (buf_.size() > (1 << 20)) flush();
  }
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size())
      throw std::runtime_error(fmt::format("cannot write '{}'", path_.string()));
    buf_.clear();
  }
  void close() {
    flush();
    if (std::fclose(f_) != 0) throw std::runtime_error(fmt::format("cannot write '{}'", path_.string()));
    f_ = nullptr;
  }

 private:
  std::FILE* f_;
  std::filesystem::path path_;
  std::string buf_;
};

// µs with three decimals: exact ns.
std::string micros(int64_t ns) {
  if (ns < 0) return fmt::format("-{}.{:03}", -ns / 1000, -ns % 1000);
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

struct Range {
  int64_t start, end;
  std::string name;
  uint64_t order;  // ties: the range written first is outside
};

}  // namespace

std::vector<std::pair<std::string, std::string>> write_kineto(const std::filesystem::path& path,
                                                              const std::vector<ProcessTrace>& traces) {
  if (traces.size() != 1) throw std::runtime_error("kineto: one process per file (PyTorch writes one per rank)");
  const ProcessTrace& t = traces.front();
  const auto pool = kernel_pool();
  const bool with_base = t.rank % 2 == 0;
  const bool late_base = t.rank % 4 == 2;
  const bool with_operators = t.op_stacks.empty();

  int64_t t_min = INT64_MAX;
  for (const HostCall& c : t.calls) t_min = std::min(t_min, c.start);
  for (const Op& op : t.ops) t_min = std::min(t_min, op.start);
  const int64_t base = with_base ? t_min - k2Pow53 - 12'345 : 0;
  auto ts = [&](int64_t ns) { return micros(ns - base); };

  // Which launches carry which links.
  std::vector<bool> op_corr(t.ops.size(), true), op_flow(t.ops.size(), true);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (i % 101 == 100 && !t.ops[i].graph) op_corr[i] = op_flow[i] = false;
    else if (i % 7 == 6) op_corr[i] = false;
  }
  std::vector<bool> launching(t.calls.size(), false), call_corr(t.calls.size(), true);
  for (const Op& op : t.ops) launching[op.call] = true;
  int64_t launching_count = 0;
  for (size_t c = 0; c < t.calls.size(); ++c)
    if (launching[c] && launching_count++ % 13 == 12) call_corr[c] = false;

  // Operators: two nested cpu_op events around a launching call, inside the gap that separates it
  // from every other call or marker boundary on its thread (so they never cross a range).
  std::map<uint32_t, std::vector<int64_t>> points;  // tid -> every call start and end
  for (const HostCall& c : t.calls) {
    points[c.tid].push_back(c.start);
    points[c.tid].push_back(c.end);
  }
  for (auto& [tid, p] : points) std::sort(p.begin(), p.end());
  struct Operators {
    int64_t outer_start, outer_end, inner_start, inner_end;
    int64_t outer_id, inner_id;
    const char* outer;
    const char* inner;
  };
  std::vector<std::optional<Operators>> operators(t.calls.size());
  int64_t next_external = 1;
  std::vector<int64_t> call_external(t.calls.size(), 0);
  if (with_operators) {
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const uint32_t ci = t.ops[i].call;
      if (operators[ci] || !launching[ci]) continue;
      const HostCall& c = t.calls[ci];
      const auto& p = points[c.tid];
      // The call's own start and end appear once each; any other point at them leaves no room.
      // (p is sorted: equal_range keeps a 1 GB trace's generation linearithmic, std::count made it quadratic.)
      const auto once = [&p](int64_t x) {
        const auto [a, b] = std::equal_range(p.begin(), p.end(), x);
        return b - a == 1;
      };
      if (!once(c.start) || !once(c.end)) continue;
      auto lo = std::lower_bound(p.begin(), p.end(), c.start);
      auto hi = std::upper_bound(p.begin(), p.end(), c.end);
      if (lo == p.begin() || hi == p.end()) continue;
      if (std::any_of(lo + 1, hi - 1, [&](int64_t x) { return x != c.start && x != c.end; })) continue;
      const int64_t before = (c.start - *(lo - 1)) / 4, after = (*hi - c.end) / 4;
      if (before < 2 || after < 2) continue;
      const auto [outer, inner] = operator_names(t.ops[i], i);
      operators[ci] = Operators{c.start - 2 * before, c.end + 2 * after, c.start - before, c.end + after,
                                next_external, next_external + 1, outer, inner};
      next_external += 2;
      call_external[ci] = operators[ci]->inner_id;
    }
  }

  Out out(path);
  out.put("{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  for (int g = 0; g < t.gpus; ++g)
    out.put("{}\n    {{\"id\": {}, \"name\": \"AMD Instinct MI300X\", \"totalGlobalMem\": 206141652992, "
            "\"computeMajor\": 9, \"computeMinor\": 4, \"warpSize\": 64, \"numSms\": 304}}",
            g ? "," : "", g);
  out.put("\n  ],\n  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}}},\n", t.rank);
  out.put("  \"traceName\": {},\n  \"displayTimeUnit\": \"ms\",\n",
          json_string(path.filename().string()));
  if (with_base && !late_base) out.put("  \"baseTimeNanoseconds\": {},\n", base);
  out.put("  \"traceEvents\": [\n");
  bool first = true;
  auto sep = [&]() -> const char* {
    if (first) {
      first = false;
      return "  ";
    }
    return ",\n  ";
  };

  // Rows: the process and its threads, and one row per GPU.
  out.put("{}{{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": {}, \"tid\": 0, \"args\": {{\"name\": \"python3\"}}}}",
          sep(), t.pid);
  out.put("{}{{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": {}, \"tid\": 0, \"args\": {{\"labels\": \"CPU\"}}}}",
          sep(), t.pid);
  for (uint32_t tid : {t.main_tid, t.helper_tid})
    out.put("{}{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {}, \"tid\": {}, \"args\": {{\"name\": \"thread {} "
            "(python3)\"}}}}",
            sep(), t.pid, tid, tid);
  for (int g = 0; g < t.gpus; ++g)
    out.put("{}{{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": {}, \"tid\": 0, \"args\": {{\"labels\": \"GPU "
            "{}\"}}}}",
            sep(), g, g);

  // CPU side: calls (HIP under cuda_runtime), markers (user_annotation), operators (cpu_op), flows.
  int64_t flows = 0, flow_only = 0, cpu_ops = 0;
  for (size_t ci = 0; ci < t.calls.size(); ++ci) {
    const HostCall& c = t.calls[ci];
    if (c.api == HostApi::UserMarker) {
      out.put("{}{{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, "
              "\"dur\": {}, \"args\": {{\"External id\": {}}}}}",
              sep(), json_string(marker_message(c.marker)), t.pid, c.tid, ts(c.start), micros(c.end - c.start),
              next_external++);
      continue;
    }
    if (const auto& o = operators[ci]) {
      out.put("{}{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}, "
              "\"args\": {{\"External id\": {}, \"Sequence number\": {}}}}}",
              sep(), o->outer, t.pid, c.tid, ts(o->outer_start), micros(o->outer_end - o->outer_start), o->outer_id, ci);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}, "
              "\"args\": {{\"External id\": {}, \"Input Dims\": [[{}, 64], [64]], \"Input type\": [\"float\", \"float\"]}}}}",
              sep(), o->inner, t.pid, c.tid, ts(o->inner_start), micros(o->inner_end - o->inner_start), o->inner_id,
              ci % 997 + 1);
      cpu_ops += 2;
    }
    const int64_t corr = static_cast<int64_t>(ci) + 1;
    std::string args = call_external[ci] ? fmt::format("\"External id\": {}", call_external[ci]) : std::string();
    if (call_corr[ci]) args += fmt::format("{}\"correlation\": {}", args.empty() ? "" : ", ", corr);
    out.put("{}{{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
            "\"dur\": {}, \"args\": {{{}}}}}",
            sep(), host_api_name(c.api), t.pid, c.tid, ts(c.start), micros(c.end - c.start), args);
    if (launching[ci]) {
      const char* cat = flows % 5 == 4 ? "async_cpu_to_gpu" : "ac2g";
      out.put("{}{{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"{}\", \"name\": \"{}\"}}", sep(),
              corr, t.pid, c.tid, ts(c.start), cat, cat);
      ++flows;
    }
  }

  // GPU side: kernels and copies on (device, stream) rows, each with its `f` flow point.
  std::vector<int64_t> flow_cat(t.calls.size(), -1);
  {
    int64_t n = 0;
    for (size_t ci = 0; ci < t.calls.size(); ++ci)
      if (launching[ci]) flow_cat[ci] = n++ % 5 == 4;
  }
  int64_t unlinked = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    const int64_t corr = static_cast<int64_t>(op.call) + 1;
    std::string args = fmt::format("\"device\": {}, \"stream\": {}", op.gpu, op.queue);
    if (op_corr[i]) args += fmt::format(", \"correlation\": {}", corr);
    if (op_flow[i] && call_external[op.call]) args += fmt::format(", \"External id\": {}", call_external[op.call]);
    if (op.kind == OpKind::Kernel) {
      const LaunchDims d = launch_dims(t, i);
      args += fmt::format(", \"registers per thread\": {}, \"shared memory\": {}, \"grid\": [{}, {}, {}], "
                          "\"block\": [{}, {}, {}], \"queued\": 0",
                          16 + (i * 8) % 112, d.group_segment, d.grid_x / d.workgroup_x, d.grid_y, d.grid_z,
                          d.workgroup_x, d.workgroup_y, d.workgroup_z);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}, "
              "\"args\": {{{}}}}}",
              sep(), json_string(pool[static_cast<size_t>(op.kernel)].name), op.gpu, op.queue, ts(op.start),
              micros(op.end - op.start), args);
    } else {
      args += fmt::format(", \"bytes\": {}", op.bytes);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
              "\"dur\": {}, \"args\": {{{}}}}}",
              sep(), copy_name(op), op.gpu, op.queue, ts(op.start), micros(op.end - op.start), args);
    }
    if (op_flow[i]) {
      const char* cat = flow_cat[op.call] ? "async_cpu_to_gpu" : "ac2g";
      out.put("{}{{\"ph\": \"f\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"{}\", \"name\": \"{}\", "
              "\"bp\": \"e\"}}",
              sep(), corr, op.gpu, op.queue, ts(op.start), cat, cat);
      ++flows;
      if (!op_corr[i] || !call_corr[op.call]) ++flow_only;
    } else {
      ++unlinked;
    }
  }

  // Hardware counter samples (CUPTI PM sampling): one per GPU and millisecond of its ops' span.
  std::map<int, std::pair<int64_t, int64_t>> spans;
  for (const Op& op : t.ops) {
    auto [it, fresh] = spans.try_emplace(op.gpu, op.start, op.end);
    if (!fresh) it->second = {std::min(it->second.first, op.start), std::max(it->second.second, op.end)};
  }
  int64_t samples = 0, sample_sum = 0;
  for (const auto& [gpu, span] : spans) {
    for (int64_t at = span.first; at <= span.second; at += kCounterPeriodNs) {
      const int64_t value = static_cast<int64_t>(mix64(static_cast<uint64_t>(t.pid * 131 + gpu) ^ static_cast<uint64_t>(at)) % 101);
      out.put("{}{{\"ph\": \"C\", \"cat\": \"hardware_counters\", \"name\": \"{}\", \"pid\": \"GPU {} Counters\", "
              "\"tid\": 0, \"ts\": {}, \"args\": {{\"\": {}}}}}",
              sep(), kCounterName, gpu, ts(at), value);
      ++samples;
      sample_sum += value;
    }
  }
  out.put("\n  ]");
  if (with_base && late_base) out.put(",\n  \"baseTimeNanoseconds\": {}", base);
  out.put("\n}}\n");
  out.close();

  // Truth: each launch's stack by the documented rule (ranges on the launching thread that enclose
  // the call, outermost first), computed here from the workload and the operators written.
  std::map<uint32_t, std::vector<Range>> ranges;
  uint64_t order = 0;
  for (size_t ci = 0; ci < t.calls.size(); ++ci) {
    const HostCall& c = t.calls[ci];
    if (c.api == HostApi::UserMarker && c.end > c.start)
      ranges[c.tid].push_back({c.start, c.end, std::string(marker_message(c.marker)), order++});
    if (const auto& o = operators[ci]) {
      ranges[c.tid].push_back({o->outer_start, o->outer_end, o->outer, order++});
      ranges[c.tid].push_back({o->inner_start, o->inner_end, o->inner, order++});
    }
  }
  // A sweep per thread in call start order keeps the ranges open at the call's start (a nesting
  // deep, not every range of the thread), so large traces take seconds, not minutes.
  std::vector<std::vector<const Range*>> stacks(t.ops.size());
  std::map<uint32_t, std::vector<size_t>> linked;  // launching tid -> ops linked to their launch
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (op_flow[i] || op_corr[i]) linked[t.calls[t.ops[i].call].tid].push_back(i);
  for (auto& [tid, ops_of_tid] : linked) {
    std::vector<Range>& rs = ranges[tid];
    std::stable_sort(rs.begin(), rs.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
    std::stable_sort(ops_of_tid.begin(), ops_of_tid.end(),
                     [&](size_t a, size_t b) { return t.calls[t.ops[a].call].start < t.calls[t.ops[b].call].start; });
    std::vector<const Range*> open;
    size_t next = 0;
    for (size_t i : ops_of_tid) {
      const HostCall& c = t.calls[t.ops[i].call];
      while (next < rs.size() && rs[next].start <= c.start) open.push_back(&rs[next++]);
      std::erase_if(open, [&](const Range* r) { return r->end < c.start; });  // encloses no later call
      for (const Range* r : open)
        if (c.end <= r->end) stacks[i].push_back(r);
    }
  }
  std::map<int64_t, int64_t> depths;
  std::map<std::string, int64_t> tops, bottoms;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    std::vector<const Range*>& stack = stacks[i];
    std::sort(stack.begin(), stack.end(), [](const Range* a, const Range* b) {
      if (a->start != b->start) return a->start < b->start;
      if (a->end != b->end) return a->end > b->end;
      return a->order < b->order;
    });
    ++depths[static_cast<int64_t>(stack.size())];
    if (!stack.empty()) {
      ++tops[stack.front()->name];
      ++bottoms[stack.back()->name];
    }
  }
  auto pairs = [](const auto& m, bool quote) {
    std::string s = "[";
    for (const auto& [k, v] : m) {
      if (s.size() > 1) s += ",";
      if constexpr (std::is_same_v<std::decay_t<decltype(k)>, std::string>) s += fmt::format("[{},{}]", json_string(k), v);
      else s += fmt::format("[{},{}]", k, v);
    }
    (void)quote;
    return s + "]";
  };
  std::vector<std::pair<std::string, std::string>> extra;
  extra.emplace_back("kineto", fmt::format(
      "{{\"layout\":\"{}\",\"base_time_ns\":{},\"rank\":{},\"cpu_ops\":{},\"flows\":{},\"flow_only_links\":{},"
      "\"unlinked_ops\":{},\"counter_samples\":{},\"counter_sum\":{},\"counter_name\":\"{}\","
      "\"copy_names\":{{\"{}\":\"CopyHostToDevice\",\"{}\":\"CopyDeviceToHost\",\"{}\":\"CopyDeviceToDevice\","
      "\"{}\":\"CopyDeviceToDevice\"}},"
      "\"stack_depths\":{},\"top_levels\":{},\"bottom_levels\":{}}}",
      with_base ? (late_base ? "base_after_events" : "base") : "absolute", with_base ? std::to_string(base) : "null",
      t.rank, cpu_ops, flows, flow_only, unlinked, samples, sample_sum, kCounterName,
      kHtoD, kDtoH, kDtoD, kPtoP, pairs(depths, false), pairs(tops, true),
      pairs(bottoms, true)));
  return extra;
}

}  // namespace rocpd_gen
