#include "common/duration_text.h"

#include <fmt/format.h>

#include <cmath>

namespace rocpd {

std::string grouped_decimal(double v, int decimals) {
  const std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const size_t dot = s.find('.');
  const std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  const bool negative = v < 0 && s.find_first_not_of("0.,") != std::string::npos;
  return (negative ? "-" : "") + out + frac;
}

std::string duration_text(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return grouped_decimal(ns, ns == std::floor(ns) ? 0 : 1) + " ns";
  if (a < 1e6) return grouped_decimal(ns / 1e3, 2) + " us";
  if (a < 1e9) return grouped_decimal(ns / 1e6, 2) + " ms";
  return grouped_decimal(ns / 1e9, 3) + " s";
}

}  // namespace rocpd
