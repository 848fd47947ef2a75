#include "call_class.h"

#include <array>
#include <cctype>

namespace rocpd_cli {

namespace {
bool upper_at(std::string_view s, size_t i) {
  return i < s.size() && std::isupper(static_cast<unsigned char>(s[i])) != 0;
}

// The tracers' own work, recorded as calls: rpd's writer threads and flushes, roctracer's
// activity callback, and the completion wait rpd's tracer records around a run.
bool is_profiler_call(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kNames = {"rpdflush", "hcc_activity_callback",
                                                              "run_to_completion", "rpd_tracer"};
  for (auto n : kNames)
    if (name == n) return true;
  return name.ends_with("::writeRows") || name.starts_with("rpdflush");
}

bool has_runtime_prefix(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kPrefixes = {
      "hip", "hsa_", "hsa", "cuda", "nccl", "rccl", "cublas", "cudnn", "rocblas", "miopen", "roctracer", "cupti"};
  for (auto p : kPrefixes)
    if (name.starts_with(p)) return true;
  // Driver and OpenCL / Level Zero entry points: cuLaunchKernel, clEnqueueNDRangeKernel, zeCommandListAppend...
  for (std::string_view p : {"cu", "cl", "ze", "nv"})
    if (name.starts_with(p) && upper_at(name, p.size())) return true;
  return false;
}
}  // namespace

CallClass call_class(std::string_view domain, std::string_view name) {
  if (domain == "marker") return CallClass::Marker;
  if (domain == "gpu_annotation" || domain == "cuda_sync") return CallClass::Annotation;
  if (is_profiler_call(name)) return CallClass::Profiler;
  static constexpr std::array<std::string_view, 8> kRuntimeDomains = {"hip", "hsa", "rccl", "nccl",
                                                                      "cuda", "cuda_driver", "cuda_runtime", "cublas"};
  for (auto d : kRuntimeDomains)
    if (domain == d) return CallClass::Api;
  return has_runtime_prefix(name) ? CallClass::Api : CallClass::Other;
}

const char* call_class_name(CallClass c) {
  switch (c) {
    case CallClass::Api: return "api";
    case CallClass::Marker: return "marker";
    case CallClass::Annotation: return "annotation";
    case CallClass::Profiler: return "profiler";
    case CallClass::Other: return "other";
  }
  return "other";
}

}  // namespace rocpd_cli
