// The fixed schemas of the canonical federated tables. Column meaning is the same for every format;
// each format adapter (ext/formats) maps its tables onto them. Columns are only ever appended.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/affinity.h"

namespace rocpd::canonical {

struct CanonicalColumn {
  const char* name;
  const char* decl;   // declared type in the virtual table schema
  bool text;          // values are TEXT (used to decide which constraint values can be pushed)
  bool time = false;  // a timestamp: shifted by the member's clock offset
  Affinity affinity() const {
    return text ? Affinity::Text : std::string_view(decl) == "REAL" ? Affinity::Real : Affinity::Integer;
  }
};

enum OpsColumn : int {
  kOpsDb, kOpsPid, kOpsGpu, kOpsQueue, kOpsStream, kOpsKind, kOpsName, kOpsDemangled,
  kOpsStart, kOpsEnd, kOpsDuration, kOpsCorrelationId, kOpsOpId, kOpsGraphId, kOpsNode, kOpsColumnCount
};

enum ApisColumn : int {
  kApisDb, kApisPid, kApisTid, kApisDomain, kApisCategory, kApisName, kApisArgs,
  kApisStart, kApisEnd, kApisDuration, kApisCorrelationId, kApisApiId, kApisNode, kApisColumnCount
};

// One row per kernel dispatch: launch geometry and resources (rocpd_kernels).
enum KernelsColumn : int {
  kKernDb, kKernPid, kKernGpu, kKernQueue, kKernStream, kKernName, kKernStart, kKernEnd, kKernDuration,
  kKernCorrelationId, kKernOpId, kKernGraphId,
  kKernGridX, kKernGridY, kKernGridZ, kKernWorkgroupX, kKernWorkgroupY, kKernWorkgroupZ,
  kKernLdsBytes, kKernScratchBytes, kKernSgpr, kKernVgpr, kKernAgpr, kKernColumnCount
};

// One row per memory copy: sizes and the devices at both ends (rocpd_copies).
enum CopiesColumn : int {
  kCopyDb, kCopyPid, kCopyGpu, kCopyQueue, kCopyStream, kCopyName, kCopyStart, kCopyEnd, kCopyDuration,
  kCopyCorrelationId, kCopyOpId, kCopyGraphId, kCopyBytes, kCopySrcGpu, kCopyDstGpu, kCopyColumnCount
};

// One row per memory allocation event (rocpd_memory).
enum MemoryColumn : int {
  kMemDb, kMemPid, kMemTid, kMemGpu, kMemOperation, kMemLevel, kMemAddress, kMemBytes, kMemStart, kMemEnd,
  kMemCorrelationId, kMemId, kMemColumnCount
};

// One row per (dispatch, counter) value (rocpd_counters).
enum CountersColumn : int {
  kCntDb, kCntPid, kCntGpu, kCntOpId, kCntCorrelationId, kCntName, kCntCounter, kCntValue, kCntUnits, kCntStart,
  kCntEnd, kCntId, kCntColumnCount
};

// One row per HIP event record or wait the runtime put on a queue (rocpd_hip_events): barrier
// packets, not GPU work, so kept out of rocpd_ops and its busy time.
enum HipEventsColumn : int {
  kHevDb, kHevPid, kHevGpu, kHevQueue, kHevKind, kHevName, kHevStart, kHevEnd, kHevCorrelationId, kHevId,
  kHevColumnCount
};

enum class TableKind { Ops, Apis, Kernels, Copies, Memory, Counters, HipEvents };
inline constexpr size_t kTableKinds = 7;

struct CanonicalTable {
  TableKind kind;
  const char* name;
  std::vector<CanonicalColumn> columns;
  int db_col, start_col, end_col;
  int gpu_col;        // -1 when the table has no gpu
  int derived_col;    // computed in C++ from another column (-1: none): ops.demangled
  int derived_from;   // the column it is computed from
};

const CanonicalTable& ops_table();
const CanonicalTable& apis_table();
const CanonicalTable& table_of(TableKind kind);
// Every canonical table, in TableKind order.
const std::array<const CanonicalTable*, kTableKinds>& canonical_tables();
// "CREATE TABLE x(...)" text for sqlite3_declare_vtab.
std::string declare_sql(const CanonicalTable& table);

}  // namespace rocpd::canonical
