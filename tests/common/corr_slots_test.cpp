// CorrSlots against a std::unordered_map doing the same numbering: keys in id order (the direct
// table), sparse or descending keys (the hash), and a direct table that turns into the hash midway.
#include "common/corr_slots.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

namespace {

using rocpd::CorrSlots;

// Adds `keys` in order, checking every slot and then every lookup (also of absent keys).
void check(const std::vector<int64_t>& keys, const std::vector<int64_t>& absent) {
  CorrSlots slots;
  std::unordered_map<int64_t, uint32_t> truth;
  for (int64_t k : keys) {
    const auto [it, fresh] = truth.try_emplace(k, static_cast<uint32_t>(truth.size()));
    ASSERT_EQ(slots.add(k), it->second) << "key " << k << (fresh ? " (new)" : " (again)");
  }
  ASSERT_EQ(slots.size(), truth.size());
  for (const auto& [k, slot] : truth) ASSERT_EQ(slots.find(k), static_cast<int64_t>(slot)) << "key " << k;
  for (int64_t k : absent) {
    if (!truth.count(k)) {
      ASSERT_EQ(slots.find(k), -1) << "absent key " << k;
    }
  }
}

TEST(CorrSlots, KeysInIdOrder) {
  std::vector<int64_t> keys;
  for (int64_t k = 5; k < 300000; k += 1 + k % 3) keys.push_back(k);
  check(keys, {0, 4, 300000, 300001, INT64_MIN, INT64_MAX, -1});
}

TEST(CorrSlots, RepeatedAndOutOfOrderKeysNearTheFirst) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> keys;
  for (int i = 0; i < 50000; ++i) keys.push_back(1000 + static_cast<int64_t>(rng() % 60000));
  check(keys, {999, 61000, 0});
}

TEST(CorrSlots, SparseKeysGoToTheHash) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> keys;
  for (int i = 0; i < 40000; ++i) keys.push_back(static_cast<int64_t>(rng()));
  keys.push_back(INT64_MIN);
  keys.push_back(INT64_MAX);
  keys.push_back(keys[17]);
  check(keys, {0, 1, -1, 42});
}

TEST(CorrSlots, DirectTableTurnsIntoTheHashMidway) {
  std::vector<int64_t> keys;
  for (int64_t k = 100; k < 20000; ++k) keys.push_back(k);
  keys.push_back(99);                   // below the first key
  keys.push_back(int64_t{1} << 40);     // far above
  for (int64_t k = 150; k < 25000; k += 7) keys.push_back(k);  // old and new keys after the switch
  check(keys, {98, 25001, (int64_t{1} << 40) + 1});
}

TEST(CorrSlots, AssignThenAdd) {
  CorrSlots slots;
  const std::vector<int64_t> keys = {10, 12, 10, 11, 15};
  slots.assign(keys);
  EXPECT_EQ(slots.size(), 4u);
  EXPECT_EQ(slots.find(10), 0);
  EXPECT_EQ(slots.find(12), 1);
  EXPECT_EQ(slots.find(11), 2);
  EXPECT_EQ(slots.find(15), 3);
  EXPECT_EQ(slots.find(13), -1);
  EXPECT_EQ(slots.add(13), 4u);
  EXPECT_EQ(slots.add(12), 1u);
  EXPECT_EQ(slots.add(int64_t{1} << 50), 5u);
  EXPECT_EQ(slots.find(15), 3);
  EXPECT_EQ(slots.find(int64_t{1} << 50), 5);
}

}  // namespace
