// rocpd_values_percentile(values, p): percentile(x, p) of values handed over as one BLOB of 64-bit
// little-endian integers in ascending order (rocpd_op_groups' and rocpd_api_groups' hidden column
// duration_values). The pushdown's rewrite answers percentile(duration, p) of a group with it: the
// same ranks and exact interpolation as the aggregate (percentile_select.h), read at two positions
// instead of collecting and selecting the group's values once per percentile.
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "stats/percentile_select.h"
#include "stats/stats_args.h"

namespace rocpd::stats {
namespace {

constexpr const char* kFn = "rocpd_values_percentile";

std::int64_t load_le64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return static_cast<std::int64_t>(v);
}

void values_percentile(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const std::string shown_p = describe_value(argv[1]);
    std::optional<Number> p;
    try {
      p = read_number(argv[1], kFn, "p");
    } catch (const Error&) {
    }
    const double pd = p ? std::visit([](auto x) { return static_cast<double>(x); }, *p) : -1.0;
    if (!(pd >= 0.0 && pd <= 100.0))
      throw Error(fmt::format("{}(): p must be a number between 0 and 100, got {}", kFn, shown_p));
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB)
      throw Error(fmt::format("{}(): values must be a BLOB of 64-bit integers (the duration_values column of "
                              "rocpd_op_groups or rocpd_api_groups), got {}",
                              kFn, describe_value(argv[0])));
    const auto* bytes = static_cast<const unsigned char*>(sqlite3_value_blob(argv[0]));
    const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
    if (size % 8 != 0)
      throw Error(fmt::format("{}(): values must be a BLOB of 64-bit integers; {} bytes is not a multiple of 8", kFn, size));
    const std::size_t n = size / 8;
    if (n == 0) return sqlite3_result_null(ctx);  // as percentile() of no value
    std::vector<std::int64_t> sorted(n);
    for (std::size_t i = 0; i < n; ++i) {
      sorted[i] = load_le64(bytes + 8 * i);
      if (i > 0 && sorted[i] < sorted[i - 1])
        throw Error(fmt::format("{}(): values must be in ascending order; value {} ({}) is below value {} ({})", kFn,
                                i + 1, sorted[i], i, sorted[i - 1]));
    }
    result_number(ctx, percentile_of_sorted(sorted.data(), n, pd));
  });
}

}  // namespace

void register_values_percentile(sqlite3* db) {
  const int rc = sqlite3_create_function(db, kFn, 2, kPureFunction, nullptr, values_percentile, nullptr, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("cannot register {}: {}", kFn, sqlite3_errstr(rc)), rc);
}

}  // namespace rocpd::stats
