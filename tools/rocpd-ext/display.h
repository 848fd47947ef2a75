// How the human formats (table, md, html) of `summary` and `compare` show numbers: durations with
// a unit (`1.23 ms`) or in the unit of --timeunit, counts and bytes with thousands separators.
// csv and json print the raw values (integer ns, bytes) under the raw column names.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "result_set.h"

namespace rocpd_cli {

// auto: each duration in the unit that fits it; otherwise every duration in that unit.
enum class TimeUnit { Auto, Ns, Us, Ms, S };
std::optional<TimeUnit> parse_time_unit(std::string_view name);

// What a column holds, from its name (the summary and compare columns follow these rules):
//   Duration   *_ns but the timestamps below                   shown with a unit
//   Timestamp  first_ns, last_ns, start, end, start_ns, end_ns  as SQLite prints them (they are
//              what export's @T and rocpd_ops use)
//   Bytes      *bytes                                          with a unit (kB, MB, GB: powers of 1000)
//   Id         db, gpu, pid, tid, step, queue, stream, rank, ... as SQLite prints them
//   Count      any other integer column                        with thousands separators
enum class ColumnKind { Duration, Timestamp, Bytes, Id, Other };
ColumnKind column_kind(std::string_view column);

// "1.23 ms", "850 ns", "12.346 s" (auto), or the number alone in a fixed unit ("1,234.568").
std::string format_duration(double ns, TimeUnit unit);
std::string format_bytes(double bytes);
// 1234567 -> "1,234,567"
std::string with_separators(std::int64_t v);

// `rs` as the human formats show it: values reformatted (types kept, so numbers stay
// right-aligned), duration columns renamed: `total_ns` -> `total` (auto) or `total_ms`.
ResultSet for_display(const ResultSet& rs, TimeUnit unit);

}  // namespace rocpd_cli
