// Installs the analysis views of sql/views/ (embedded at build time) as TEMP views, in file
// order, so every connection that loads the extension can query them by name; first the SQL names
// they use: the collation rocpd_natural (common/natural_order.h) and rocpd_require_members.
#include "views/register_views.h"

#include "common/natural_order.h"

#include <fmt/format.h>

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
    rocpd::register_natural_collation(db);  // the views order members by it
    rocpd::views::register_rocpd_require_members(db);
    for (const auto& view : kViews) {
      if (!view.file) break;
      rocpd::exec(db, view.sql, fmt::format("rocpd_ext: installing sql/views/{}", view.file));
    }
    return SQLITE_OK;
  });
}
