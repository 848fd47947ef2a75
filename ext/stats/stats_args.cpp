#include "stats/stats_args.h"
#include "common/terminal_text.h"

#include <fmt/format.h>

#include <cmath>

namespace rocpd::stats {

std::string describe_number(Number n) {
  if (auto* i = std::get_if<std::int64_t>(&n)) return fmt::format("{}", *i);
  return fmt::format("{}", std::get<double>(n));
}

std::string describe_value(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      return "NULL";
    case SQLITE_INTEGER:
      return fmt::format("{}", sqlite3_value_int64(v));
    case SQLITE_FLOAT:
      return fmt::format("{}", sqlite3_value_double(v));
    case SQLITE_BLOB:
      return fmt::format("a blob of {} bytes", sqlite3_value_bytes(v));
    default: {
      auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
      return "text " + quoted_text(std::string_view(p ? p : "", p ? static_cast<std::size_t>(sqlite3_value_bytes(v)) : 0));
    }
  }
}

std::optional<Number> read_number(sqlite3_value* v, std::string_view fn, std::string_view what) {
  // Describe before numeric_type(): that call may convert the value in place.
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      return std::nullopt;
    case SQLITE_INTEGER:
      return Number{sqlite3_value_int64(v)};
    case SQLITE_FLOAT:
      return Number{sqlite3_value_double(v)};
    case SQLITE_TEXT: {
      std::string shown = describe_value(v);
      switch (sqlite3_value_numeric_type(v)) {
        case SQLITE_INTEGER:
          return Number{sqlite3_value_int64(v)};
        case SQLITE_FLOAT:
          return Number{sqlite3_value_double(v)};
        default:
          throw Error(fmt::format("{}(): {} must be a number, got {}", fn, what, shown));
      }
    }
    default:
      throw Error(fmt::format("{}(): {} must be a number, got {}", fn, what, describe_value(v)));
  }
}

void result_number(sqlite3_context* ctx, Number n) {
  if (auto* i = std::get_if<std::int64_t>(&n)) {
    sqlite3_result_int64(ctx, *i);
  } else {
    sqlite3_result_double(ctx, std::get<double>(n));
  }
}

void result_number(sqlite3_context* ctx, const std::optional<Number>& n) {
  if (n) result_number(ctx, *n);
  else sqlite3_result_null(ctx);
}

}  // namespace rocpd::stats
