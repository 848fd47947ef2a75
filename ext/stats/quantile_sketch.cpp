#include "stats/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rocpd::stats {

namespace {
constexpr auto kMaxBuckets = static_cast<std::int64_t>(kSketchMaxBuckets);

// gamma = (1 + a) / (1 - a): a bucket (gamma^(i-1), gamma^i] is within a of its representative.
const double kLogGamma = std::log1p(kSketchBucketAlpha) - std::log1p(-kSketchBucketAlpha);
const double kLogHalfWidth = std::log(2.0 / (1.0 + std::exp(kLogGamma)));  // log(2 / (gamma + 1))

std::int32_t raw_index(double m) { return static_cast<std::int32_t>(std::ceil(std::log(m) / kLogGamma)); }

void add_to(std::uint64_t& total, std::uint64_t count) {
  if (__builtin_add_overflow(total, count, &total)) throw std::overflow_error("more than 2^64 - 1 values");
}
}  // namespace

std::int32_t QuantileSketch::min_index() {
  static const std::int32_t index = raw_index(std::numeric_limits<double>::denorm_min());
  return index;
}
std::int32_t QuantileSketch::max_index() {
  static const std::int32_t index = raw_index(std::numeric_limits<double>::max());
  return index;
}

std::int32_t QuantileSketch::index_of(double m) { return std::clamp(raw_index(m), min_index(), max_index()); }

double QuantileSketch::representative(std::int32_t index) {
  // exp of the sum, not gamma^i * 2/(gamma+1): gamma^i alone may overflow where the product does not.
  return std::exp(index * kLogGamma + kLogHalfWidth);
}

BucketStore::BucketStore(std::int32_t first, std::vector<std::uint64_t> counts) : first_(first), counts_(std::move(counts)) {
  if (counts_.size() > kSketchMaxBuckets) throw std::invalid_argument("more buckets than a store holds");
  if (!counts_.empty() && (first_ < QuantileSketch::min_index() || last() > QuantileSketch::max_index()))
    throw std::invalid_argument("bucket index out of range");
  while (!counts_.empty() && counts_.back() == 0) counts_.pop_back();
  const auto zeros = std::find_if(counts_.begin(), counts_.end(), [](std::uint64_t c) { return c != 0; });
  first_ += static_cast<std::int32_t>(zeros - counts_.begin());
  counts_.erase(counts_.begin(), zeros);
  if (counts_.empty()) first_ = 0;
}

std::uint64_t BucketStore::total() const {
  std::uint64_t total = 0;
  for (std::uint64_t c : counts_) add_to(total, c);
  return total;
}

void BucketStore::fold_below(std::int64_t floor) {
  if (counts_.empty() || floor <= first_) return;
  const auto below = static_cast<std::size_t>(std::min<std::int64_t>(floor - first_, counts_.size()));
  std::uint64_t folded = 0;
  for (std::size_t i = 0; i < below; ++i) add_to(folded, counts_[i]);
  counts_.erase(counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(below));
  if (counts_.empty()) counts_.push_back(0);  // every bucket was below: `floor` becomes the only one
  first_ = static_cast<std::int32_t>(floor);
  add_to(counts_.front(), folded);
}

void BucketStore::add(std::int32_t index, std::uint64_t count) {
  if (count == 0) return;
  if (counts_.empty()) {
    first_ = index;
    counts_.assign(1, count);
    return;
  }
  if (index > last()) {
    // Fold first, so the vector never grows past kMaxBuckets (indices span ~145000 values).
    fold_below(std::int64_t{index} - kMaxBuckets + 1);
    counts_.resize(static_cast<std::size_t>(index - first_ + 1), 0);
  } else if (index < first_) {
    // Below the kept range: the value joins the lowest bucket the store may keep.
    index = static_cast<std::int32_t>(std::max<std::int64_t>(index, last() - kMaxBuckets + 1));
    counts_.insert(counts_.begin(), static_cast<std::size_t>(first_ - index), 0);
    first_ = index;
  }
  add_to(counts_[static_cast<std::size_t>(index - first_)], count);
}

void BucketStore::merge(const BucketStore& other) {
  // Highest bucket first: the range grows (and folds) once, not once per bucket.
  for (std::size_t i = other.counts_.size(); i-- > 0;)
    add(other.first_ + static_cast<std::int32_t>(i), other.counts_[i]);
}

void QuantileSketch::add(double x) {
  if (x > 0) {
    positive_.add(index_of(x), 1);
  } else if (x < 0) {
    negative_.add(index_of(-x), 1);
  } else {
    add_to(zeros_, 1);
  }
}

void QuantileSketch::merge(const QuantileSketch& other) {
  positive_.merge(other.positive_);
  negative_.merge(other.negative_);
  add_to(zeros_, other.zeros_);
}

std::uint64_t QuantileSketch::count() const {
  std::uint64_t total = positive_.total();
  add_to(total, negative_.total());
  add_to(total, zeros_);
  return total;
}

double QuantileSketch::value_at_rank(std::uint64_t j, double lo, double hi) const {
  auto answer = [&](double v) { return std::clamp(v, lo, hi); };
  // Ascending order: negative values from the largest magnitude down, zeros, positive values up.
  const auto neg = negative_.counts();
  for (std::size_t i = neg.size(); i-- > 0;) {
    if (j < neg[i]) return answer(-representative(negative_.first() + static_cast<std::int32_t>(i)));
    j -= neg[i];
  }
  if (j < zeros_) return answer(0.0);
  j -= zeros_;
  const auto pos = positive_.counts();
  for (std::size_t i = 0; i < pos.size(); ++i) {
    if (j < pos[i]) return answer(representative(positive_.first() + static_cast<std::int32_t>(i)));
    j -= pos[i];
  }
  return hi;  // j >= count(): callers never ask; the largest value is the safe answer
}

}  // namespace rocpd::stats
