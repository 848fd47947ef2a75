// SQL rocpd_duration_text(ns): a length in nanoseconds as the CLI prints it (common/duration_text.h),
// for the figures of rocpd_findings and of a user's own rules (docs/names.md).
#include <cmath>
#include <string>

#include "common/duration_text.h"
#include "common/sqlite_util.h"

namespace rocpd::names {

void duration_text_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  guard(ctx, [&] {
    double ns = 0;
    switch (sqlite3_value_type(argv[0])) {
      case SQLITE_NULL: return sqlite3_result_null(ctx);
      case SQLITE_INTEGER: ns = static_cast<double>(sqlite3_value_int64(argv[0])); break;
      case SQLITE_FLOAT:
        ns = sqlite3_value_double(argv[0]);
        if (!std::isfinite(ns)) throw Error("rocpd_duration_text: ns must be a finite number of nanoseconds");
        break;
      default:
        throw Error(std::string("rocpd_duration_text: ns must be a number of nanoseconds, got ") +
                    (sqlite3_value_type(argv[0]) == SQLITE_TEXT ? "text" : "a blob"));
    }
    const std::string text = duration_text(ns);
    sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace rocpd::names
