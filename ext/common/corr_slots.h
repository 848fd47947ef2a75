#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/big_alloc.h"

namespace rocpd {

// Integer keys (correlation ids of one member) -> a dense slot (0, 1, ...) in the order first
// added, without an allocation per key. Keys that stay within a few times their count of the
// first one (API ids, correlation ids: the usual case) index a direct table, so that keys added
// or found in id order walk memory in order; others go to an open-addressing hash.
class CorrSlots {
 public:
  // The slot of `corr`, added when new.
  uint32_t add(int64_t corr) {
    if (!hashed_) {
      const uint64_t at = static_cast<uint64_t>(corr) - static_cast<uint64_t>(dense_min_);
      if (at < dense_.size()) [[likely]] {
        uint32_t& slot = dense_[at];
        if (slot == UINT32_MAX) slot = static_cast<uint32_t>(count_++);
        return slot;
      }
    }
    return add_slow(corr);
  }
  // Slots for all of `keys` (duplicates allowed) at once, on an empty map: ids numbered densely
  // (the usual case: API ids, correlation ids) get a direct table instead of the hash, so that
  // lookups in id order walk memory in order. add() must not follow.
  void assign(std::span<const int64_t> keys);
  // The slot of `corr`, or -1.
  int64_t find(int64_t corr) const {
    if (!hashed_) {
      const uint64_t at = static_cast<uint64_t>(corr) - static_cast<uint64_t>(dense_min_);
      if (at >= dense_.size() || dense_[at] == UINT32_MAX) return -1;
      return dense_[at];
    }
    return find_hashed(corr);
  }
  size_t size() const { return count_; }

 private:
  struct Entry {
    int64_t key = 0;
    uint32_t slot = UINT32_MAX;  // UINT32_MAX: empty
  };
  uint32_t add_slow(int64_t corr);
  int64_t find_hashed(int64_t corr) const;
  uint32_t add_hashed(int64_t corr);
  void grow();
  // Leaves the direct table: its keys move to the hash.
  void to_hashed();
  BigVector<Entry> table_;
  BigVector<uint32_t> dense_;  // slot of key dense_min_ + i (UINT32_MAX: none)
  int64_t dense_min_ = 0;
  size_t count_ = 0;
  bool hashed_ = false;  // keys are in table_, dense_ is empty
};

}  // namespace rocpd
