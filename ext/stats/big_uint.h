// Unsigned integers of any size, with only the operations exact quantile interpolation needs
// (exact_rank.cpp). Numbers there reach about 1300 bits: p = 1e-300 is a binary fraction with a
// 2^-1049 denominator. No SQLite here.
#pragma once
#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocpd::stats {

class BigUint {
 public:
  BigUint() = default;
  explicit BigUint(unsigned __int128 v);

  bool is_zero() const noexcept { return limbs_.empty(); }
  std::size_t bit_length() const noexcept;
  // True when the `bits` lowest bits are all zero.
  bool low_bits_zero(std::size_t bits) const noexcept;
  // The value, which must fit in 128 bits.
  unsigned __int128 to_u128() const noexcept;

  BigUint& operator<<=(std::size_t bits);
  // Shifts right by `bits`; returns true when a nonzero bit was shifted out.
  bool shift_right(std::size_t bits);
  BigUint& operator*=(std::uint64_t factor);
  BigUint& operator+=(const BigUint& other);
  // Requires *this >= other.
  BigUint& operator-=(const BigUint& other);
  // Divides in place by `divisor` (> 0) and returns the remainder.
  std::uint32_t divide(std::uint32_t divisor) noexcept;

  friend std::strong_ordering operator<=>(const BigUint& a, const BigUint& b) noexcept;
  friend bool operator==(const BigUint& a, const BigUint& b) noexcept = default;

 private:
  void trim() noexcept;
  std::vector<std::uint32_t> limbs_;  // least significant first, no leading zero limbs
};

}  // namespace rocpd::stats
