// The collation rocpd_natural: natural order of names (common/natural_order.h), so that
// `ORDER BY db COLLATE rocpd_natural` lists rank2 before rank10. The views order by it wherever
// they order by member.
#include "views/register_views.h"

#include <fmt/format.h>

#include "common/natural_order.h"

namespace rocpd::views {

void register_rocpd_natural(sqlite3* db) {
  const int rc = sqlite3_create_collation_v2(
      db, "rocpd_natural", SQLITE_UTF8, nullptr,
      [](void*, int na, const void* a, int nb, const void* b) {
        return natural_compare(std::string_view(static_cast<const char*>(a), static_cast<size_t>(na)),
                               std::string_view(static_cast<const char*>(b), static_cast<size_t>(nb)));
      },
      nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering rocpd_natural: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::views
