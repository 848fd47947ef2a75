#include "stats/moments.h"

#include <cmath>
#include <stdexcept>

#include "stats/big_uint.h"

namespace rocpd::stats {

namespace {
using U128 = unsigned __int128;

void add_count(std::uint64_t& total, std::uint64_t n) {
  if (__builtin_add_overflow(total, n, &total)) throw std::overflow_error("more than 2^64 - 1 values");
}

void add_u192(U192& total, const U192& x) {
  bool carry = false;
  for (std::size_t i = 0; i < total.size(); ++i) {
    const bool c1 = __builtin_add_overflow(total[i], x[i], &total[i]);
    const bool c2 = __builtin_add_overflow(total[i], std::uint64_t{carry}, &total[i]);
    carry = c1 || c2;
  }
  if (carry) throw std::overflow_error("the sum of squares leaves 192 bits");
}

U128 magnitude(__int128 v) { return v < 0 ? U128{0} - static_cast<U128>(v) : static_cast<U128>(v); }

BigUint big(const U192& v) {
  BigUint out((static_cast<U128>(v[2]) << 64) | v[1]);
  out <<= 64;
  out += BigUint(v[0]);
  return out;
}

long double to_long_double(BigUint v) {
  const std::size_t bits = v.bit_length();
  if (bits <= 128) return static_cast<long double>(v.to_u128());
  v.shift_right(bits - 128);  // keeps 128 leading bits: far more than a long double's 64
  return std::ldexp(static_cast<long double>(v.to_u128()), static_cast<int>(bits - 128));
}

// n * S2 and S1^2 as exact integers.
std::pair<BigUint, BigUint> variance_terms(const IntegerMoments& m) {
  BigUint n_s2 = big(m.sum_sq);
  n_s2 *= m.n;
  const U128 s = magnitude(m.sum);
  BigUint low(s), high(s);  // s^2 = s * lo64 + (s * hi64) << 64
  low *= static_cast<std::uint64_t>(s);
  high *= static_cast<std::uint64_t>(s >> 64);
  high <<= 64;
  low += high;
  return {std::move(n_s2), std::move(low)};
}
}  // namespace

void IntegerMoments::add(std::int64_t x) {
  add_count(n, 1);
  sum += x;  // |sum| <= 2^64 * 2^63 = 2^127 while n counts real rows: no overflow
  const U128 m = magnitude(x);
  const U128 square = m * m;
  add_u192(sum_sq, {static_cast<std::uint64_t>(square), static_cast<std::uint64_t>(square >> 64), 0});
}

void IntegerMoments::merge(const IntegerMoments& other) {
  add_count(n, other.n);
  if (__builtin_add_overflow(sum, other.sum, &sum)) throw std::overflow_error("the integer sum leaves 128 bits");
  add_u192(sum_sq, other.sum_sq);
}

bool IntegerMoments::consistent() const {
  auto [n_s2, s1_sq] = variance_terms(*this);
  return n_s2 >= s1_sq;
}

long double IntegerMoments::scaled_m2() const {
  auto [n_s2, s1_sq] = variance_terms(*this);
  n_s2 -= s1_sq;  // exact: no cancellation whatever the offset of the values
  return to_long_double(std::move(n_s2));
}

void RealMoments::add(double x) {
  if (std::isinf(x)) return add_count(x > 0 ? pos_inf : neg_inf, 1);
  add_count(n, 1);
  const double t = sum + x;
  if (!std::isfinite(t)) {
    sum = t;  // the finite sum overflowed: it stays infinite (compensation is moot)
  } else {
    compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  const long double delta = x - mean;
  mean += delta / static_cast<long double>(n);
  m2 += delta * (x - mean);
}

void RealMoments::merge(const RealMoments& other) {
  add_count(pos_inf, other.pos_inf);
  add_count(neg_inf, other.neg_inf);
  if (other.n == 0) return;
  if (n == 0) {
    n = other.n;
    sum = other.sum, compensation = other.compensation, mean = other.mean, m2 = other.m2;
    return;
  }
  const std::uint64_t na = n;
  add_count(n, other.n);
  const double t = sum + other.sum;
  if (!std::isfinite(t)) {
    sum = t;
  } else {
    compensation += (std::fabs(sum) >= std::fabs(other.sum) ? (sum - t) + other.sum : (other.sum - t) + sum) +
                    other.compensation;
    sum = t;
  }
  // Chan et al.; the symmetric form of the mean makes the merge commutative.
  const long double a = static_cast<long double>(na), b = static_cast<long double>(other.n);
  const long double delta = other.mean - mean;
  m2 = m2 + other.m2 + delta * delta * (a * b / (a + b));
  mean = (a * mean + b * other.mean) / (a + b);
}

long double RealMoments::finite_sum() const {
  if (!std::isfinite(sum)) return sum;
  return static_cast<long double>(sum) + compensation;
}

std::optional<double> real_sum(const IntegerMoments& ints, const RealMoments& reals) {
  if (reals.pos_inf && reals.neg_inf) return std::nullopt;  // inf - inf
  if (reals.pos_inf || reals.neg_inf) return reals.pos_inf ? HUGE_VAL : -HUGE_VAL;
  if (ints.n == 0 && reals.n == 0) return std::nullopt;
  const auto total = static_cast<double>(static_cast<long double>(ints.sum) + reals.finite_sum());
  if (std::isnan(total)) return std::nullopt;
  return total;
}

std::optional<double> mean(const IntegerMoments& ints, const RealMoments& reals) {
  if (reals.pos_inf && reals.neg_inf) return std::nullopt;
  if (reals.pos_inf || reals.neg_inf) return reals.pos_inf ? HUGE_VAL : -HUGE_VAL;
  const long double n = static_cast<long double>(ints.n) + static_cast<long double>(reals.n);
  if (n == 0) return std::nullopt;
  // The Welford mean of the reals, not their sum: a sum beyond the largest double would overflow.
  return static_cast<double>((static_cast<long double>(ints.sum) + static_cast<long double>(reals.n) * reals.mean) / n);
}

std::optional<double> sample_stddev(const IntegerMoments& ints, const RealMoments& reals) {
  if (reals.pos_inf || reals.neg_inf) return std::nullopt;  // as stddev(): NaN, returned as NULL
  const long double ni = static_cast<long double>(ints.n), nr = static_cast<long double>(reals.n);
  const long double n = ni + nr;
  if (n < 2) return std::nullopt;
  if (reals.n == 0) return static_cast<double>(std::sqrt(ints.scaled_m2() / (ni * (ni - 1))));  // one rounding
  long double m2 = reals.m2;
  if (ints.n != 0) {
    const long double delta = reals.mean - static_cast<long double>(ints.sum) / ni;
    m2 += ints.scaled_m2() / ni + delta * delta * (ni * nr / n);
  }
  return static_cast<double>(std::sqrt(m2 / (n - 1)));
}

}  // namespace rocpd::stats
