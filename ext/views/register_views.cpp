// Installs the analysis views of sql/views/ (embedded at build time) as TEMP views, in file
// order, so every connection that loads the extension can query them by name.
#include <fmt/format.h>

#include "common/sqlite_util.h"

namespace {
struct EmbeddedSql {
  const char* file;
  const char* sql;
};
constexpr EmbeddedSql kViews[] = {
#include "views_sql.inc"
    {nullptr, nullptr}};
}  // namespace

int rocpd_register_views(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    for (const auto& view : kViews) {
      if (!view.file) break;
      rocpd::exec(db, view.sql, fmt::format("rocpd_ext: installing sql/views/{}", view.file));
    }
    return SQLITE_OK;
  });
}
