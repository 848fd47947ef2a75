// SQL rocpd_display_name(name): rocpd::names::display_name through the process-wide cache.
#include "names/display_name.h"
#include "names/name_sql_args.h"

namespace rocpd::names {

void display_name_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto name = name_argument(argv[0], "rocpd_display_name");
    if (!name) return sqlite3_result_null(ctx);
    result_name(ctx, argv[0], *name, display_name_cached(*name));
  });
}

}  // namespace rocpd::names
