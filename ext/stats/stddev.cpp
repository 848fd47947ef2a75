// SQL aggregate stddev(x): sample standard deviation (divisor n - 1) by Welford's update, NULL for
// fewer than two values; also a window function (with an inverse step for sliding frames).
#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "stats/running_stddev.h"
#include "stats/stats_args.h"

namespace rocpd::stats {
namespace {

std::optional<long double> read_value(sqlite3_value* v) {
  auto n = read_number(v, "stddev");
  if (!n) return std::nullopt;
  return std::visit([](auto x) { return static_cast<long double>(x); }, *n);
}

void result_stddev(sqlite3_context* ctx, const RunningStddev* state) {
  auto sd = state ? state->sample_stddev() : std::nullopt;
  if (!sd) return sqlite3_result_null(ctx);
  sqlite3_result_double(ctx, *sd);
}

void stddev_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto x = read_value(argv[0]);
    auto& state = aggregate_state<RunningStddev>(ctx);
    if (x) state.add(*x);
  });
}
void stddev_inverse(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto x = read_value(argv[0]);
    if (x) aggregate_state<RunningStddev>(ctx).remove(*x);
  });
}
void stddev_value(sqlite3_context* ctx) {
  guard(ctx, [&] { result_stddev(ctx, existing_aggregate_state<RunningStddev>(ctx)); });
}
void stddev_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto state = take_aggregate_state<RunningStddev>(ctx);
    result_stddev(ctx, state.get());
  });
}

}  // namespace

void register_stddev(sqlite3* db) {
  int rc = sqlite3_create_window_function(db, "stddev", 1, kPureFunction, nullptr, stddev_step, stddev_final,
                                          stddev_value, stddev_inverse, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("registering stddev: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::stats
