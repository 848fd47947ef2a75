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
//    (not with --diagnosis, whose truth lists the markers' stacks alone);
//  - with --kineto-version V, the layout PyTorch V's profiler writes on CUDA (or MTIA devices):
//    category spellings, launch flow categories, whole-µs or ns-digit times, text tids, the
//    top-level keys of that version (Style below; docs/generator.md).
#include "write_kineto.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "json_text.h"
#include "kernel_pool.h"
#include "nsys_model.h"
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

// What differs between the profiler versions the generator writes (docs/generator.md, "Kineto").
struct Style {
  bool cuda = false;  // CUDA call names (PyTorch on CUDA), else the HIP names (on ROCm)
  bool mtia = false;  // MTIA devices: mtia_runtime calls, mtia_ccp_events device events
  bool schema_version = true, device_properties = true, distributed_info = true, trace_name = true;
  const char* display_time_unit = "ms";  // nullptr: none
  int base = 1;             // baseTimeNanoseconds: 1 even ranks (rank % 4 == 2: after the events), 2 every rank, 0 none
  bool whole_us = false;    // ts and dur in whole µs (truncated), before PyTorch 2.3
  bool text_tids = false;   // X events' tid as text ("1234"), GPU rows "stream 7" (1.8, 1.9)
  bool old_external = false;  // "external id" on GPU ops and runtime calls (1.8-1.10)
  bool counters = true;     // hardware_counters samples
  bool mixed_flow_cats = true;  // every 5th flow async_cpu_to_gpu (the original layout)
  const char* operator_cat = "cpu_op";
  const char* marker_cat = "user_annotation";
  const char* runtime_cat = "cuda_runtime";
  const char* driver_cat = "cuda_runtime";
  const char* kernel_cat = "kernel";
  const char* memcpy_cat = "gpu_memcpy";
  const char* flow_cat = "ac2g";
  const char* flow_name = "ac2g";  // nullptr: the launching call's name (1.10)
  bool s_bp = false;        // `bp: e` on the flow's start too
  bool corr_on_f_only = false;
};

Style style_of(const std::string& version) {
  Style st;
  if (version.empty()) return st;
  st.cuda = true;
  st.counters = false;
  st.mixed_flow_cats = false;
  st.base = 0;
  st.display_time_unit = nullptr;
  st.trace_name = false;
  if (version == "1.8" || version == "1.9" || version == "1.10") {
    st.whole_us = true;
    st.old_external = true;
    st.distributed_info = false;
    st.operator_cat = st.marker_cat = "Operator";
    st.runtime_cat = st.driver_cat = "Runtime";
    st.kernel_cat = "Kernel";
    st.memcpy_cat = "Memcpy";
    st.text_tids = version != "1.10";
    st.schema_version = st.device_properties = version != "1.8";
    if (version == "1.10") {
      st.flow_cat = "async_gpu";
      st.flow_name = nullptr;
      st.s_bp = true;
      st.distributed_info = true;
    } else {
      st.flow_cat = "async";
      st.flow_name = "launch";
    }
  } else if (version == "1.11") {
    st.whole_us = true;
    st.flow_cat = "async_cpu_to_gpu";
    st.flow_name = "async_gpu";
    st.s_bp = true;
  } else if (version == "2.0" || version == "2.1") {
    st.whole_us = true;
    if (version == "2.1") st.driver_cat = "cuda_driver";
    st.trace_name = true;
  } else {  // 2.3, 2.4, mtia: ns digits, displayTimeUnit; 2.4 on: baseTimeNanoseconds
    st.driver_cat = "cuda_driver";
    st.trace_name = true;
    st.display_time_unit = version == "2.3" ? "ns" : "ms";
    st.base = version == "2.3" ? 0 : 2;
    st.mtia = version == "mtia";
  }
  return st;
}

// A call's name as the version records it.
std::string call_name(const Style& st, HostApi api, const std::vector<OpKind>& launched) {
  if (st.mtia) {
    if (!launched.empty()) {
      if (launched.front() == OpKind::Kernel) return "runFunction - job_prep_and_submit_for_execution";
      if (launched.front() == OpKind::CopyHostToDevice) return "enqueueCommand memcpyHtoDAsync";
      if (launched.front() == OpKind::CopyDeviceToHost) return "enqueueCommand memcpyDtoHAsync";
      return "enqueueCommand memcpyDtoDAsync";
    }
    switch (api) {
      case HostApi::HipStreamSynchronize: return "synchronizeStream";
      case HostApi::HipDeviceSynchronize: return "synchronize";
      case HostApi::HipEventRecord: return "recordEvent";
      default: break;
    }
    std::string name(host_api_name(api).substr(3));  // hipGetDevice -> getDevice
    if (!name.empty()) name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
    return name;
  }
  if (st.cuda) return std::string(cuda_display_name(cuda_call(api).name));
  return std::string(host_api_name(api));
}

struct Range {
  int64_t start, end;
  std::string name;
  uint64_t order;  // ties: the range written first is outside
};

}  // namespace

