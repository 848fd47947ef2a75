// Quantiles by selection (std::nth_element, O(n)) instead of a full sort: the algorithm behind
// the SQL aggregates median() and percentile(). No SQLite here, so it is unit-tested directly.
#pragma once
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace rocpd::stats {

// A quantile result: exact INTEGER when every input was an integer and the interpolated value is
// a whole number, REAL otherwise (the SQL layer returns the matching SQLite type).
using Number = std::variant<std::int64_t, double>;

// The values of one group (or one window frame). Integers are kept as int64 until the first real
// arrives, so integer results stay exact up to the int64 extremes (doubles hold only 53 bits).
class QuantileValues {
 public:
  void add(std::int64_t v);
  void add(double v);  // NaN is ignored like NULL (SQLite itself stores NaN as NULL)
  // Removes one occurrence (window frames); returns false when the value is not present.
  bool remove(std::int64_t v);
  bool remove(double v);
  std::size_t size() const { return all_integers_ ? ints_.size() : reals_.size(); }
  bool all_integers() const { return all_integers_; }
  // The stored values in no particular order: integers() while all_integers(), else reals().
  const std::vector<std::int64_t>& integers() const { return ints_; }
  const std::vector<double>& reals() const { return reals_; }

  // The p-th percentile, p in [0, 100], with linear interpolation between the two closest ranks:
  // position h = (n - 1) * p / 100, result = x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] - x[floor(h)])
  // on the sorted values (numpy's default "linear", Excel PERCENTILE.INC, SQLite's percentile.c).
  // Empty -> nullopt. Reorders the stored values (the multiset is unchanged). O(n).
  std::optional<Number> percentile(double p);

 private:
  void switch_to_reals();
  bool all_integers_ = true;
  std::vector<std::int64_t> ints_;
  std::vector<double> reals_;
};

// The selection step, exposed for the unit tests and the benchmark: the interpolated p-th
// percentile of `v` (non-empty), reordering `v`.
Number percentile_select(std::vector<std::int64_t>& v, double p);
double percentile_select(std::vector<double>& v, double p);
// The same percentile of values already in ascending order (`sorted[0..n)`, n > 0): read at the
// two ranks, nothing moved.
Number percentile_of_sorted(const std::int64_t* sorted, std::size_t n, double p);

}  // namespace rocpd::stats
