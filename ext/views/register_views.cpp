// Installs the analysis views of sql/views/ (embedded at build time) as TEMP views, in file
// order, so every connection that loads the extension can query them by name; first the SQL names
// they use: the collation rocpd_natural (common/natural_order.h) and rocpd_require_members.
#include "views/register_views.h"

#include <fmt/format.h>

#include <regex>

#include "common/natural_order.h"
#include "common/sqlite_util.h"
#include "common/temp_clash.h"

namespace {
struct EmbeddedSql {
  const char* file;
  const char* sql;
};
constexpr EmbeddedSql kViews[] = {
#include "views_sql.inc"
    {nullptr, nullptr}};
}  // namespace

namespace {
// A TEMP object the user made before loading under a name our views create (the files say IF NOT
// EXISTS, so that running them again is harmless) or read as temp.<name> would silently stand in
// for ours: refused, named.
void refuse_temp_clashes(sqlite3* db) {
  static const std::regex kNames(R"((?:CREATE\s+TEMP\s+(?:VIEW|TABLE)\s+IF\s+NOT\s+EXISTS\s+|\btemp\.)([A-Za-z_][A-Za-z0-9_]*))",
                                 std::regex::icase);
  for (const auto& view : kViews) {
    if (!view.file) break;
    const std::string sql = view.sql;
    for (std::sregex_iterator it(sql.begin(), sql.end(), kNames), end; it != end; ++it)
      rocpd::refuse_temp_clash(db, (*it)[1].str(), fmt::format("sql/views/{}", view.file));
  }
}
}  // namespace

int rocpd_register_views(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    refuse_temp_clashes(db);
    rocpd::register_natural_collation(db);  // the views order members by it
    rocpd::views::register_rocpd_require_members(db);
    for (const auto& view : kViews) {
      if (!view.file) break;
      rocpd::exec(db, view.sql, fmt::format("rocpd_ext: installing sql/views/{}", view.file));
    }
    return SQLITE_OK;
  });
}
