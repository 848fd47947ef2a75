// UTF-8 validation shared by the writers: text that is not valid UTF-8 is written with U+FFFD
// in place of the bad bytes (viewers reject or garble invalid text).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rocpd::exporter {

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, <= U+10FFFF),
// or 0 when it is not one.
inline size_t utf8_len(const unsigned char* s, size_t i, size_t n) {
  const unsigned c = s[i];
  auto cont = [&](size_t k) { return i + k < n && (s[i + k] & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && s[i + 1] < 0xA0) return 0;
    if (c == 0xED && s[i + 1] >= 0xA0) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && s[i + 1] < 0x90) return 0;
    if (c == 0xF4 && s[i + 1] >= 0x90) return 0;
    return 4;
  }
  return 0;
}

// Word-at-a-time scans (8 bytes per step: names and argument strings are mostly long ASCII).
namespace swar {
inline constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
inline uint64_t load(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
// High bit set in each byte of w that is zero (exact when no byte of w has its high bit set).
inline uint64_t zero_bytes(uint64_t w) { return (w - kOnes) & ~w & kHighs; }
}  // namespace swar

// Length of the prefix of s[0, n) that is ASCII (< 0x80).
inline size_t ascii_prefix(const unsigned char* s, size_t n) {
  size_t i = 0;
  while (i + 8 <= n && (swar::load(s + i) & swar::kHighs) == 0) i += 8;
  while (i < n && s[i] < 0x80) ++i;
  return i;
}

// Length of the prefix of s[0, n) that a JSON string holds as it is: printable ASCII other than
// '"' and backslash.
inline size_t json_plain_prefix(const unsigned char* s, size_t n) {
  using namespace swar;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t w = load(s + i);
    if (w & kHighs) break;
    // Bytes < 0x20: (w - 0x20..) borrows into the high bit (w has no high bits set here).
    const uint64_t control = (w - 0x2020202020202020ULL) & ~w & kHighs;
    if (control | zero_bytes(w ^ (kOnes * '"')) | zero_bytes(w ^ (kOnes * '\\'))) break;
  }
  while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\') ++i;
  return i;
}

}  // namespace rocpd::exporter
