#include "stats/stats_state.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "stats/exact_rank.h"

namespace rocpd::stats {

namespace {
int compare_int_double(std::int64_t i, double d) {
  if (d >= 9223372036854775808.0) return -1;  // 2^63: above every int64
  if (d < -9223372036854775808.0) return 1;
  const double whole = std::trunc(d);  // in [-2^63, 2^63): converts exactly
  const auto w = static_cast<std::int64_t>(whole);
  if (i != w) return i < w ? -1 : 1;
  const double rest = d - whole;  // exact
  return rest > 0 ? -1 : rest < 0 ? 1 : 0;
}

double as_double(Number n) { return std::visit([](auto v) { return static_cast<double>(v); }, n); }

// Which of two equal extremes to keep: INTEGER first, then the zero of the wanted sign.
bool preferred(Number candidate, Number current, bool for_min) {
  if (std::holds_alternative<std::int64_t>(current)) return false;
  if (std::holds_alternative<std::int64_t>(candidate)) return true;
  return std::signbit(std::get<double>(candidate)) == for_min && std::signbit(std::get<double>(current)) != for_min;
}

std::string to_string(__int128 v) {
  const bool negative = v < 0;
  auto m = negative ? 0 - static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m != 0);
  return negative ? "-" + digits : digits;
}
}  // namespace

int compare(Number a, Number b) {
  if (auto* ai = std::get_if<std::int64_t>(&a)) {
    if (auto* bi = std::get_if<std::int64_t>(&b)) return *ai < *bi ? -1 : *ai > *bi ? 1 : 0;
    return compare_int_double(*ai, std::get<double>(b));
  }
  const double ad = std::get<double>(a);
  if (auto* bi = std::get_if<std::int64_t>(&b)) return -compare_int_double(*bi, ad);
  const double bd = std::get<double>(b);
  return ad < bd ? -1 : ad > bd ? 1 : 0;
}

void StatsState::track_extremes(Number x) {
  if (!min_) {
    min_ = max_ = x;
    return;
  }
  const int lo = compare(x, *min_), hi = compare(x, *max_);
  if (lo < 0 || (lo == 0 && preferred(x, *min_, true))) min_ = x;
  if (hi > 0 || (hi == 0 && preferred(x, *max_, false))) max_ = x;
}

void StatsState::switch_to_sketch() {
  if (exact_.all_integers()) {
    for (std::int64_t v : exact_.integers()) sketch_.add(static_cast<double>(v));
  } else {
    for (double v : exact_.reals())
      if (std::isfinite(v)) sketch_.add(v);
  }
  exact_ = QuantileValues{};
  sketched_ = true;
}

void StatsState::add(std::int64_t x) {
  if (count_ == std::numeric_limits<std::uint64_t>::max()) throw std::overflow_error("more than 2^64 - 1 values");
  ints_.add(x);
  ++count_;
  track_extremes(x);
  if (sketched_) return sketch_.add(static_cast<double>(x));
  exact_.add(x);
  if (exact_.size() > kExactQuantileLimit) switch_to_sketch();
}

void StatsState::add(double x) {
  if (std::isnan(x)) return;
  if (count_ == std::numeric_limits<std::uint64_t>::max()) throw std::overflow_error("more than 2^64 - 1 values");
  reals_.add(x);
  ++count_;
  track_extremes(x);
  if (sketched_) {
    if (std::isfinite(x)) sketch_.add(x);
    return;
  }
  exact_.add(x);
  if (exact_.size() > kExactQuantileLimit) switch_to_sketch();
}

void StatsState::merge(const StatsState& other) {
  if (&other == this) return merge(StatsState(other));  // the loops below read what they grow
  if (__builtin_add_overflow(count_, other.count_, &count_)) throw std::overflow_error("more than 2^64 - 1 values");
  ints_.merge(other.ints_);
  reals_.merge(other.reals_);
  if (other.min_) track_extremes(*other.min_);
  if (other.max_) track_extremes(*other.max_);
  if (!sketched_ && (other.sketched_ || count_ > kExactQuantileLimit)) switch_to_sketch();
  if (!sketched_) {
    if (other.exact_.all_integers()) {
      for (std::int64_t v : other.exact_.integers()) exact_.add(v);
    } else {
      for (double v : other.exact_.reals()) exact_.add(v);
    }
  } else if (other.sketched_) {
    sketch_.merge(other.sketch_);
  } else if (other.exact_.all_integers()) {
    for (std::int64_t v : other.exact_.integers()) sketch_.add(static_cast<double>(v));
  } else {
    for (double v : other.exact_.reals())
      if (std::isfinite(v)) sketch_.add(v);
  }
}

std::optional<Number> StatsState::sum() const {
  if (count_ == 0) return std::nullopt;
  if (ints_.n == count_) {
    if (ints_.sum < std::numeric_limits<std::int64_t>::min() || ints_.sum > std::numeric_limits<std::int64_t>::max())
      throw std::overflow_error("integer overflow: the sum " + to_string(ints_.sum) +
                                " does not fit in a 64-bit integer ('mean' still answers)");
    return static_cast<std::int64_t>(ints_.sum);
  }
  auto total = real_sum(ints_, reals_);
  if (!total) return std::nullopt;
  return *total;
}

double StatsState::sketched_rank(std::uint64_t j) const {
  // The extremes are known exactly: p0 and p100 are min and max even after stores fold.
  if (j == 0) return as_double(*min_);
  if (j + 1 == count_) return as_double(*max_);
  if (j < reals_.neg_inf) return -HUGE_VAL;
  j -= reals_.neg_inf;
  if (j < count_ - reals_.neg_inf - reals_.pos_inf) return sketch_.value_at_rank(j, as_double(*min_), as_double(*max_));
  return HUGE_VAL;
}

std::optional<Number> StatsState::quantile(double p) const {
  if (count_ == 0) return std::nullopt;
  if (!sketched_) {
    QuantileValues values = exact_;  // selection reorders; a state answers many queries
    auto v = values.percentile(p);
    if (v && std::isnan(as_double(*v))) return std::nullopt;  // -inf and inf: NULL, as the sketch says
    return v;
  }
  // The same rank and interpolation as percentile_select() on doubles, on the sketch's values.
  const Rank rank = rank_of(count_, p);
  const double lo = sketched_rank(rank.lower);
  if (rank.whole()) return lo;
  const double hi = sketched_rank(rank.lower + 1);
  if (lo == hi) return lo;
  const double fraction = rank.fraction();
  const double v = std::isinf(hi - lo) ? (1.0 - fraction) * lo + fraction * hi : lo + fraction * (hi - lo);
  if (std::isnan(v)) return std::nullopt;  // -inf and inf: percentile() returns NULL too
  return v;
}

}  // namespace rocpd::stats
