// Argument checking shared by the SQL name functions.
#pragma once
#include <optional>
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd::names {

// The TEXT argument of `function` as bytes (not re-encoded: invalid UTF-8 is passed through),
// nullopt for NULL; any other type throws, e.g. "demangle(): name must be text or NULL, got
// integer 42" / "... got real 1.5" / "... got a blob of 3 bytes".
std::optional<std::string_view> name_argument(sqlite3_value* value, const char* function);

// Sets the result to `text`, reusing the argument value when nothing changed.
void result_name(sqlite3_context* ctx, sqlite3_value* argument, std::string_view argument_text,
                 const std::string& text);

}  // namespace rocpd::names
