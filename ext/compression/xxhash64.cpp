#include "compression/xxhash64.h"

#include <cstring>

namespace rocpd::zstd {
namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// The format is little-endian; memcpy keeps unaligned loads legal (x86/arm64 are LE hosts).
std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
std::uint32_t load32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::uint64_t mix_lane(std::uint64_t acc, std::uint64_t lane) {
  acc += lane * kPrime2;
  return rotl(acc, 31) * kPrime1;
}

std::uint64_t fold_lane(std::uint64_t hash, std::uint64_t acc) {
  hash ^= mix_lane(0, acc);
  return hash * kPrime1 + kPrime4;
}

}  // namespace

std::uint64_t xxhash64(const void* data, std::size_t size, std::uint64_t seed) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + size;
  std::uint64_t hash;
  if (size >= 32) {
    std::uint64_t a = seed + kPrime1 + kPrime2, b = seed + kPrime2, c = seed, d = seed - kPrime1;
    for (; end - p >= 32; p += 32) {
      a = mix_lane(a, load64(p));
      b = mix_lane(b, load64(p + 8));
      c = mix_lane(c, load64(p + 16));
      d = mix_lane(d, load64(p + 24));
    }
    hash = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18);
    hash = fold_lane(hash, a);
    hash = fold_lane(hash, b);
    hash = fold_lane(hash, c);
    hash = fold_lane(hash, d);
  } else {
    hash = seed + kPrime5;
  }
  hash += static_cast<std::uint64_t>(size);
  for (; end - p >= 8; p += 8) {
    hash ^= mix_lane(0, load64(p));
    hash = rotl(hash, 27) * kPrime1 + kPrime4;
  }
  if (end - p >= 4) {
    hash ^= static_cast<std::uint64_t>(load32(p)) * kPrime1;
    hash = rotl(hash, 23) * kPrime2 + kPrime3;
    p += 4;
  }
  for (; p < end; ++p) {
    hash ^= static_cast<std::uint64_t>(*p) * kPrime5;
    hash = rotl(hash, 11) * kPrime1;
  }
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime3;
  hash ^= hash >> 32;
  return hash;
}

}  // namespace rocpd::zstd
