// rocpd_union (name fixed by design.md), one module with two forms:
//  - bare, table-valued: SELECT * FROM rocpd_union('top'|'ktop'|'copies'|'apis'|'markers')
//    returns the canonical summary row per member (rocpd_union_summary.cpp);
//  - named: CREATE VIRTUAL TABLE temp.x USING rocpd_union(<table or view>) unions that object
//    across members with a leading db column and the object's own columns (rocpd_union_named.cpp).
//
// Hand-written sqlite3_modules (federation core): the named form is made by CREATE VIRTUAL TABLE
// with columns of the object it unions and pushes constraints into each member's SQL, which no
// analysis template (fixed schema, rows computed from members) can express.
#pragma once
#include <memory>

#include "members/registry.h"

namespace rocpd::federation {

int register_rocpd_union(sqlite3* db, const std::shared_ptr<members::Registry>& registry);

// The two forms, as sqlite3_module method sets sharing one vtab header.
struct UnionVtab : sqlite3_vtab {
  std::shared_ptr<members::Registry> registry;
  bool named = false;
};
extern const sqlite3_module kUnionSummaryMethods;
extern const sqlite3_module kUnionNamedMethods;
int union_summary_connect(sqlite3* db, const std::shared_ptr<members::Registry>& reg, sqlite3_vtab** out);
int union_named_connect(sqlite3* db, const std::shared_ptr<members::Registry>& reg, const std::string& schema,
                        const std::string& name, const std::string& object, sqlite3_vtab** out);

}  // namespace rocpd::federation
