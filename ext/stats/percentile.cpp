// SQL aggregates median(x) and percentile(x, p), also usable as window functions.
// Values are collected per group and the quantile is found by selection (O(n), see
// percentile_select.h), not by sorting. NULLs are skipped; a group without values gives NULL.
#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "stats/percentile_select.h"
#include "stats/stats_args.h"

namespace rocpd::stats {
namespace {

struct QuantileState {
  QuantileValues values;
  std::optional<Number> p;  // percentile(): the p of the first row, to check the others against
  // Window frames that span the whole partition ask xValue once per row with no step in between:
  // the last answer is kept until the values change, so such a partition costs O(n), not O(n^2).
  bool cached = false;
  std::optional<Number> cached_result;
};

void add_value(QuantileState& state, sqlite3_value* v, std::string_view fn) {
  auto n = read_number(v, fn);
  if (!n) return;
  std::visit([&](auto x) { state.values.add(x); }, *n);
  state.cached = false;
}

void remove_value(QuantileState& state, sqlite3_value* v, std::string_view fn) {
  auto n = read_number(v, fn);
  if (!n) return;
  state.cached = false;
  bool found = std::visit([&](auto x) { return state.values.remove(x); }, *n);
  if (!found) throw Error(fmt::format("{}(): window frame lost track of value {}", fn, describe_number(*n)));
}

// p must be a constant in [0, 100] for the whole group (as in SQLite's own percentile()).
double checked_p(QuantileState& state, sqlite3_value* arg) {
  const std::string shown = describe_value(arg);  // before read_number() converts numeric text
  auto out_of_range = [&] {
    return Error(fmt::format("percentile(): p must be a number between 0 and 100, got {}", shown));
  };
  std::optional<Number> p;
  try {
    p = read_number(arg, "percentile", "p");
  } catch (const Error&) {
    throw out_of_range();
  }
  const double as_double = p ? std::visit([](auto x) { return static_cast<double>(x); }, *p) : 0.0;
  if (!p || !(as_double >= 0.0 && as_double <= 100.0)) {
    throw out_of_range();
  }
  if (!state.p) {
    state.p = p;
  } else if (std::visit([](auto x) { return static_cast<double>(x); }, *state.p) != as_double) {
    throw Error(fmt::format("percentile(): p must be the same for every row of a group, got {} then {}",
                            describe_number(*state.p), describe_number(*p)));
  }
  return as_double;
}

void result_quantile(sqlite3_context* ctx, QuantileState* state, double p) {
  if (!state) return sqlite3_result_null(ctx);
  if (!state->cached) {
    state->cached_result = state->values.percentile(p);
    state->cached = true;
  }
  if (!state->cached_result) return sqlite3_result_null(ctx);
  result_number(ctx, *state->cached_result);
}

double state_p(const QuantileState* state) {
  if (!state || !state->p) return 0.0;  // no row arrived: the result is NULL anyway
  return std::visit([](auto x) { return static_cast<double>(x); }, *state->p);
}

void median_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] { add_value(aggregate_state<QuantileState>(ctx), argv[0], "median"); });
}
void median_inverse(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] { remove_value(aggregate_state<QuantileState>(ctx), argv[0], "median"); });
}
void median_value(sqlite3_context* ctx) {
  guard(ctx, [&] { result_quantile(ctx, existing_aggregate_state<QuantileState>(ctx), 50.0); });
}
void median_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto state = take_aggregate_state<QuantileState>(ctx);
    result_quantile(ctx, state.get(), 50.0);
  });
}

void percentile_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto& state = aggregate_state<QuantileState>(ctx);
    checked_p(state, argv[1]);
    add_value(state, argv[0], "percentile");
  });
}
void percentile_inverse(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] { remove_value(aggregate_state<QuantileState>(ctx), argv[0], "percentile"); });
}
void percentile_value(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto* state = existing_aggregate_state<QuantileState>(ctx);
    result_quantile(ctx, state, state_p(state));
  });
}
void percentile_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto state = take_aggregate_state<QuantileState>(ctx);
    result_quantile(ctx, state.get(), state_p(state.get()));
  });
}

}  // namespace

void register_percentile(sqlite3* db) {
  int rc = sqlite3_create_window_function(db, "median", 1, kPureFunction, nullptr, median_step, median_final,
                                          median_value, median_inverse, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_window_function(db, "percentile", 2, kPureFunction, nullptr, percentile_step,
                                        percentile_final, percentile_value, percentile_inverse, nullptr);
  }
  if (rc != SQLITE_OK) throw Error(fmt::format("registering median/percentile: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::stats
