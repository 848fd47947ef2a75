// SQL rocpd_version() and rocpd_build_info() (JSON text; see build_info.h).
#include "names/build_info.h"

#include "common/sqlite_util.h"

namespace rocpd::names {

void rocpd_version_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** /*argv*/) {
  sqlite3_result_text(ctx, rocpd_version_string(), -1, SQLITE_STATIC);
}

void rocpd_build_info_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** /*argv*/) {
  guard(ctx, [&] {
    const std::string json = build_info_json(SQLITE_VERSION, sqlite3_libversion());
    sqlite3_result_text64(ctx, json.data(), json.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    sqlite3_result_subtype(ctx, 'J');  // JSON for json_* functions
  });
}

}  // namespace rocpd::names
