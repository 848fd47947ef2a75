// SQL functions rocpd_stats_state(x) (aggregate -> state BLOB), rocpd_stats_merge(state)
// (aggregate over states -> state BLOB) and rocpd_stats_get(state, what) (scalar): job-wide
// statistics computed per member and merged anywhere (docs/states.md). The state itself is
// StatsState (stats_state.h). Aggregates only: a window frame would re-serialize up to 64 KiB per
// row, and the sketch cannot forget a value that leaves a sliding frame.
#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "common/state_blob.h"
#include "common/sqlite_util.h"
#include "stats/stats_args.h"
#include "stats/stats_state.h"

namespace rocpd::stats {
namespace {

constexpr const char* kStateFn = "rocpd_stats_state";
constexpr const char* kMergeFn = "rocpd_stats_merge";
constexpr const char* kGetFn = "rocpd_stats_get";

// Runs `body`, turning the state's own exceptions into errors naming `fn`.
template <class F>
auto named(std::string_view fn, F&& body) {
  try {
    return body();
  } catch (const state_blob::FormatError& e) {
    throw Error(fmt::format("{}(): argument 1 {}", fn, e.what()));
  } catch (const std::overflow_error& e) {
    throw Error(fmt::format("{}(): {}", fn, e.what()));
  }
}

void result_state(sqlite3_context* ctx, const StatsState& state) {
  const std::vector<std::uint8_t> bytes = state.to_blob();
  sqlite3_result_blob64(ctx, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
}

// The state in argument 1; nullopt for NULL.
std::optional<StatsState> read_state(sqlite3_value* v, std::string_view fn) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  if (sqlite3_value_type(v) != SQLITE_BLOB)
    throw Error(fmt::format("{}(): argument 1 must be a rocpd_stats state (a BLOB from rocpd_stats_state or "
                            "rocpd_stats_merge), got {}",
                            fn, describe_value(v)));
  const auto* data = static_cast<const std::uint8_t*>(sqlite3_value_blob(v));
  const std::span<const std::uint8_t> bytes(data, data ? static_cast<std::size_t>(sqlite3_value_bytes(v)) : 0);
  return named(fn, [&] { return StatsState::from_blob(bytes); });
}

void state_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto x = read_number(argv[0], kStateFn);
    auto& state = aggregate_state<StatsState>(ctx);
    if (x) named(kStateFn, [&] { std::visit([&](auto v) { state.add(v); }, *x); });
  });
}

void merge_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto in = read_state(argv[0], kMergeFn);
    auto& state = aggregate_state<StatsState>(ctx);
    if (in) named(kMergeFn, [&] { state.merge(*in); });
  });
}

// xFinal of both aggregates: a group without rows (or only NULLs) is the empty state, count 0.
void state_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto state = take_aggregate_state<StatsState>(ctx);
    if (!state) state = std::make_unique<StatsState>();
    result_state(ctx, *state);
  });
}

struct What {
  enum Kind { kCount, kSum, kMin, kMax, kMean, kStddev, kQuantile } kind;
  double p = 0;
};

What read_what(sqlite3_value* v) {
  auto refuse = [&] {
    return Error(fmt::format("{}(): what must be 'count', 'sum', 'min', 'max', 'mean', 'stddev', 'median' or "
                             "'p<N>' with N in [0, 100] (e.g. 'p90', 'p99.9'), got {}",
                             kGetFn, describe_value(v)));
  };
  if (sqlite3_value_type(v) != SQLITE_TEXT) throw refuse();
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  const std::string_view text(p ? p : "", p ? static_cast<std::size_t>(sqlite3_value_bytes(v)) : 0);
  static constexpr std::pair<std::string_view, What> kNames[] = {
      {"count", {What::kCount}}, {"sum", {What::kSum}},       {"min", {What::kMin}},
      {"max", {What::kMax}},     {"mean", {What::kMean}},     {"stddev", {What::kStddev}},
      {"median", {What::kQuantile, 50.0}}};
  for (const auto& [name, what] : kNames)
    if (text == name) return what;
  // p<digits>[.<digits>]: the decimal text of the p that percentile(x, p) would be given.
  const std::string_view number = text.substr(text.empty() ? 0 : 1);
  const std::size_t dot = number.find('.');
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (text.empty() || text[0] != 'p' || !digits(number.substr(0, dot)) ||
      (dot != std::string_view::npos && !digits(number.substr(dot + 1))))
    throw refuse();
  What what{What::kQuantile};
  const auto parsed = std::from_chars(number.data(), number.data() + number.size(), what.p, std::chars_format::fixed);
  if (parsed.ec != std::errc() || parsed.ptr != number.data() + number.size() || !(what.p >= 0 && what.p <= 100))
    throw refuse();
  return what;
}

void result_optional(sqlite3_context* ctx, const std::optional<Number>& n) {
  if (!n) return sqlite3_result_null(ctx);
  result_number(ctx, *n);
}

void get(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const What what = read_what(argv[1]);
    const auto state = read_state(argv[0], kGetFn);
    if (!state) return sqlite3_result_null(ctx);
    switch (what.kind) {
      case What::kCount:
        if (state->count() > static_cast<std::uint64_t>(INT64_MAX))
          throw Error(fmt::format("{}(): integer overflow: count {} does not fit in a 64-bit integer", kGetFn,
                                  state->count()));
        return sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(state->count()));
      case What::kSum:
        return result_optional(ctx, named(kGetFn, [&] { return state->sum(); }));
      case What::kMin:
        return result_optional(ctx, state->min());
      case What::kMax:
        return result_optional(ctx, state->max());
      case What::kMean:
        return result_optional(ctx, state->mean());
      case What::kStddev:
        return result_optional(ctx, state->stddev());
      case What::kQuantile:
        return result_optional(ctx, state->quantile(what.p));
    }
  });
}

}  // namespace

void register_stats_states(sqlite3* db) {
  int rc = sqlite3_create_function(db, kStateFn, 1, kPureFunction, nullptr, nullptr, state_step, state_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, kMergeFn, 1, kPureFunction, nullptr, nullptr, merge_step, state_final);
  if (rc == SQLITE_OK) rc = sqlite3_create_function(db, kGetFn, 2, kPureFunction, nullptr, get, nullptr, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("registering rocpd_stats_state/merge/get: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::stats
