#include "formats/kineto_decimal.h"

#include <string>

namespace rocpd::kineto {

namespace {
constexpr unsigned __int128 kMaxMagnitude = static_cast<unsigned __int128>(INT64_MAX) + 1;  // |INT64_MIN|
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

NumberStatus decimal_to_int64(std::string_view text, int scale, bool round, int64_t& out) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  // Significant digits (leading zeros dropped) and the power of ten of the last digit.
  // Reused between calls: times have 16 or more digits, past std::string's inline capacity.
  thread_local std::string digits;
  digits.clear();
  int64_t exponent = 0;
  bool any = false;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    any = true;
    if (!digits.empty() || text[i] != '0') digits += text[i];
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    bool fraction = false;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      fraction = true;
      if (!digits.empty() || text[i] != '0') digits += text[i];
      --exponent;
    }
    if (!fraction) return NumberStatus::Malformed;
  }
  if (!any) return NumberStatus::Malformed;
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
  if (digits.empty()) {
    out = 0;
    return NumberStatus::Ok;
  }
  // value = digits * 10^exponent. Digits below the units place are dropped (and decide rounding).
  size_t keep = digits.size();
  bool round_up = false, fraction = false;
  if (exponent < 0) {
    const uint64_t drop = static_cast<uint64_t>(-exponent);
    if (drop >= digits.size()) {
      keep = 0;
      round_up = drop == digits.size() && digits[0] >= '5';
    } else {
      keep = digits.size() - drop;
      round_up = digits[keep] >= '5';
    }
    fraction = digits.find_first_not_of('0', keep) != std::string::npos;
    exponent = 0;
  }
  if (fraction && !round) return NumberStatus::NotInteger;
  unsigned __int128 magnitude = 0;
  for (size_t k = 0; k < keep; ++k) {
    magnitude = magnitude * 10 + static_cast<unsigned>(digits[k] - '0');
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

}  // namespace rocpd::kineto
