#include "federation/canonical_tables.h"

namespace rocpd::federation {

const CanonicalTable& ops_table() {
  static const CanonicalTable table{
      TableKind::Ops,
      "rocpd_ops",
      {{"db", "TEXT", true},
       {"pid", "INTEGER", false},
       {"gpu", "INTEGER", false},
       {"queue", "INTEGER", false},
       {"stream", "INTEGER", false},
       {"kind", "TEXT", true},
       {"name", "TEXT", true},
       {"demangled", "TEXT", true},
       {"start", "INTEGER", false},
       {"end", "INTEGER", false},
       {"duration", "INTEGER", false},
       {"correlation_id", "INTEGER", false},
       {"op_id", "INTEGER", false}},
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
      {{"db", "TEXT", true},
       {"pid", "INTEGER", false},
       {"tid", "INTEGER", false},
       {"domain", "TEXT", true},
       {"category", "TEXT", true},
       {"name", "TEXT", true},
       {"args", "TEXT", true},
       {"start", "INTEGER", false},
       {"end", "INTEGER", false},
       {"duration", "INTEGER", false},
       {"correlation_id", "INTEGER", false},
       {"api_id", "INTEGER", false}},
      kApisDb,
      kApisStart,
      kApisEnd,
      -1,
      -1,
      -1};
  return table;
}

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

}  // namespace rocpd::federation
