#include "canonical/canonical_tables.h"

namespace rocpd::canonical {

namespace {
CanonicalColumn text(const char* name) { return {name, "TEXT", true}; }
CanonicalColumn integer(const char* name) { return {name, "INTEGER", false}; }
CanonicalColumn real(const char* name) { return {name, "REAL", false}; }
CanonicalColumn time(const char* name) { return {name, "INTEGER", false, true}; }
}  // namespace

const CanonicalTable& ops_table() {
  static const CanonicalTable table{
      TableKind::Ops,
      "rocpd_ops",
      {text("db"), integer("pid"), integer("gpu"), integer("queue"), integer("stream"), text("kind"), text("name"),
       text("demangled"), time("start"), time("end"), integer("duration"), integer("correlation_id"),
       integer("op_id"), integer("graph_id"), integer("node")},
      kOpsDb,
      kOpsStart,
      kOpsEnd,
      kOpsGpu,
      kOpsDemangled,
      kOpsName};
  return table;
}

const CanonicalTable& apis_table() {
  static const CanonicalTable table{
      TableKind::Apis,
      "rocpd_apis",
      {text("db"), integer("pid"), integer("tid"), text("domain"), text("category"), text("name"), text("args"),
       time("start"), time("end"), integer("duration"), integer("correlation_id"), integer("api_id"),
       integer("node")},
      kApisDb,
      kApisStart,
      kApisEnd,
      -1,
      -1,
      -1};
  return table;
}

namespace {

const CanonicalTable& kernels_table() {
  static const CanonicalTable table{
      TableKind::Kernels,
      "rocpd_kernels",
      {text("db"), integer("pid"), integer("gpu"), integer("queue"), integer("stream"), text("name"), time("start"),
       time("end"), integer("duration"), integer("correlation_id"), integer("op_id"), integer("graph_id"),
       integer("grid_x"), integer("grid_y"), integer("grid_z"), integer("workgroup_x"), integer("workgroup_y"),
       integer("workgroup_z"), integer("lds_bytes"), integer("scratch_bytes"), integer("sgpr"), integer("vgpr"),
       integer("agpr")},
      kKernDb,
      kKernStart,
      kKernEnd,
      kKernGpu,
      -1,
      -1};
  return table;
}

const CanonicalTable& copies_table() {
  static const CanonicalTable table{
      TableKind::Copies,
      "rocpd_copies",
      {text("db"), integer("pid"), integer("gpu"), integer("queue"), integer("stream"), text("name"), time("start"),
       time("end"), integer("duration"), integer("correlation_id"), integer("op_id"), integer("graph_id"),
       integer("bytes"), integer("src_gpu"), integer("dst_gpu")},
      kCopyDb,
      kCopyStart,
      kCopyEnd,
      kCopyGpu,
      -1,
      -1};
  return table;
}

const CanonicalTable& memory_table() {
  static const CanonicalTable table{
      TableKind::Memory,
      "rocpd_memory",
      {text("db"), integer("pid"), integer("tid"), integer("gpu"), text("operation"), text("level"),
       integer("address"), integer("bytes"), time("start"), time("end"), integer("correlation_id"), integer("id")},
      kMemDb,
      kMemStart,
      kMemEnd,
      kMemGpu,
      -1,
      -1};
  return table;
}

const CanonicalTable& counters_table() {
  static const CanonicalTable table{
      TableKind::Counters,
      "rocpd_counters",
      {text("db"), integer("pid"), integer("gpu"), integer("op_id"), integer("correlation_id"), text("name"),
       text("counter"), real("value"), text("units"), time("start"), time("end"), integer("id")},
      kCntDb,
      kCntStart,
      kCntEnd,
      kCntGpu,
      -1,
      -1};
  return table;
}

const CanonicalTable& hip_events_table() {
  static const CanonicalTable table{
      TableKind::HipEvents,
      "rocpd_hip_events",
      {text("db"), integer("pid"), integer("gpu"), integer("queue"), text("kind"), text("name"), time("start"),
       time("end"), integer("correlation_id"), integer("id")},
      kHevDb,
      kHevStart,
      kHevEnd,
      kHevGpu,
      -1,
      -1};
  return table;
}

}  // namespace

const std::array<const CanonicalTable*, kTableKinds>& canonical_tables() {
  static const std::array<const CanonicalTable*, kTableKinds> tables = {
      &ops_table(),    &apis_table(),     &kernels_table(),   &copies_table(),
      &memory_table(), &counters_table(), &hip_events_table()};
  return tables;
}

const CanonicalTable& table_of(TableKind kind) { return *canonical_tables()[static_cast<size_t>(kind)]; }

std::string declare_sql(const CanonicalTable& table) {
  std::string sql = "CREATE TABLE x(";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (i) sql += ", ";
    sql += '"';
    sql += table.columns[i].name;
    sql += "\" ";
    sql += table.columns[i].decl;
  }
  return sql + ")";
}

}  // namespace rocpd::canonical
