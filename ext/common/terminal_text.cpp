#include "common/terminal_text.h"

#include <fmt/format.h>

namespace rocpd {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF), 0 when the byte there starts none.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}
}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = sequence_length(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string terminal_text(std::string_view s) {
  std::string v = valid_utf8(s), out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto c = static_cast<unsigned char>(v[i]);
    if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02x}", c);
    else if (c == 0xC2 && i + 1 < v.size() && static_cast<unsigned char>(v[i + 1]) < 0xA0) {
      // C1 controls U+0080..U+009F (0xC2 0x80..0x9F): CSI (U+009B) starts an escape sequence too.
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(v[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string quoted_text(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return "'" + terminal_text(s) + "'";
  // Cut before a UTF-8 continuation byte would split a character.
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return "'" + terminal_text(s.substr(0, cut)) + "...'";
}

}  // namespace rocpd
