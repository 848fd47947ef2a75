// SQL aggregates histogram(x, width [, origin]) and histogram_log2(x): the distribution of a column
// as a JSON array of {"lo","hi","count"} buckets (see histogram_buckets.h), expanded into rows
// with json_each(), e.g.
//   SELECT b.value->>'lo', b.value->>'count' FROM json_each((SELECT histogram_log2(duration) FROM rocpd_ops)) b;
#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "stats/histogram_buckets.h"
#include "stats/stats_args.h"

namespace rocpd::stats {
namespace {

// JSON functions recognise the result as JSON (not a string to quote) through the 'J' subtype.
#ifdef SQLITE_RESULT_SUBTYPE
constexpr int kJsonResultFlags = kPureFunction | SQLITE_RESULT_SUBTYPE;
#else
constexpr int kJsonResultFlags = kPureFunction;
#endif
constexpr unsigned kJsonSubtype = 'J';

[[noreturn]] void rethrow(std::string_view fn, const HistogramError& e) {
  throw Error(fmt::format("{}(): {}", fn, e.message));
}

void result_json(sqlite3_context* ctx, const std::string& json) {
  sqlite3_result_text64(ctx, json.data(), json.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  sqlite3_result_subtype(ctx, kJsonSubtype);
}

struct FixedState {
  std::optional<FixedHistogram> histogram;
  Number width{std::int64_t{0}}, origin{std::int64_t{0}};
};

Number required_parameter(sqlite3_value* v, std::string_view what) {
  auto n = read_number(v, "histogram", what);
  if (!n) throw Error(fmt::format("histogram(): {} must be a number, got NULL", what));
  return *n;
}

void histogram_step(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto& state = aggregate_state<FixedState>(ctx);
    const Number width = required_parameter(argv[1], "width");
    const Number origin = argc > 2 ? required_parameter(argv[2], "origin") : Number{std::int64_t{0}};
    try {
      if (!state.histogram) {
        state.histogram.emplace(width, origin);
        state.width = width;
        state.origin = origin;
      } else if (width != state.width || origin != state.origin) {
        throw Error(fmt::format(
            "histogram(): width and origin must be the same for every row of a group, got {}, {} then {}, {}",
            describe_number(state.width), describe_number(state.origin), describe_number(width),
            describe_number(origin)));
      }
      auto x = read_number(argv[0], "histogram");
      if (x) std::visit([&](auto v) { state.histogram->add(v); }, *x);
    } catch (const HistogramError& e) {
      rethrow("histogram", e);
    }
  });
}

void histogram_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto state = take_aggregate_state<FixedState>(ctx);
    if (!state || !state->histogram) return result_json(ctx, "[]");
    try {
      result_json(ctx, state->histogram->to_json());
    } catch (const HistogramError& e) {
      rethrow("histogram", e);
    }
  });
}

void log2_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    auto x = read_number(argv[0], "histogram_log2");
    auto& state = aggregate_state<Log2Histogram>(ctx);
    try {
      if (x) std::visit([&](auto v) { state.add(v); }, *x);
    } catch (const HistogramError& e) {
      rethrow("histogram_log2", e);
    }
  });
}

void log2_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto state = take_aggregate_state<Log2Histogram>(ctx);
    result_json(ctx, state ? state->to_json() : std::string("[]"));
  });
}

}  // namespace

void register_histogram(sqlite3* db) {
  int rc = SQLITE_OK;
  for (int argc : {2, 3}) {
    if (rc == SQLITE_OK) {
      rc = sqlite3_create_function(db, "histogram", argc, kJsonResultFlags, nullptr, nullptr, histogram_step,
                                   histogram_final);
    }
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, "histogram_log2", 1, kJsonResultFlags, nullptr, nullptr, log2_step,
                                 log2_final);
  }
  if (rc != SQLITE_OK) throw Error(fmt::format("registering histogram: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::stats
