#include "formats/kineto/kineto_decimal.h"

namespace rocpd::formats::kineto {

namespace {
constexpr unsigned __int128 kMaxMagnitude = static_cast<unsigned __int128>(INT64_MAX) + 1;  // |INT64_MIN|
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The digits of a number's integer and fraction parts as one sequence, read in place: no copy,
// and no buffer kept between calls (a thread_local one cost the import's parsing thread a
// dynamic TLS block, which glibc allocates on first use and aborts the process when it cannot).
struct Digits {
  std::string_view whole, fraction;
  size_t size() const { return whole.size() + fraction.size(); }
  char operator[](size_t i) const { return i < whole.size() ? whole[i] : fraction[i - whole.size()]; }
};
}  // namespace

NumberStatus decimal_to_int64(std::string_view text, int scale, bool round, int64_t& out) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  Digits all;
  const size_t whole_at = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  all.whole = text.substr(whole_at, i - whole_at);
  if (i < text.size() && text[i] == '.') {
    const size_t fraction_at = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    all.fraction = text.substr(fraction_at, i - fraction_at);
    if (all.fraction.empty()) return NumberStatus::Malformed;
  }
  if (all.whole.empty()) return NumberStatus::Malformed;
  // The power of ten of the last digit.
  int64_t exponent = -static_cast<int64_t>(all.fraction.size());
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool minus = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) minus = text[i++] == '-';
    if (i >= text.size() || !is_digit(text[i])) return NumberStatus::Malformed;
    int64_t e = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) e = e < 100000000 ? e * 10 + (text[i] - '0') : e;  // clamped
    exponent += minus ? -e : e;
  }
  if (i != text.size()) return NumberStatus::Malformed;
  exponent += scale;
  // Significant digits: leading zeros dropped.
  size_t first = 0;
  while (first < all.size() && all[first] == '0') ++first;
  const size_t count = all.size() - first;
  auto digit = [&](size_t k) { return all[first + k]; };
  if (count == 0) {
    out = 0;
    return NumberStatus::Ok;
  }
  // value = digits * 10^exponent. Digits below the units place are dropped (and decide rounding).
  size_t keep = count;
  bool round_up = false, fraction = false;
  if (exponent < 0) {
    const uint64_t drop = static_cast<uint64_t>(-exponent);
    if (drop >= count) {
      keep = 0;
      round_up = drop == count && digit(0) >= '5';
    } else {
      keep = count - drop;
      round_up = digit(keep) >= '5';
    }
    for (size_t k = keep; k < count && !fraction; ++k) fraction = digit(k) != '0';
    exponent = 0;
  }
  if (fraction && !round) return NumberStatus::NotInteger;
  unsigned __int128 magnitude = 0;
  for (size_t k = 0; k < keep; ++k) {
    magnitude = magnitude * 10 + static_cast<unsigned>(digit(k) - '0');
    if (magnitude > kMaxMagnitude) return NumberStatus::Overflow;
  }
  for (int64_t e = 0; e < exponent; ++e) {
    if (magnitude == 0) break;
    magnitude *= 10;
    if (magnitude > kMaxMagnitude) return NumberStatus::Overflow;
  }
  if (round_up) ++magnitude;
  if (negative) {
    if (magnitude > kMaxMagnitude) return NumberStatus::Overflow;
    out = magnitude == kMaxMagnitude ? INT64_MIN : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > static_cast<unsigned __int128>(INT64_MAX)) return NumberStatus::Overflow;
    out = static_cast<int64_t>(magnitude);
  }
  return NumberStatus::Ok;
}

}  // namespace rocpd::formats::kineto
