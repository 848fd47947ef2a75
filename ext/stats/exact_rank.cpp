#include "stats/exact_rank.h"

#include <bit>
#include <cmath>

namespace rocpd::stats {

namespace {
using U128 = unsigned __int128;

// p (finite, >= 0) as mantissa / 2^shift exactly, with mantissa < 2^53 (or p itself when whole).
struct BinaryFraction {
  std::uint64_t mantissa = 0;
  unsigned shift = 0;
};
BinaryFraction exact(double p) {
  if (p == 0) return {};
  int exponent = 0;
  const double m = std::frexp(p, &exponent);  // p = m * 2^exponent, m in [0.5, 1)
  auto mantissa = static_cast<std::uint64_t>(std::ldexp(m, 53));
  int e = exponent - 53;
  if (e >= 0) return {mantissa << e, 0};  // a whole p <= 100
  while ((mantissa & 1) == 0 && e < 0) mantissa >>= 1, ++e;
  return {mantissa, static_cast<unsigned>(-e)};
}

int bit_width(U128 v) {
  const auto high = static_cast<std::uint64_t>(v >> 64);
  return high != 0 ? 64 + std::bit_width(high) : std::bit_width(static_cast<std::uint64_t>(v));
}
}  // namespace

double Rank::fraction() const { return whole() ? 0.0 : nearest_double(numerator, shift, false); }

Rank rank_of(std::size_t n, double p) {
  const BinaryFraction f = exact(p);
  // (n - 1) * mantissa < 2^64 * 2^53: fits in 128 bits.
  const U128 scaled = static_cast<U128>(n - 1) * f.mantissa;
  const U128 over_shift = f.shift < 128 ? scaled >> f.shift : 0;
  Rank rank;
  rank.shift = f.shift;
  rank.lower = static_cast<std::size_t>(over_shift / 100);  // <= n - 1 because p <= 100
  if (rank.lower >= n - 1) {
    rank.lower = n - 1;
    return rank;
  }
  rank.numerator = BigUint(scaled);
  BigUint whole_part(static_cast<U128>(rank.lower) * 100);
  whole_part <<= f.shift;
  rank.numerator -= whole_part;
  return rank;
}

std::variant<std::int64_t, double> interpolate(std::int64_t lo, std::int64_t hi, const Rank& rank) {
  if (rank.whole() || lo == hi) return lo;
  // hi - lo may exceed int64 (INT64_MIN to INT64_MAX); the unsigned difference is exact.
  const std::uint64_t gap = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  BigUint offset = rank.numerator;  // offset / (100 * 2^shift) = frac * gap < gap
  offset *= gap;
  if (offset.low_bits_zero(rank.shift)) {
    BigUint quotient = offset;
    quotient.shift_right(rank.shift);
    if (quotient.divide(100) == 0) {
      const auto step = static_cast<std::uint64_t>(quotient.to_u128());
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + step);  // in [lo, hi]
    }
  }
  // value * 100 * 2^shift = lo * 100 * 2^shift + offset, with its sign kept apart.
  const std::uint64_t magnitude = lo < 0 ? 0 - static_cast<std::uint64_t>(lo) : static_cast<std::uint64_t>(lo);
  BigUint scaled_lo(static_cast<U128>(magnitude) * 100);
  scaled_lo <<= rank.shift;
  if (lo >= 0) {
    scaled_lo += offset;
    return nearest_double(std::move(scaled_lo), rank.shift, false);
  }
  if (scaled_lo >= offset) {
    scaled_lo -= offset;
    return nearest_double(std::move(scaled_lo), rank.shift, true);
  }
  offset -= scaled_lo;
  return nearest_double(std::move(offset), rank.shift, false);
}

double nearest_double(BigUint numerator, unsigned shift, bool negative) {
  if (numerator.is_zero()) return negative ? -0.0 : 0.0;
  // Scale to 73 bits, so that quotient = numerator * 2^k / 100 has 66 or 67 bits: 13 or more below
  // a double's 53, enough to round; `sticky` records whether anything nonzero was cut off below.
  const long k = 73 - static_cast<long>(numerator.bit_length());
  bool sticky = false;
  if (k >= 0) {
    numerator <<= static_cast<std::size_t>(k);
  } else {
    sticky = numerator.shift_right(static_cast<std::size_t>(-k));
  }
  sticky |= numerator.divide(100) != 0;
  const U128 quotient = numerator.to_u128();
  const long exponent = -k - static_cast<long>(shift);  // value = (quotient + sticky part) * 2^exponent
  const int bits = bit_width(quotient);
  // Bits to drop: down to 53 significant bits, or to 2^-1074 for subnormal results.
  const long drop = bits - 1 + exponent >= -1022 ? bits - 53 : -1074 - exponent;
  if (drop >= bits + 1) return negative ? -0.0 : 0.0;  // below half of the smallest subnormal
  const U128 half = U128{1} << (drop - 1);
  U128 kept = quotient >> drop;
  const U128 rest = quotient & ((U128{1} << drop) - 1);
  if (rest > half || (rest == half && (sticky || (kept & 1) != 0))) ++kept;
  const double value = std::ldexp(static_cast<double>(kept), static_cast<int>(exponent + drop));
  return negative ? -value : value;
}

}  // namespace rocpd::stats
