// Reading nanosecond arguments of the interval functions and tables with exact error texts.
#pragma once
#include <cstdint>
#include <optional>

#include "common/sqlite_util.h"

namespace rocpd::analysis {

// An integer nanosecond value: INTEGER, or a REAL holding an exact integer in int64 range
// (1e9 typed by hand); NULL gives nullopt. Anything else throws
// "<fn>: <what> must be an integer (<unit>), got <type> <value>".
std::optional<int64_t> int64_arg(sqlite3_value* v, const char* fn, const char* what, const char* unit = "ns");

}  // namespace rocpd::analysis
