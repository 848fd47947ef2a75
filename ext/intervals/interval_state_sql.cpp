// interval_union_state(start, end) (aggregate -> state BLOB), interval_union_merge(state)
// (aggregate over states -> state BLOB), interval_union_length(state) (scalar -> ns): the busy
// time of a job computed per member and merged anywhere (docs/states.md). Rows follow exactly the
// rules of interval_union(start, end): NULL bounds and end <= start cover nothing, times are
// integers. Aggregates only: a window frame would re-serialize the union for every row.
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "common/state_blob.h"
#include "intervals/interval_state.h"
#include "analysis/sql_args.h"
#include "intervals/register.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

constexpr const char* kStateFn = "interval_union_state";
constexpr const char* kMergeFn = "interval_union_merge";
constexpr const char* kLengthFn = "interval_union_length";

IntervalSet& state(sqlite3_context* ctx) {
  auto** slot = static_cast<IntervalSet**>(sqlite3_aggregate_context(ctx, sizeof(IntervalSet*)));
  if (!slot) throw std::bad_alloc();
  if (!*slot) *slot = new IntervalSet();
  return **slot;
}

std::unique_ptr<IntervalSet> take_state(sqlite3_context* ctx) {
  auto** slot = static_cast<IntervalSet**>(sqlite3_aggregate_context(ctx, 0));
  std::unique_ptr<IntervalSet> owned(slot ? *slot : nullptr);
  if (slot) *slot = nullptr;  // owned here now; SQLite frees only the slot
  return owned;
}

std::string describe(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      return fmt::format("integer {}", sqlite3_value_int64(v));
    case SQLITE_FLOAT:
      return fmt::format("real {}", sqlite3_value_double(v));
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
      return fmt::format("text '{:.40}'", text ? text : "");
    }
  }
}

// The busy intervals of the state in argument 1; nullopt for NULL.
std::optional<std::vector<Interval>> read_state(sqlite3_value* v, const char* fn) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type != SQLITE_BLOB)
    throw Error(fmt::format("{}: argument 1 must be an interval_union state (a BLOB from interval_union_state or "
                            "interval_union_merge), got {}",
                            fn, describe(v)));
  const auto* data = static_cast<const uint8_t*>(sqlite3_value_blob(v));
  try {
    return IntervalSet::from_blob({data, data ? static_cast<std::size_t>(sqlite3_value_bytes(v)) : 0});
  } catch (const state_blob::FormatError& e) {
    throw Error(fmt::format("{}: argument 1 {}", fn, e.what()));
  }
}

void state_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const auto start = int64_arg(argv[0], kStateFn, "start");
    const auto end = int64_arg(argv[1], kStateFn, "end");
    IntervalSet& set = state(ctx);
    if (start && end) set.add(Interval{*start, *end});
  });
}

void merge_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const auto ivs = read_state(argv[0], kMergeFn);
    IntervalSet& set = state(ctx);
    if (ivs) set.add(*ivs);
  });
}

// xFinal of both aggregates: no rows (or only empty ones) is the empty union.
void state_final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto set = take_state(ctx);
    const std::vector<uint8_t> bytes = set ? set->to_blob() : IntervalSet{}.to_blob();
    sqlite3_result_blob64(ctx, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  });
}

void length(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const auto ivs = read_state(argv[0], kLengthFn);
    if (!ivs) return sqlite3_result_null(ctx);
    uint64_t total = 0;
    for (const Interval& iv : *ivs) total += iv.length();  // disjoint: at most 2^64 - 1
    if (total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw Error(fmt::format("{}: the union is {} ns long, more than an integer holds (INT64_MAX = {})", kLengthFn,
                              total, std::numeric_limits<int64_t>::max()));
    sqlite3_result_int64(ctx, static_cast<int64_t>(total));
  });
}

}  // namespace

void register_interval_states(sqlite3* db) {
  int rc = sqlite3_create_function(db, kStateFn, 2, kPureFunction, nullptr, nullptr, state_step, state_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, kMergeFn, 1, kPureFunction, nullptr, nullptr, merge_step, state_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, kLengthFn, 1, kPureFunction, nullptr, length, nullptr, nullptr);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_ext: registering interval_union_state/merge/length: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::intervals
