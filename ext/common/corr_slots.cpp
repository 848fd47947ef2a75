#include "common/corr_slots.h"

#include <algorithm>

namespace rocpd {

namespace {
uint64_t mix(int64_t key) {
  uint64_t x = static_cast<uint64_t>(key) + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

void CorrSlots::grow() {
  BigVector<Entry> old = std::move(table_);
  table_.assign(old.empty() ? 1024 : old.size() * 2, Entry{});
  const size_t mask = table_.size() - 1;
  for (const Entry& e : old) {
    if (e.slot == UINT32_MAX) continue;
    size_t h = mix(e.key) & mask;
    while (table_[h].slot != UINT32_MAX) h = (h + 1) & mask;
    table_[h] = e;
  }
}

uint32_t CorrSlots::add_slow(int64_t corr) {
  if (hashed_) return add_hashed(corr);
  if (count_ == 0) {
    dense_min_ = corr;
    dense_.assign(1024, UINT32_MAX);
    return add(corr);
  }
  // Past the direct table's end: grown while it stays within 4 slots per key (and 4096).
  const uint64_t at = static_cast<uint64_t>(corr) - static_cast<uint64_t>(dense_min_);
  if (at < 4 * static_cast<uint64_t>(count_ + 1) + 4096) {
    dense_.resize(std::max<uint64_t>(at + 1, 2 * dense_.size()), UINT32_MAX);
    return add(corr);
  }
  to_hashed();
  return add_hashed(corr);
}

void CorrSlots::to_hashed() {
  BigVector<uint32_t> dense = std::move(dense_);
  dense_ = {};
  hashed_ = true;
  const size_t n = count_;
  count_ = 0;
  // In slot order, so that each key gets its slot again.
  std::vector<int64_t> keys(n);
  for (size_t i = 0; i < dense.size(); ++i)
    if (dense[i] != UINT32_MAX) keys[dense[i]] = static_cast<int64_t>(static_cast<uint64_t>(dense_min_) + i);
  for (int64_t k : keys) add_hashed(k);
}

uint32_t CorrSlots::add_hashed(int64_t corr) {
  if ((count_ + 1) * 2 > table_.size()) grow();
  const size_t mask = table_.size() - 1;
  size_t h = mix(corr) & mask;
  while (table_[h].slot != UINT32_MAX) {
    if (table_[h].key == corr) return table_[h].slot;
    h = (h + 1) & mask;
  }
  table_[h] = {corr, static_cast<uint32_t>(count_++)};
  return table_[h].slot;
}

void CorrSlots::assign(std::span<const int64_t> keys) {
  if (keys.empty()) return;
  const auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
  const uint64_t range = static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo);
  if (range >= 4 * keys.size() + 4096) {
    hashed_ = true;
    for (int64_t k : keys) add_hashed(k);
    return;
  }
  dense_min_ = *lo;
  dense_.assign(range + 1, UINT32_MAX);
  for (int64_t k : keys) {
    uint32_t& slot = dense_[static_cast<uint64_t>(k) - static_cast<uint64_t>(dense_min_)];
    if (slot == UINT32_MAX) slot = static_cast<uint32_t>(count_++);
  }
}

int64_t CorrSlots::find_hashed(int64_t corr) const {
  if (table_.empty()) return -1;
  const size_t mask = table_.size() - 1;
  size_t h = mix(corr) & mask;
  while (table_[h].slot != UINT32_MAX) {
    if (table_[h].key == corr) return table_[h].slot;
    h = (h + 1) & mask;
  }
  return -1;
}

}  // namespace rocpd
