// Nsight Systems SQLite exports (`nsys export --type sqlite`) of every export schema since 2021:
// see nsys.cpp (the canonical sources) and nsys_probe.cpp (what a file's schema holds).
#pragma once

#include <map>
#include <set>
#include <string>

#include "formats/adapter.h"

namespace rocpd::formats {

// The tables read. nsys creates a table only when the report holds such events, and each export
// schema generation has its own columns: every table and column is optional, and the sources are
// built from what the file has (a missing column reads NULL, rocpd_members.notes says so).
inline constexpr const char* kNsysKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr const char* kNsysMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr const char* kNsysMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr const char* kNsysRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";  // CUDA runtime and driver calls
inline constexpr const char* kNsysSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
inline constexpr const char* kNsysNvtx = "NVTX_EVENTS";

struct NsysDetails : canonical::FormatDetails {
  // The columns of each event table the file has (a table it lacks has no entry).
  std::map<std::string, std::set<std::string>> columns;
  bool strings = false;        // StringIds (id, value): kernel, call and registered NVTX names
  bool event_classes = false;  // ENUM_NSYS_EVENT_CLASS (names of the calls' event classes)
  bool memcpy_kinds = false;   // ENUM_CUDA_MEMCPY_OPER (labels of the copy kinds)

  bool has(const char* table) const { return columns.count(table) > 0; }
  bool has(const char* table, const char* column) const {
    auto it = columns.find(table);
    return it != columns.end() && it->second.count(column) > 0;
  }
};

const FormatAdapter& nsys_adapter();

}  // namespace rocpd::formats
