// SQL kernel_short_name(name): rocpd::names::kernel_short_name through the process-wide cache.
#include "names/demangle.h"
#include "names/name_sql_args.h"

namespace rocpd::names {

void kernel_short_name_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto name = name_argument(argv[0], "kernel_short_name");
    if (!name) return sqlite3_result_null(ctx);
    result_name(ctx, argv[0], *name, kernel_short_name_cached(*name));
  });
}

}  // namespace rocpd::names
