// Reading numeric SQL arguments for the stats aggregates, with errors that name the function.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/sqlite_util.h"
#include "stats/percentile_select.h"

namespace rocpd::stats {

// The number in `v` (INTEGER, REAL, or text that SQLite reads as a number, e.g. from a CSV import);
// nullopt for NULL. Anything else throws rocpd::Error "<fn>(): <what> must be a number, got ...".
std::optional<Number> read_number(sqlite3_value* v, std::string_view fn, std::string_view what = "value");

// How a SQL value is shown in an error message: 42, 1.5, 'text' (shortened), NULL, a blob.
std::string describe_value(sqlite3_value* v);

// Text form of a Number for error messages.
std::string describe_number(Number n);

// Sets the SQL result to an INTEGER or REAL.
void result_number(sqlite3_context* ctx, Number n);
// The same, NULL when there is no number (a figure of no value).
void result_number(sqlite3_context* ctx, const std::optional<Number>& n);

// The state of one aggregate group, owned through the pointer SQLite keeps in the aggregate context:
// aggregate_state() creates it on first use (xStep, xInverse), existing_aggregate_state() peeks
// (xValue; nullptr when no row came), take_aggregate_state() hands ownership to xFinal.
template <class State>
State& aggregate_state(sqlite3_context* ctx) {
  auto** slot = static_cast<State**>(sqlite3_aggregate_context(ctx, sizeof(State*)));
  if (!slot) throw Error("out of memory", SQLITE_NOMEM);
  if (!*slot) *slot = new State();
  return **slot;
}
template <class State>
State* existing_aggregate_state(sqlite3_context* ctx) {
  auto** slot = static_cast<State**>(sqlite3_aggregate_context(ctx, 0));
  return slot ? *slot : nullptr;
}
template <class State>
std::unique_ptr<State> take_aggregate_state(sqlite3_context* ctx) {
  auto** slot = static_cast<State**>(sqlite3_aggregate_context(ctx, 0));
  if (!slot) return nullptr;
  std::unique_ptr<State> owned(*slot);
  *slot = nullptr;
  return owned;
}

}  // namespace rocpd::stats
