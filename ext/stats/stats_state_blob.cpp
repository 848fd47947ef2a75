// The BLOB form of StatsState, version 1 (byte layout in docs/states.md). Reading checks every
// field a later computation relies on (counts adding up, sorted exact values matching min and max,
// bucket ranges, sizes against the BLOB's length), so a hostile BLOB ends in FormatError, never in
// a crash or an out-of-range read.
#include <algorithm>
#include <cmath>

#include "common/state_blob.h"
#include "stats/stats_state.h"

namespace rocpd::stats {

namespace {
using state_blob::corrupt;
constexpr std::uint8_t kVersion = 1;
constexpr std::uint8_t kExactSummary = 0, kSketchSummary = 1;
constexpr std::uint8_t kMinIsInteger = 1, kMaxIsInteger = 2;

void put_number(state_blob::Writer& w, const std::optional<Number>& n) {
  if (!n) return w.put<std::int64_t>(0);
  std::visit([&](auto v) { w.put(v); }, *n);
}

Number get_number(state_blob::Reader& r, bool integer) {
  if (integer) return r.get<std::int64_t>();
  const double d = r.get<double>();
  if (std::isnan(d)) corrupt("NaN among the values");
  return d;
}

void put_store(state_blob::Writer& w, const BucketStore& store) {
  w.put<std::int32_t>(store.first());
  w.put<std::uint32_t>(static_cast<std::uint32_t>(store.counts().size()));
  for (std::uint64_t c : store.counts()) w.put(c);
}

BucketStore get_store(state_blob::Reader& r) {
  const auto first = r.get<std::int32_t>();
  const auto buckets = r.get<std::uint32_t>();
  if (buckets > kSketchMaxBuckets) corrupt("more sketch buckets than a store holds");
  r.need_items(buckets, 8);
  std::vector<std::uint64_t> counts(buckets);
  for (auto& c : counts) c = r.get<std::uint64_t>();
  try {
    return BucketStore(first, std::move(counts));
  } catch (const std::invalid_argument& e) {
    corrupt(e.what());
  }
}

// a + b + ... without wrapping around.
bool add_up(std::uint64_t& total, std::uint64_t n) { return !__builtin_add_overflow(total, n, &total); }
}  // namespace

std::vector<std::uint8_t> StatsState::to_blob() const {
  state_blob::Writer w(state_blob::kStats, kVersion);
  w.reserve(128 + (sketched_ ? 24 + 8 * (sketch_.positive().counts().size() + sketch_.negative().counts().size())
                              : 8 * exact_.size()));
  w.u8(sketched_ ? kSketchSummary : kExactSummary);
  const auto is_int = [](const std::optional<Number>& n) { return n && std::holds_alternative<std::int64_t>(*n); };
  w.u8(static_cast<std::uint8_t>((is_int(min_) ? kMinIsInteger : 0) | (is_int(max_) ? kMaxIsInteger : 0)));
  w.u8(0);
  w.put(count_);
  w.put(ints_.n);
  w.put(reals_.pos_inf);
  w.put(reals_.neg_inf);
  w.put(ints_.sum);
  for (std::uint64_t limb : ints_.sum_sq) w.put(limb);
  w.put(reals_.sum);
  w.put(reals_.compensation);
  w.put(static_cast<double>(reals_.mean));
  // sqrt(M2 / n), not M2: it never exceeds the largest double, where M2 of values beyond 1e154 does.
  w.put(static_cast<double>(reals_.n ? std::sqrt(reals_.m2 / static_cast<long double>(reals_.n)) : 0));
  put_number(w, min_);
  put_number(w, max_);
  if (sketched_) {
    w.put(sketch_.zeros());
    put_store(w, sketch_.positive());
    put_store(w, sketch_.negative());
  } else if (exact_.all_integers()) {
    // Sorted: the same values give the same bytes whatever the order they arrived or merged in.
    auto values = exact_.integers();
    std::sort(values.begin(), values.end());
    for (std::int64_t v : values) w.put(v);
  } else {
    auto values = exact_.reals();
    std::sort(values.begin(), values.end());
    for (double v : values) w.put(v);
  }
  return w.take();
}

StatsState StatsState::from_blob(std::span<const std::uint8_t> blob) {
  state_blob::Reader r(blob, state_blob::kStats, kVersion);
  StatsState s;
  const std::uint8_t summary = r.u8(), types = r.u8(), reserved = r.u8();
  if (summary != kExactSummary && summary != kSketchSummary) corrupt("unknown quantile summary");
  if ((types & ~(kMinIsInteger | kMaxIsInteger)) != 0 || reserved != 0) corrupt("unknown flags");
  s.count_ = r.get<std::uint64_t>();
  s.ints_.n = r.get<std::uint64_t>();
  s.reals_.pos_inf = r.get<std::uint64_t>();
  s.reals_.neg_inf = r.get<std::uint64_t>();
  s.ints_.sum = r.get<__int128>();
  for (auto& limb : s.ints_.sum_sq) limb = r.get<std::uint64_t>();
  s.reals_.sum = r.get<double>();
  s.reals_.compensation = r.get<double>();
  s.reals_.mean = r.get<double>();
  const double spread = r.get<double>();
  const Number min = get_number(r, types & kMinIsInteger), max = get_number(r, types & kMaxIsInteger);

  std::uint64_t counted = s.ints_.n;
  if (!add_up(counted, s.reals_.pos_inf) || !add_up(counted, s.reals_.neg_inf) || counted > s.count_)
    corrupt("counts do not add up");
  s.reals_.n = s.count_ - counted;
  if (!std::isfinite(s.reals_.mean) || !std::isfinite(spread) || spread < 0) corrupt("real moments");
  s.reals_.m2 = static_cast<long double>(s.reals_.n) * spread * spread;
  if (s.ints_.n == 0 && (s.ints_.sum != 0 || s.ints_.sum_sq != U192{})) corrupt("integer sums without integers");
  if (!s.ints_.consistent()) corrupt("integer sums inconsistent");
  if (s.reals_.n == 0 && (s.reals_.sum != 0 || s.reals_.compensation != 0 || s.reals_.mean != 0 || spread != 0))
    corrupt("real sums without reals");
  if (s.count_ == 0) {
    if (types != 0 || summary != kExactSummary) corrupt("an empty state with values");
  } else {
    if (compare(min, max) > 0) corrupt("min above max");
    if (s.ints_.n == s.count_ && types != (kMinIsInteger | kMaxIsInteger)) corrupt("REAL extremes of integers");
    if ((s.reals_.pos_inf != 0) != (max == Number{HUGE_VAL})) corrupt("infinity count and max disagree");
    if ((s.reals_.neg_inf != 0) != (min == Number{-HUGE_VAL})) corrupt("infinity count and min disagree");
    s.min_ = min;
    s.max_ = max;
  }

  if (summary == kSketchSummary) {
    s.sketched_ = true;
    const auto zeros = r.get<std::uint64_t>();
    BucketStore positive = get_store(r);
    BucketStore negative = get_store(r);
    s.sketch_ = QuantileSketch(std::move(positive), std::move(negative), zeros);
    std::uint64_t finite = 0;
    if (!add_up(finite, s.sketch_.positive().total()) || !add_up(finite, s.sketch_.negative().total()) ||
        !add_up(finite, zeros) || finite != s.count_ - s.reals_.pos_inf - s.reals_.neg_inf)
      corrupt("sketch counts do not add up");
  } else {
    if (s.count_ > kExactQuantileLimit) corrupt("more exact values than a state holds");
    r.need_items(s.count_, 8);
    const bool integers = s.ints_.n == s.count_;
    std::optional<Number> previous;
    std::uint64_t pos_inf = 0, neg_inf = 0;
    IntegerMoments recomputed;
    for (std::uint64_t i = 0; i < s.count_; ++i) {
      const Number v = get_number(r, integers);
      if (!previous && compare(v, min) != 0) corrupt("the smallest exact value is not min");
      if (previous && compare(*previous, v) > 0) corrupt("exact values out of order");
      if (v == Number{HUGE_VAL}) ++pos_inf;
      if (v == Number{-HUGE_VAL}) ++neg_inf;
      if (integers) recomputed.add(std::get<std::int64_t>(v));
      std::visit([&](auto x) { s.exact_.add(x); }, v);
      previous = v;
    }
    if (previous && compare(*previous, max) != 0) corrupt("the largest exact value is not max");
    if (pos_inf != s.reals_.pos_inf || neg_inf != s.reals_.neg_inf) corrupt("infinity counts");
    // All-integer values are all there: their sums must be exactly the stored ones.
    if (integers && (recomputed.sum != s.ints_.sum || recomputed.sum_sq != s.ints_.sum_sq))
      corrupt("integer sums and exact values disagree");
  }
  r.finish();
  return s;
}

}  // namespace rocpd::stats