std::vector<std::pair<std::string, std::string>> write_kineto(const std::filesystem::path& path,
                                                              const std::vector<ProcessTrace>& traces,
                                                              const std::string& version) {
  if (traces.size() != 1) throw std::runtime_error("kineto: one process per file (PyTorch writes one per rank)");
  const ProcessTrace& t = traces.front();
  const auto pool = kernel_pool();
  const Style st = style_of(version);
  const bool with_base = st.base == 2 || (st.base == 1 && t.rank % 2 == 0);
  const bool late_base = st.base == 1 && t.rank % 4 == 2;
  const bool with_operators = t.op_stacks.empty();

  int64_t t_min = INT64_MAX;
  for (const HostCall& c : t.calls) t_min = std::min(t_min, c.start);
  for (const Op& op : t.ops) t_min = std::min(t_min, op.start);
  const int64_t base = with_base ? t_min - k2Pow53 - 12'345 : 0;
  // Whole µs (before PyTorch 2.3): truncated, as Kineto's us() was.
  auto ts = [&](int64_t ns) { return st.whole_us ? std::to_string((ns - base) / 1000) : micros(ns - base); };
  auto dur = [&](int64_t ns) { return st.whole_us ? std::to_string(ns / 1000) : micros(ns); };
  // A CPU thread as X events name it (1.8, 1.9: as text) and a GPU row ("stream 7").
  auto cpu_tid = [&](uint32_t tid) { return st.text_tids ? fmt::format("\"{}\"", tid) : std::to_string(tid); };
  auto gpu_tid = [&](const Op& op) {
    if (st.mtia) return std::to_string(1000 + op.queue);
    return st.text_tids ? fmt::format("\"stream {}\"", op.queue) : std::to_string(op.queue);
  };
  const char* external_key = st.old_external ? "external id" : "External id";

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
  out.put("{{\n");
  if (st.schema_version) out.put("  \"schemaVersion\": 1,\n");
  if (st.device_properties) {
    out.put("  \"deviceProperties\": [");
    for (int g = 0; g < t.gpus; ++g) {
      if (st.mtia)
        out.put("{}\n    {{\"id\": {}, \"name\": \"ARTEMIS\", \"runtimeMajorVersion\": 1, \"runtimeMinorVersion\": 30, "
                "\"maxGridHeight\": 8, \"maxGridWidth\": 8}}",
                g ? "," : "", g);
      else if (st.cuda)
        out.put("{}\n    {{\"id\": {}, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85093150720, "
                "\"computeMajor\": 8, \"computeMinor\": 0, \"warpSize\": 32, \"numSms\": 108}}",
                g ? "," : "", g);
      else
        out.put("{}\n    {{\"id\": {}, \"name\": \"AMD Instinct MI300X\", \"totalGlobalMem\": 206141652992, "
                "\"computeMajor\": 9, \"computeMinor\": 4, \"warpSize\": 64, \"numSms\": 304}}",
                g ? "," : "", g);
    }
    out.put("\n  ],\n");
  }
  if (st.distributed_info) out.put("  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}}},\n", t.rank);
  if (st.trace_name) out.put("  \"traceName\": {},\n", json_string(path.filename().string()));
  if (st.display_time_unit) out.put("  \"displayTimeUnit\": \"{}\",\n", st.display_time_unit);
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

  // Each call's name as the version records it (by what it launches, on MTIA).
  std::vector<std::vector<OpKind>> launched(t.calls.size());
  for (const Op& op : t.ops) launched[op.call].push_back(op.kind);
  std::vector<std::string> names(t.calls.size());
  for (size_t ci = 0; ci < t.calls.size(); ++ci)
    if (t.calls[ci].api != HostApi::UserMarker) names[ci] = call_name(st, t.calls[ci].api, launched[ci]);

  // CPU side: calls (HIP under cuda_runtime), markers (user_annotation), operators (cpu_op), flows.
  int64_t flows = 0, flow_only = 0, cpu_ops = 0;
  for (size_t ci = 0; ci < t.calls.size(); ++ci) {
    const HostCall& c = t.calls[ci];
    if (c.api == HostApi::UserMarker) {
      out.put("{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, "
              "\"dur\": {}, \"args\": {{\"External id\": {}}}}}",
              sep(), st.marker_cat, json_string(marker_message(c.marker)), t.pid, cpu_tid(c.tid), ts(c.start),
              dur(c.end - c.start), next_external++);
      continue;
    }
    if (const auto& o = operators[ci]) {
      out.put("{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}, "
              "\"args\": {{\"External id\": {}, \"Sequence number\": {}}}}}",
              sep(), st.operator_cat, o->outer, t.pid, cpu_tid(c.tid), ts(o->outer_start),
              dur(o->outer_end - o->outer_start), o->outer_id, ci);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}, "
              "\"args\": {{\"External id\": {}, \"Input Dims\": [[{}, 64], [64]], \"Input type\": [\"float\", \"float\"]}}}}",
              sep(), st.operator_cat, o->inner, t.pid, cpu_tid(c.tid), ts(o->inner_start),
              dur(o->inner_end - o->inner_start), o->inner_id, ci % 997 + 1);
      cpu_ops += 2;
    }
    const int64_t corr = static_cast<int64_t>(ci) + 1;
    std::string args = call_external[ci] ? fmt::format("\"{}\": {}", external_key, call_external[ci]) : std::string();
    if (call_corr[ci]) args += fmt::format("{}\"correlation\": {}", args.empty() ? "" : ", ", corr);
    const char* call_cat = st.mtia ? "mtia_runtime" : st.cuda && cuda_call(c.api).event_class == 1 ? st.driver_cat
                                                                                                 : st.runtime_cat;
    out.put("{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
            "\"dur\": {}, \"args\": {{{}}}}}",
            sep(), call_cat, names[ci], t.pid, cpu_tid(c.tid), ts(c.start), dur(c.end - c.start), args);
    if (launching[ci]) {
      const char* cat = st.mixed_flow_cats && flows % 5 == 4 ? "async_cpu_to_gpu" : st.flow_cat;
      const std::string name = st.mixed_flow_cats ? cat : st.flow_name ? st.flow_name : names[ci];
      out.put("{}{{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"{}\", \"name\": \"{}\"{}}}",
              sep(), corr, t.pid, c.tid, ts(c.start), cat, name, st.s_bp ? ", \"bp\": \"e\"" : "");
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
    std::string args = st.mtia ? fmt::format("\"stream\": {}", op.queue)
                               : fmt::format("\"device\": {}, \"stream\": {}", op.gpu, op.queue);
    if (op_corr[i]) args += fmt::format(", \"correlation\": {}", corr);
    if (op_flow[i] && call_external[op.call] && !st.mtia)
      args += fmt::format(", \"{}\": {}", external_key, call_external[op.call]);
    if (st.mtia) {
      // MTIA: device events (mtia_ccp_events) on the device's rows; copies are DMA requests.
      const bool copy = op.kind != OpKind::Kernel;
      if (copy)
        args += fmt::format(", \"direction\": \"{}\", \"size\": {}, \"sqid\": {}",
                            op.kind == OpKind::CopyHostToDevice   ? "HOST_TO_DEVICE"
                            : op.kind == OpKind::CopyDeviceToHost ? "DEVICE_TO_HOST"
                                                                  : "DEVICE_TO_DEVICE",
                            op.bytes, op.queue);
      else
        args += fmt::format(", \"column\": \"0\", \"row\": \"0\", \"packet_ptr\": {}", i % 256);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"mtia_ccp_events\", \"name\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, "
              "\"dur\": {}, \"args\": {{{}}}}}",
              sep(), copy ? std::string("\"dma_request\"") : json_string(pool[static_cast<size_t>(op.kernel)].name), op.gpu,
              gpu_tid(op), ts(op.start), dur(op.end - op.start), args);
    } else if (op.kind == OpKind::Kernel) {
      const LaunchDims d = launch_dims(t, i);
      args += fmt::format(", \"registers per thread\": {}, \"shared memory\": {}, \"grid\": [{}, {}, {}], "
                          "\"block\": [{}, {}, {}], \"queued\": 0",
                          16 + (i * 8) % 112, d.group_segment, d.grid_x / d.workgroup_x, d.grid_y, d.grid_z,
                          d.workgroup_x, d.workgroup_y, d.workgroup_z);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"dur\": {}, "
              "\"args\": {{{}}}}}",
              sep(), st.kernel_cat, json_string(pool[static_cast<size_t>(op.kernel)].name), op.gpu, gpu_tid(op),
              ts(op.start), dur(op.end - op.start), args);
    } else {
      args += fmt::format(", \"bytes\": {}", op.bytes);
      out.put("{}{{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
              "\"dur\": {}, \"args\": {{{}}}}}",
              sep(), st.memcpy_cat, copy_name(op), op.gpu, gpu_tid(op), ts(op.start), dur(op.end - op.start), args);
    }
    if (op_flow[i]) {
      const char* cat = st.mixed_flow_cats && flow_cat[op.call] ? "async_cpu_to_gpu" : st.flow_cat;
      const std::string name = st.mixed_flow_cats ? cat : st.flow_name ? st.flow_name : names[op.call];
      out.put("{}{{\"ph\": \"f\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"{}\", \"name\": \"{}\", "
              "\"bp\": \"e\"}}",
              sep(), corr, op.gpu, gpu_tid(op), ts(op.start), cat, name);
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
  if (!st.counters) spans.clear();
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
      "\"stack_depths\":{},\"top_levels\":{},\"bottom_levels\":{}{}}}",
      with_base ? (late_base ? "base_after_events" : "base") : "absolute", with_base ? std::to_string(base) : "null",
      t.rank, cpu_ops, flows, flow_only, unlinked, samples, sample_sum, kCounterName,
      kHtoD, kDtoH, kDtoD, kPtoP, pairs(depths, false), pairs(tops, true),
      pairs(bottoms, true), version.empty() ? std::string() : fmt::format(",\"version\":\"{}\"", version)));
  return extra;
}

}  // namespace rocpd_gen
