// LIKE-pattern arguments (a step pattern, a breakdown's pattern, a kernel name pattern): SQLite's
// LIKE and sqlite3_strlike read a pattern as C text, so a NUL byte inside would silently cut it
// ('%' for char(37, 0, 65)). Every such argument is read here and a NUL is an error naming it.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd {

// The pattern in `v`, or nullopt for NULL (the caller's default). Throws Error "<fn>: <what> must be
// text (a LIKE pattern such as '<example>')" for another type, and "<fn>: <what> holds a NUL byte
// (at byte N): a LIKE pattern ends at its first NUL, ..." for a text with one.
std::optional<std::string> like_pattern_arg(sqlite3_value* v, std::string_view fn, std::string_view what,
                                            std::string_view example);

}  // namespace rocpd
