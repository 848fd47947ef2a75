#include "stats/histogram_buckets.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace rocpd::stats {

namespace {
using Int128 = __int128;
constexpr Int128 kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr Int128 kInt64Max = std::numeric_limits<std::int64_t>::max();

double as_double(Number n) {
  return std::visit([](auto v) { return static_cast<double>(v); }, n);
}

std::string format_number(Number n) {
  if (auto* i = std::get_if<std::int64_t>(&n)) return fmt::format("{}", *i);
  return json_number(std::get<double>(n));
}

// Floor division for integers (C++ division truncates toward zero).
Int128 floor_div(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A bucket bound of integer mode as JSON: an INTEGER, or null past the INTEGER range (the bucket
// then has no bound on that side that an INTEGER can state: it holds every value beyond its other).
std::string json_bound(Int128 v) {
  if (v >= kInt64Min && v <= kInt64Max) return fmt::format("{}", static_cast<std::int64_t>(v));
  return "null";
}

// The exact decimal text of a count.
std::string int128_text(Int128 v) {
  if (v >= kInt64Min && v <= kInt64Max) return fmt::format("{}", static_cast<std::int64_t>(v));
  std::string digits;
  const bool negative = v < 0;
  unsigned __int128 m = negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(v)
                                 : static_cast<unsigned __int128>(v);
  while (m > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return negative ? "-" + digits : digits;
}

void append_bucket(std::string& out, std::string_view lo, std::string_view hi, std::int64_t count) {
  if (out.size() > 1) out += ',';
  fmt::format_to(std::back_inserter(out), R"({{"lo":{},"hi":{},"count":{}}})", lo, hi, count);
}
}  // namespace

std::string json_number(double v) {
  if (std::isinf(v)) return v > 0 ? "9e999" : "-9e999";
  return fmt::format("{}", v);
}

FixedHistogram::FixedHistogram(Number width, Number origin) : width_(width), origin_(origin) {
  const double w = as_double(width), o = as_double(origin);
  if (!(w > 0) || !std::isfinite(w)) {
    throw HistogramError{fmt::format("width must be a positive number, got {}", format_number(width))};
  }
  if (!std::isfinite(o)) {
    throw HistogramError{fmt::format("origin must be a finite number, got {}", format_number(origin))};
  }
}

bool FixedHistogram::integer_bounds() const {
  return !saw_real_ && std::holds_alternative<std::int64_t>(width_) &&
         std::holds_alternative<std::int64_t>(origin_);
}

void FixedHistogram::add(std::int64_t v) {
  if (!integer_bounds()) return add(static_cast<double>(v));
  const Int128 index = floor_div(Int128{v} - std::get<std::int64_t>(origin_), std::get<std::int64_t>(width_));
  if (index < kInt64Min || index > kInt64Max) {
    throw HistogramError{fmt::format("value {} is too far from the origin for width {}", v, format_number(width_))};
  }
  ++counts_[static_cast<std::int64_t>(index)];
  ++total_;
}

void FixedHistogram::add(double v) {
  if (std::isnan(v)) return;
  if (std::isinf(v)) throw HistogramError{fmt::format("value {} has no bucket", json_number(v))};
  // Buckets counted in integer mode keep their indices: the bounds are the same in floating point.
  saw_real_ = true;
  const double o = as_double(origin_), w = as_double(width_);
  double index = std::floor((v - o) / w);
  if (!(index >= -9.0e18 && index <= 9.0e18)) {
    throw HistogramError{fmt::format("value {} is too far from the origin for width {}", json_number(v),
                                     format_number(width_))};
  }
  // The bucket's bounds as to_json() writes them must hold the value: the division rounds, and
  // far from the origin a width below the doubles' spacing leaves buckets with lo == hi.
  if (v < o + index * w) index -= 1;
  else if (v >= o + (index + 1) * w) index += 1;
  const double lo = o + index * w, hi = o + (index + 1) * w;
  if (!(lo <= v && v < hi)) {
    throw HistogramError{fmt::format("width {} is too small for value {}: buckets this far from the origin cannot "
                                     "be told apart in floating point; choose a wider width",
                                     format_number(width_), json_number(v))};
  }
  ++counts_[static_cast<std::int64_t>(index)];
  ++total_;
}

std::string FixedHistogram::to_json() const {
  std::string out = "[";
  if (!counts_.empty()) {
    auto [min_it, max_it] = std::minmax_element(counts_.begin(), counts_.end(),
                                                [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::int64_t first = min_it->first, last = max_it->first;
    const Int128 buckets = Int128{last} - first + 1;
    if (buckets > kMaxHistogramBuckets) {
      throw HistogramError{fmt::format(
          "{} buckets of width {} would be needed (limit {}); choose a wider width",
          int128_text(buckets), format_number(width_), kMaxHistogramBuckets)};
    }
    const bool exact = integer_bounds();
    for (std::int64_t i = first;; ++i) {
      auto it = counts_.find(i);
      const std::int64_t n = it == counts_.end() ? 0 : it->second;
      if (exact) {
        const Int128 lo = Int128{std::get<std::int64_t>(origin_)} + Int128{i} * std::get<std::int64_t>(width_);
        append_bucket(out, json_bound(lo), json_bound(lo + std::get<std::int64_t>(width_)), n);
      } else {
        const double w = as_double(width_), o = as_double(origin_);
        append_bucket(out, json_number(o + static_cast<double>(i) * w),
                      json_number(o + static_cast<double>(i + 1) * w), n);
      }
      if (i == last) break;
    }
  }
  out += ']';
  return out;
}

void Log2Histogram::add(std::int64_t v) {
  if (v < 0) throw HistogramError{fmt::format("negative value {} has no log2 bucket", v)};
  const int k = v == 0 ? -1 : 63 - std::countl_zero(static_cast<std::uint64_t>(v));
  ++counts_[static_cast<std::size_t>(k + 1)];
  ++total_;
}

void Log2Histogram::add(double v) {
  if (std::isnan(v)) return;
  if (v < 0) throw HistogramError{fmt::format("negative value {} has no log2 bucket", json_number(v))};
  if (std::isinf(v)) throw HistogramError{fmt::format("value {} has no log2 bucket", json_number(v))};
  int k = -1;
  if (v >= 1) {
    int exponent = 0;
    std::frexp(v, &exponent);  // v = m * 2^exponent with m in [0.5, 1)
    k = exponent - 1;
  }
  ++counts_[static_cast<std::size_t>(k + 1)];
  ++total_;
}

std::string Log2Histogram::to_json() const {
  std::string out = "[";
  auto first = std::find_if(counts_.begin(), counts_.end(), [](std::int64_t n) { return n != 0; });
  if (first != counts_.end()) {
    auto last = std::find_if(counts_.rbegin(), counts_.rend(), [](std::int64_t n) { return n != 0; }).base() - 1;
    for (auto it = first; it <= last; ++it) {
      const int k = static_cast<int>(it - counts_.begin()) - 1;
      auto bound = [](int e) -> std::string {  // 2^e, exact integer text while it fits
        if (e < 63) return fmt::format("{}", std::int64_t{1} << e);
        return json_number(std::ldexp(1.0, e));
      };
      append_bucket(out, k < 0 ? "0" : bound(k), bound(k + 1), *it);
    }
  }
  out += ']';
  return out;
}

}  // namespace rocpd::stats
