// The mergeable state of interval_union_state / interval_union_merge / interval_union_length
// (docs/states.md): the union of intervals as a sorted list of disjoint, non-touching busy
// intervals, so a state costs 16 bytes per busy interval whatever the number of rows, and the
// union of two states is the state of all their rows. No SQLite here.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "common/interval_math.h"

namespace rocpd::intervals {

class IntervalSet {
 public:
  // Adds one interval (empty ones cover nothing and are dropped), any order.
  void add(Interval iv);
  // Adds the busy intervals of another state.
  void add(std::span<const Interval> ivs);

  // The union: sorted, disjoint, not touching, none empty.
  const std::vector<Interval>& merged();
  // Length of the union in ns (at most 2^64 - 1, [INT64_MIN, INT64_MAX)).
  uint64_t length();

  std::vector<uint8_t> to_blob();
  // The busy intervals of a state BLOB; throws state_blob::FormatError for anything but a
  // well-formed interval_union state of this version.
  static std::vector<Interval> from_blob(std::span<const uint8_t> blob);

 private:
  void compact();
  std::vector<Interval> merged_;   // the union of everything before `pending_`
  std::vector<Interval> pending_;  // added since, any order; folded into merged_ when it grows
};

}  // namespace rocpd::intervals
