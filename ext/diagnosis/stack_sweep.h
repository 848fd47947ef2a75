// The marker stack of every launch of one thread, in one sweep (no SQLite here; unit-tested
// against a brute force in tests/diagnosis/diagnosis_math_test.cpp).
//
// A range encloses a call when range.start <= call.start and call.end <= range.end (both ends
// inclusive). The stack of a call lists every enclosing range of its thread, outermost first:
// by start ascending, then end descending (the longer one outside), then `order` ascending.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace rocpd::diagnosis {

struct Range {
  int64_t start = 0, end = 0;  // start < end (callers drop marks and reversed ranges)
  uint32_t name = 0;           // caller's name id
  int64_t order = 0;           // tie-break: the range's api_id
};

struct Call {
  int64_t start = 0, end = 0;  // end >= start (callers use start for a missing or reversed end)
  uint32_t id = 0;             // caller's id, handed back to the visitor
};

inline bool outer_first(const Range& a, const Range& b) {
  if (a.start != b.start) return a.start < b.start;
  if (a.end != b.end) return a.end > b.end;
  return a.order < b.order;
}

// Sorts both vectors and calls visit(call_id, stack) for every call, where stack holds indices
// into the sorted `ranges`, outermost first. Cost: O((R + C) log) for the sorts plus, per call,
// the ranges open at its start (the nesting depth for well-nested markers).
template <class Ranges, class Calls, class Visit>
void sweep_thread(Ranges& ranges, Calls& calls, Visit&& visit) {
  // Traces record calls and ranges in time order: checking first skips most sorts.
  if (!std::is_sorted(ranges.begin(), ranges.end(), outer_first)) std::sort(ranges.begin(), ranges.end(), outer_first);
  const auto call_order = [](const Call& a, const Call& b) { return a.start != b.start ? a.start < b.start : a.id < b.id; };
  if (!std::is_sorted(calls.begin(), calls.end(), call_order)) std::sort(calls.begin(), calls.end(), call_order);
  std::vector<uint32_t> active;  // ranges started at or before the current call, in outer_first order
  std::vector<uint32_t> stack;
  size_t next = 0;
  for (const Call& c : calls) {
    while (next < ranges.size() && ranges[next].start <= c.start) active.push_back(static_cast<uint32_t>(next++));
    // A range that ended before this call started encloses no later call either.
    std::erase_if(active, [&](uint32_t r) { return ranges[r].end < c.start; });
    stack.clear();
    for (uint32_t r : active)
      if (ranges[r].end >= c.end) stack.push_back(r);
    visit(c.id, std::span<const uint32_t>(stack));
  }
}

}  // namespace rocpd::diagnosis
