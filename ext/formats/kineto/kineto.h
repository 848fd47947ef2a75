// PyTorch profiler (Kineto) traces: see kineto.cpp (the adapter) and kineto_import.h (how a
// JSON trace becomes the tables it reads).
#pragma once
#include <cstdint>
#include <optional>

#include "formats/adapter.h"

namespace rocpd::formats {

struct KinetoDetails : canonical::FormatDetails {
  // The process the trace's GPU-side rows (gpu_user_annotation, cuda_sync) belong to.
  std::optional<int64_t> main_pid;
};

const FormatAdapter& kineto_adapter();

}  // namespace rocpd::formats
