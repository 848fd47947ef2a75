#include "stats/big_uint.h"

#include <algorithm>
#include <bit>

namespace rocpd::stats {

BigUint::BigUint(unsigned __int128 v) {
  for (; v != 0; v >>= 32) limbs_.push_back(static_cast<std::uint32_t>(v));
}

void BigUint::trim() noexcept {
  while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
}

std::size_t BigUint::bit_length() const noexcept {
  if (limbs_.empty()) return 0;
  return 32 * (limbs_.size() - 1) + static_cast<std::size_t>(std::bit_width(limbs_.back()));
}

bool BigUint::low_bits_zero(std::size_t bits) const noexcept {
  const std::size_t whole = bits / 32;
  for (std::size_t i = 0; i < whole && i < limbs_.size(); ++i)
    if (limbs_[i] != 0) return false;
  if (whole >= limbs_.size() || bits % 32 == 0) return true;
  return (limbs_[whole] & ((std::uint32_t{1} << (bits % 32)) - 1)) == 0;
}

unsigned __int128 BigUint::to_u128() const noexcept {
  unsigned __int128 v = 0;
  for (std::size_t i = std::min<std::size_t>(limbs_.size(), 4); i-- > 0;) v = (v << 32) | limbs_[i];
  return v;
}

BigUint& BigUint::operator<<=(std::size_t bits) {
  if (limbs_.empty()) return *this;
  const std::size_t whole = bits / 32, part = bits % 32;
  if (part != 0) {
    limbs_.push_back(0);
    for (std::size_t i = limbs_.size() - 1; i > 0; --i)
      limbs_[i] = (limbs_[i] << part) | (limbs_[i - 1] >> (32 - part));
    limbs_[0] <<= part;
  }
  limbs_.insert(limbs_.begin(), whole, 0);
  trim();
  return *this;
}

bool BigUint::shift_right(std::size_t bits) {
  const bool lost = !low_bits_zero(bits);
  const std::size_t whole = bits / 32, part = bits % 32;
  if (whole >= limbs_.size()) {
    limbs_.clear();
    return lost;
  }
  limbs_.erase(limbs_.begin(), limbs_.begin() + static_cast<std::ptrdiff_t>(whole));
  if (part != 0) {
    for (std::size_t i = 0; i + 1 < limbs_.size(); ++i)
      limbs_[i] = (limbs_[i] >> part) | (limbs_[i + 1] << (32 - part));
    limbs_.back() >>= part;
  }
  trim();
  return lost;
}

BigUint& BigUint::operator*=(std::uint64_t factor) {
  // A 32-bit limb times a 64-bit factor plus the carry fits in 128 bits.
  unsigned __int128 carry = 0;
  for (auto& limb : limbs_) {
    carry += static_cast<unsigned __int128>(limb) * factor;
    limb = static_cast<std::uint32_t>(carry);
    carry >>= 32;
  }
  for (; carry != 0; carry >>= 32) limbs_.push_back(static_cast<std::uint32_t>(carry));
  trim();
  return *this;
}

BigUint& BigUint::operator+=(const BigUint& other) {
  if (limbs_.size() < other.limbs_.size()) limbs_.resize(other.limbs_.size(), 0);
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < limbs_.size(); ++i) {
    carry += std::uint64_t{limbs_[i]} + (i < other.limbs_.size() ? other.limbs_[i] : 0);
    limbs_[i] = static_cast<std::uint32_t>(carry);
    carry >>= 32;
  }
  if (carry != 0) limbs_.push_back(static_cast<std::uint32_t>(carry));
  return *this;
}

BigUint& BigUint::operator-=(const BigUint& other) {
  std::int64_t borrow = 0;
  for (std::size_t i = 0; i < limbs_.size(); ++i) {
    std::int64_t d = std::int64_t{limbs_[i]} - (i < other.limbs_.size() ? other.limbs_[i] : 0) - borrow;
    borrow = d < 0 ? 1 : 0;
    limbs_[i] = static_cast<std::uint32_t>(d + (borrow << 32));
  }
  trim();
  return *this;
}

std::uint32_t BigUint::divide(std::uint32_t divisor) noexcept {
  std::uint64_t rest = 0;
  for (std::size_t i = limbs_.size(); i-- > 0;) {
    rest = (rest << 32) | limbs_[i];
    limbs_[i] = static_cast<std::uint32_t>(rest / divisor);
    rest %= divisor;
  }
  trim();
  return static_cast<std::uint32_t>(rest);
}

std::strong_ordering operator<=>(const BigUint& a, const BigUint& b) noexcept {
  if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() <=> b.limbs_.size();
  for (std::size_t i = a.limbs_.size(); i-- > 0;)
    if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] <=> b.limbs_[i];
  return std::strong_ordering::equal;
}

}  // namespace rocpd::stats
