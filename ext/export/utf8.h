// UTF-8 validation shared by the writers: text that is not valid UTF-8 is written with U+FFFD
// in place of the bad bytes (viewers reject or garble invalid text).
#pragma once
#include <cstddef>

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

}  // namespace rocpd::exporter
