// The fixed schemas of the canonical federated tables rocpd_ops and rocpd_apis. Column
// meaning is the same for every format; member_sql.cpp maps each format onto them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/affinity.h"

namespace rocpd::federation {

struct CanonicalColumn {
  const char* name;
  const char* decl;  // declared type in the virtual table schema
  bool text;         // values are TEXT (used to decide which constraint values can be pushed)
  Affinity affinity() const { return text ? Affinity::Text : Affinity::Integer; }
};

enum OpsColumn : int {
  kOpsDb, kOpsPid, kOpsGpu, kOpsQueue, kOpsStream, kOpsKind, kOpsName, kOpsDemangled,
  kOpsStart, kOpsEnd, kOpsDuration, kOpsCorrelationId, kOpsOpId, kOpsColumnCount
};

enum ApisColumn : int {
  kApisDb, kApisPid, kApisTid, kApisDomain, kApisCategory, kApisName, kApisArgs,
  kApisStart, kApisEnd, kApisDuration, kApisCorrelationId, kApisApiId, kApisColumnCount
};

enum class TableKind { Ops, Apis };

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
// "CREATE TABLE x(...)" text for sqlite3_declare_vtab.
std::string declare_sql(const CanonicalTable& table);

}  // namespace rocpd::federation
