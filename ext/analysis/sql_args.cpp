#include "analysis/sql_args.h"
#include "common/terminal_text.h"

#include <fmt/format.h>

#include <cmath>

namespace rocpd::analysis {

std::optional<int64_t> int64_arg(sqlite3_value* v, const char* fn, const char* what, const char* unit) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      return std::nullopt;
    case SQLITE_INTEGER:
      return sqlite3_value_int64(v);
    case SQLITE_FLOAT: {
      const double d = sqlite3_value_double(v);
      // [-2^63, 2^63) is exactly the doubles that convert to int64 without overflow.
      if (std::isfinite(d) && d == std::floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
        return static_cast<int64_t>(d);
      throw Error(fmt::format("{}: {} must be an integer ({}), got real {}", fn, what, unit, d));
    }
    case SQLITE_TEXT: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
      throw Error(fmt::format("{}: {} must be an integer ({}), got text {}", fn, what, unit,
                              quoted_text(std::string_view(text ? text : "",
                                                           text ? static_cast<size_t>(sqlite3_value_bytes(v)) : 0))));
    }
    default:
      throw Error(fmt::format("{}: {} must be an integer ({}), got a blob", fn, what, unit));
  }
}

}  // namespace rocpd::analysis
