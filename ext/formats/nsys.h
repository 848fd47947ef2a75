// Nsight Systems SQLite exports (`nsys export --type sqlite`), schema 3.25.x: see nsys.cpp.
#pragma once

#include "formats/adapter.h"

namespace rocpd::federation {

// Which of the report's event tables exist: nsys creates a table only when the report holds such
// events, so every one is optional.
struct NsysDetails : FormatDetails {
  bool kernels = false;        // CUPTI_ACTIVITY_KIND_KERNEL
  bool memcpy = false;         // CUPTI_ACTIVITY_KIND_MEMCPY
  bool memset = false;         // CUPTI_ACTIVITY_KIND_MEMSET
  bool runtime = false;        // CUPTI_ACTIVITY_KIND_RUNTIME (CUDA runtime and driver calls)
  bool nvtx = false;           // NVTX_EVENTS
  bool strings = false;        // StringIds
  bool event_classes = false;  // ENUM_NSYS_EVENT_CLASS (names of the calls' event classes)
  bool memcpy_kinds = false;   // ENUM_CUDA_MEMCPY_OPER (labels of the copy kinds)
};

const FormatAdapter& nsys_adapter();

}  // namespace rocpd::federation
