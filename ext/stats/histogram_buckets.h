// Bucket counting behind the SQL aggregates histogram() (fixed-width buckets) and
// histogram_log2() (power-of-two buckets). No SQLite here, so it is unit-tested directly.
// Both render their buckets as a JSON array of {"lo":..,"hi":..,"count":..} objects, lo inclusive,
// hi exclusive, contiguous from the lowest to the highest non-empty bucket (empty buckets between
// them are listed with count 0, so the array plots directly).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "stats/percentile_select.h"

namespace rocpd::stats {

// A bucketing problem the caller must report (the SQL layer prefixes the function name).
struct HistogramError {
  std::string message;
};

// At most this many buckets are rendered: a width far too small for the data would otherwise
// produce gigabytes of JSON.
inline constexpr std::int64_t kMaxHistogramBuckets = 100000;

// Fixed-width buckets [origin + i*width, origin + (i+1)*width). Exact integer arithmetic when the
// values, width and origin are all integers; floating point otherwise.
class FixedHistogram {
 public:
  // Throws HistogramError unless width > 0 and both are finite.
  FixedHistogram(Number width, Number origin);
  void add(std::int64_t v);
  void add(double v);  // NaN is ignored like NULL; +-inf throws HistogramError
  std::int64_t count() const { return total_; }
  std::string to_json() const;  // throws HistogramError past kMaxHistogramBuckets

 private:
  bool integer_bounds() const;
  Number width_, origin_;
  bool saw_real_ = false;
  std::int64_t total_ = 0;
  std::unordered_map<std::int64_t, std::int64_t> counts_;  // bucket index -> count
};

// Power-of-two buckets: [0, 1) holds 0 and every value below 1, then [1, 2), [2, 4), [4, 8), ...
// Negative values have no bucket (HistogramError): the function is meant for durations and sizes.
class Log2Histogram {
 public:
  void add(std::int64_t v);
  void add(double v);  // NaN ignored; negative or infinite values throw HistogramError
  std::int64_t count() const { return total_; }
  std::string to_json() const;

 private:
  // counts_[k + 1] counts bucket k: k = -1 is [0, 1), k >= 0 is [2^k, 2^(k+1)).
  std::vector<std::int64_t> counts_ = std::vector<std::int64_t>(1025, 0);
  std::int64_t total_ = 0;
};

// Shortest round-trip text of a number as JSON accepts it (infinities as +-9e999, which SQLite's
// JSON functions read back as infinity).
std::string json_number(double v);

}  // namespace rocpd::stats
