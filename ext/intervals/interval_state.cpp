#include "intervals/interval_state.h"

#include <algorithm>

#include "common/state_blob.h"

namespace rocpd::intervals {

namespace {
constexpr std::uint8_t kVersion = 1;
// Rows wait in `pending_` until they outnumber the union (and this many): memory stays within
// twice the union plus this, and each row is sorted O(1) times on average.
constexpr std::size_t kMinPending = 4096;
}  // namespace

void IntervalSet::add(Interval iv) {
  if (iv.empty()) return;
  pending_.push_back(iv);
  if (pending_.size() >= std::max(kMinPending, merged_.size())) compact();
}

void IntervalSet::add(std::span<const Interval> ivs) {
  for (const Interval& iv : ivs) add(iv);
}

void IntervalSet::compact() {
  if (pending_.empty()) return;
  sort_by_start(pending_);
  std::vector<Interval> all;
  all.reserve(merged_.size() + pending_.size());
  std::merge(merged_.begin(), merged_.end(), pending_.begin(), pending_.end(), std::back_inserter(all),
             [](const Interval& a, const Interval& b) { return a.start < b.start; });
  pending_.clear();
  merged_.clear();
  Merger merger;
  Interval done{};
  for (const Interval& iv : all)
    if (merger.push(iv, done)) merged_.push_back(done);
  if (merger.finish(done)) merged_.push_back(done);
}

const std::vector<Interval>& IntervalSet::merged() {
  compact();
  return merged_;
}

uint64_t IntervalSet::length() {
  uint64_t total = 0;
  for (const Interval& iv : merged()) total += iv.length();  // disjoint within int64: <= 2^64 - 1
  return total;
}

std::vector<uint8_t> IntervalSet::to_blob() {
  const auto& ivs = merged();
  state_blob::Writer w(state_blob::kIntervalUnion, kVersion);
  w.reserve(16 + 16 * ivs.size());
  for (int i = 0; i < 3; ++i) w.u8(0);  // reserved
  w.put<uint64_t>(ivs.size());
  for (const Interval& iv : ivs) {
    w.put(iv.start);
    w.put(iv.end);
  }
  return w.take();
}

std::vector<Interval> IntervalSet::from_blob(std::span<const uint8_t> blob) {
  state_blob::Reader r(blob, state_blob::kIntervalUnion, kVersion);
  for (int i = 0; i < 3; ++i)
    if (r.u8() != 0) state_blob::corrupt("unknown flags");
  const auto n = r.get<uint64_t>();
  r.need_items(n, 16);
  std::vector<Interval> ivs(static_cast<std::size_t>(n));
  for (auto& iv : ivs) {
    iv.start = r.get<int64_t>();
    iv.end = r.get<int64_t>();
    if (iv.empty()) state_blob::corrupt("an empty interval");
    if (&iv != ivs.data() && iv.start <= (&iv - 1)->end) state_blob::corrupt("intervals not sorted and disjoint");
  }
  r.finish();
  return ivs;
}

}  // namespace rocpd::intervals
