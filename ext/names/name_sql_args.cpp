#include "names/name_sql_args.h"

#include <fmt/format.h>

namespace rocpd::names {

std::optional<std::string_view> name_argument(sqlite3_value* value, const char* function) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_NULL:
      return std::nullopt;
    case SQLITE_TEXT: {
      const auto* bytes = reinterpret_cast<const char*>(sqlite3_value_text(value));
      if (bytes == nullptr) throw std::bad_alloc();
      return std::string_view(bytes, static_cast<std::size_t>(sqlite3_value_bytes(value)));
    }
    case SQLITE_INTEGER:
      throw Error(fmt::format("{}(): name must be text or NULL, got integer {}", function, sqlite3_value_int64(value)));
    case SQLITE_FLOAT:
      throw Error(fmt::format("{}(): name must be text or NULL, got real {}", function, sqlite3_value_double(value)));
    default:
      throw Error(fmt::format("{}(): name must be text or NULL, got a blob of {} bytes", function,
                              sqlite3_value_bytes(value)));
  }
}

void result_name(sqlite3_context* ctx, sqlite3_value* argument, std::string_view argument_text,
                 const std::string& text) {
  if (text == argument_text) {
    sqlite3_result_value(ctx, argument);
    return;
  }
  sqlite3_result_text64(ctx, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

}  // namespace rocpd::names
