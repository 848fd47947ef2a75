// rocpd_comm_overlap's classes of ops (sql/views/60_rocpd_comm_overlap.sql): copies and
// collective kernels are comm, other kernels compute, other kinds neither.
#pragma once
#include <string_view>

#include "common/affinity.h"

namespace rocpd::analysis {

enum class CommClass { None, Compute, Comm };

// The class of a kernel by name, as `coalesce(name, '') LIKE '%nccl%' OR .. '%rccl%' OR
// .. '%cross_device_reduce%'` decides it: ASCII case-insensitive, text up to its first NUL (as
// LIKE reads it), numbers as their text (which never matches), NULL as ''.
CommClass kernel_class(const StoredValue& name);

// The class of an op: kind 'copy' (text) is comm, kind 'kernel' is kernel_class(name).
inline CommClass kind_class(const StoredValue& kind) {
  if (kind.type != SQLITE_TEXT) return CommClass::None;
  const std::string_view k(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length));
  if (k == "copy") return CommClass::Comm;
  if (k == "kernel") return CommClass::Compute;  // refined by kernel_class
  return CommClass::None;
}

}  // namespace rocpd::analysis
