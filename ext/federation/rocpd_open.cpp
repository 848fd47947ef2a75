// rocpd_open(pattern) and rocpd_close([db]): members opened on private read-only connections;
// rocpd_last_scan(): what the last federated scan read.
// Both touch the file system, so they are DIRECTONLY: a hostile database's views or triggers
// cannot call them.
#include "federation/rocpd_open.h"

#include <fmt/format.h>

namespace rocpd::federation {

namespace {

members::Registry& registry_of(sqlite3_context* ctx) { return *static_cast<std::shared_ptr<members::Registry>*>(sqlite3_user_data(ctx))->get(); }

void rocpd_open_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
      throw Error("rocpd_open(pattern): pattern must be text (a file, a glob or a directory)");
    const char* pattern = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    members::InterruptWatch watch(sqlite3_context_db_handle(ctx));
    sqlite3_result_int(ctx, registry_of(ctx).open(pattern, &watch));
  });
}

void rocpd_close_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (argc == 0) {
      sqlite3_result_int(ctx, registry_of(ctx).close_all());
      return;
    }
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) throw Error("rocpd_close(db): db must be text, a member name");
    sqlite3_result_int(ctx, registry_of(ctx).close(reinterpret_cast<const char*>(sqlite3_value_text(argv[0]))));
  });
}

// JSON of what the last rocpd_ops/rocpd_apis scan read: how many members it skipped unread.
void rocpd_last_scan_fn(sqlite3_context* ctx, int, sqlite3_value**) {
  guard(ctx, [&] {
    const auto& s = registry_of(ctx).last_scan;
    std::string json =
        fmt::format(R"({{"table":"{}","members":{},"skipped":{},"queries":{},"rows":{},"parallel":{},)"
                    R"("filters":{},"prepared":{},"indexed_lookups":{})",
                    s.table, s.members, s.skipped, s.ranges, s.rows, s.parallel, s.filters, s.prepared,
                    s.indexed_lookups);
    // Grouped scans only (docs/federation.md, "Grouped scans").
    if (s.groups >= 0)
      json += s.spilled ? std::string(R"(,"grouped":true,"groups":null,"spilled":true)")
                        : fmt::format(R"(,"grouped":true,"groups":{},"spilled":false)", s.groups);
    json += '}';
    sqlite3_result_text(ctx, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

int register_rocpd_open(sqlite3* db, const std::shared_ptr<members::Registry>& registry) {
  auto destroy = [](void* p) { delete static_cast<std::shared_ptr<members::Registry>*>(p); };
  int rc = sqlite3_create_function_v2(db, "rocpd_open", 1, kFileFunction, new std::shared_ptr<members::Registry>(registry),
                                      rocpd_open_fn, nullptr, nullptr, destroy);
  for (int argc : {0, 1})
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_close", argc, kFileFunction, new std::shared_ptr<members::Registry>(registry),
                                      rocpd_close_fn, nullptr, nullptr, destroy);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "rocpd_last_scan", 0, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                    new std::shared_ptr<members::Registry>(registry), rocpd_last_scan_fn, nullptr, nullptr,
                                    destroy);
  return rc;
}

}  // namespace rocpd::federation
