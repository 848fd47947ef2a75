#include "stats/percentile_select.h"

#include <algorithm>
#include <cmath>

#include "stats/exact_rank.h"

namespace rocpd::stats {

namespace {
// Selects the lower rank with nth_element, then the next rank as the minimum of the upper part:
// two linear passes instead of an O(n log n) sort.
template <class T>
std::pair<T, T> neighbours(std::vector<T>& v, const Rank& rank) {
  auto lower_it = v.begin() + static_cast<std::ptrdiff_t>(rank.lower);
  std::nth_element(v.begin(), lower_it, v.end());
  T lower = *lower_it;
  if (rank.whole()) return {lower, lower};
  return {lower, *std::min_element(lower_it + 1, v.end())};
}
}  // namespace

Number percentile_select(std::vector<std::int64_t>& v, double p) {
  const Rank rank = rank_of(v.size(), p);
  auto [lo, hi] = neighbours(v, rank);
  return interpolate(lo, hi, rank);  // exact: see exact_rank.h
}

Number percentile_of_sorted(const std::int64_t* sorted, std::size_t n, double p) {
  const Rank rank = rank_of(n, p);
  const std::int64_t lo = sorted[rank.lower];
  return interpolate(lo, rank.whole() ? lo : sorted[rank.lower + 1], rank);
}

double percentile_select(std::vector<double>& v, double p) {
  const Rank rank = rank_of(v.size(), p);
  auto [lo, hi] = neighbours(v, rank);
  if (rank.whole() || lo == hi) return lo;  // also keeps inf - inf out
  const double fraction = rank.fraction();
  // hi - lo is infinite when a neighbour is, or when it overflows (-1e308 and 1e308): weight the
  // ends instead (between -inf and +inf the result is NaN, which SQLite returns as NULL).
  if (std::isinf(hi - lo)) return (1.0 - fraction) * lo + fraction * hi;
  return lo + fraction * (hi - lo);
}

void QuantileValues::add(std::int64_t v) {
  if (all_integers_) {
    ints_.push_back(v);
  } else {
    reals_.push_back(static_cast<double>(v));
  }
}

void QuantileValues::add(double v) {
  if (std::isnan(v)) return;
  if (all_integers_) switch_to_reals();
  reals_.push_back(v);
}

template <class T>
static bool remove_one(std::vector<T>& v, T x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it == v.end()) return false;
  *it = v.back();  // order is irrelevant: selection reorders anyway
  v.pop_back();
  return true;
}

bool QuantileValues::remove(std::int64_t v) {
  return all_integers_ ? remove_one(ints_, v) : remove_one(reals_, static_cast<double>(v));
}

bool QuantileValues::remove(double v) {
  if (std::isnan(v)) return true;  // never stored
  if (all_integers_) {
    // A real equal to a stored integer (e.g. 2.0 vs 2) may have been stored as that integer only
    // if it arrived as an integer; reals always switch the mode, so this value was never added.
    return false;
  }
  return remove_one(reals_, v);
}

void QuantileValues::switch_to_reals() {
  reals_.reserve(ints_.size() + 1);
  for (std::int64_t i : ints_) reals_.push_back(static_cast<double>(i));
  ints_.clear();
  ints_.shrink_to_fit();
  all_integers_ = false;
}

std::optional<Number> QuantileValues::percentile(double p) {
  if (size() == 0) return std::nullopt;
  if (all_integers_) return percentile_select(ints_, p);
  return Number{percentile_select(reals_, p)};
}

}  // namespace rocpd::stats
