// interval_union(start, end [, lo, hi]): the length in ns of the union of the rows' intervals
// [start, end), each clipped to its row's [lo, hi) (a NULL bound leaves that side open).
// Rows with a NULL start or end, and rows with end <= start, cover nothing.
//
// As an aggregate it collects the intervals and sorts them once at the end (skipped when they
// arrived sorted, e.g. from an index or ORDER BY), so O(n log n), O(n) on sorted input.
// As a window function it keeps the frame in arrival order: frames that only grow (running
// totals, the default frame) cost O(log n) per row through an incremental union; when rows leave
// the frame (xInverse) the next value rebuilds the union of the frame, O(k log k) for k rows.
#include <fmt/format.h>

#include <limits>
#include <memory>
#include <vector>

#include "common/interval_math.h"
#include "intervals/register.h"
#include "analysis/sql_args.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

constexpr const char* kName = "interval_union";

struct UnionState {
  std::vector<Interval> frame;  // one entry per row (empty ones too, so xInverse can count rows)
  size_t first = 0;             // frame[0, first) has left the window frame
  IncrementalUnion running;     // union of frame[first, running_upto) when running_valid
  size_t running_upto = 0;
  bool running_valid = false;
};

UnionState* state(sqlite3_context* ctx, bool create) {
  auto** slot = static_cast<UnionState**>(sqlite3_aggregate_context(ctx, create ? sizeof(UnionState*) : 0));
  if (!slot) {
    if (create) throw std::bad_alloc();
    return nullptr;
  }
  if (!*slot && create) *slot = new UnionState();
  return *slot;
}

Interval row_interval(int argc, sqlite3_value** argv) {
  const auto start = int64_arg(argv[0], kName, "start");
  const auto end = int64_arg(argv[1], kName, "end");
  if (!start || !end) return {0, 0};
  Interval iv{*start, *end};
  if (argc == 4) {
    const auto lo = int64_arg(argv[2], kName, "lo");
    const auto hi = int64_arg(argv[3], kName, "hi");
    iv = clip(iv, lo.value_or(kNoLo), hi.value_or(kNoHi));
  }
  return iv.empty() ? Interval{0, 0} : iv;
}

void result_length(sqlite3_context* ctx, uint64_t length) {
  if (length > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw Error(fmt::format("{}: the union is {} ns long, more than an integer holds (INT64_MAX = {})", kName,
                            length, std::numeric_limits<int64_t>::max()));
  sqlite3_result_int64(ctx, static_cast<int64_t>(length));
}

void step(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    const Interval iv = row_interval(argc, argv);
    state(ctx, true)->frame.push_back(iv);
  });
}

void inverse(sqlite3_context* ctx, int, sqlite3_value**) {
  guard(ctx, [&] {
    // SQLite removes rows in the order it added them, so the oldest row leaves.
    UnionState* s = state(ctx, false);
    if (!s || s->first >= s->frame.size()) throw Error("interval_union: window frame underflow");
    ++s->first;
    s->running_valid = false;
    if (s->first > 4096 && s->first * 2 > s->frame.size()) {  // drop the departed prefix
      s->frame.erase(s->frame.begin(), s->frame.begin() + static_cast<std::ptrdiff_t>(s->first));
      s->first = 0;
    }
  });
}

void value(sqlite3_context* ctx) {
  guard(ctx, [&] {
    UnionState* s = state(ctx, false);
    if (!s) return sqlite3_result_int64(ctx, 0);
    if (!s->running_valid) {
      s->running.clear();
      s->running_upto = s->first;
      s->running_valid = true;
    }
    for (; s->running_upto < s->frame.size(); ++s->running_upto) s->running.insert(s->frame[s->running_upto]);
    result_length(ctx, s->running.length());
  });
}

void final(sqlite3_context* ctx) {
  guard(ctx, [&] {
    auto** slot = static_cast<UnionState**>(sqlite3_aggregate_context(ctx, 0));
    std::unique_ptr<UnionState> s(slot ? *slot : nullptr);
    if (slot) *slot = nullptr;  // owned here now; SQLite frees only the slot
    if (!s) return sqlite3_result_int64(ctx, 0);  // no rows: the empty union
    std::span<Interval> rows(s->frame.begin() + static_cast<std::ptrdiff_t>(s->first), s->frame.end());
    result_length(ctx, union_length(rows));
  });
}

}  // namespace

void register_interval_union(sqlite3* db) {
  for (int argc : {2, 4}) {
    int rc = sqlite3_create_window_function(db, kName, argc, kPureFunction, nullptr, step, final, value, inverse,
                                            nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kName, sqlite3_errmsg(db)), rc);
  }
}

}  // namespace rocpd::intervals
