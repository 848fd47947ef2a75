// rpd (rocmProfileData) schema 2 and 3: see rpd.cpp.
#pragma once
#include <cstdint>

#include "formats/adapter.h"

namespace rocpd::formats {

struct RpdDetails : canonical::FormatDetails {
  bool has_api_domain = false;  // v3: rocpd_api.domain_id/category_id
  bool has_ustring = false;     // v3: argument strings live in rocpd_ustring
  bool has_api_ops = false;     // op -> issuing API link table present
  bool has_kernelapi = false;   // launch parameters per kernel-launching call
  bool has_copyapi = false;     // copy parameters per copying call
  bool has_counter = false;     // post-processed per-op counters (rocpd_counter)
  // v3 multi-node convention (schema/rpd_multinode.md): gpuId = node * gpu_stride + gpu, pid and
  // tid = node * pid_stride + pid. Values below the stride are not encoded. 0 = no stride.
  int64_t gpu_stride = 0, pid_stride = 0;
};

const FormatAdapter& rpd_adapter();

}  // namespace rocpd::formats
