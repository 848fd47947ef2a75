// SQL demangle(name): rocpd::names::demangle through the process-wide cache.
#include "names/demangle.h"
#include "names/name_sql_args.h"

namespace rocpd::names {

void demangle_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto name = name_argument(argv[0], "demangle");
    if (!name) return sqlite3_result_null(ctx);
    result_name(ctx, argv[0], *name, demangle_cached(*name));
  });
}

}  // namespace rocpd::names
