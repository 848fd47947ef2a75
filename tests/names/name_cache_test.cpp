// The bounded name cache: correctness, bound, eviction and concurrent use.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "names/demangle.h"
#include "names/name_cache.h"

namespace names = rocpd::names;

namespace {
std::atomic<int> computations{0};
std::string upper(std::string_view s) {
  ++computations;
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

TEST(NamesCache, ComputesOncePerDistinctKey) {
  computations = 0;
  names::NameCache cache(&upper, 1024);
  for (int round = 0; round < 100; ++round) {
    for (int k = 0; k < 50; ++k) EXPECT_EQ(cache.get("name" + std::to_string(k)), "NAME" + std::to_string(k));
  }
  EXPECT_EQ(computations.load(), 50);
  auto s = cache.stats();
  EXPECT_EQ(s.misses, 50u);
  EXPECT_EQ(s.hits, 4950u);
  EXPECT_EQ(s.size, 50u);
}

TEST(NamesCache, StaysWithinItsCapacity) {
  names::NameCache cache(&upper, 256);
  for (int k = 0; k < 10000; ++k) cache.get("key" + std::to_string(k));
  auto s = cache.stats();
  EXPECT_LE(s.size, 256u);
  EXPECT_EQ(s.evictions, 10000u - s.size);
  // Evicted keys are computed again, with the same result.
  EXPECT_EQ(cache.get("key0"), "KEY0");
}

TEST(NamesCache, KeysAreBytesIncludingNulsAndInvalidUtf8) {
  names::NameCache cache(&upper, 64);
  EXPECT_EQ(cache.get(std::string("a\0b", 3)), std::string("A\0B", 3));
  EXPECT_EQ(cache.get("a"), "A");
  EXPECT_EQ(cache.get("\xff\xfe"), "\xff\xfe");
  EXPECT_EQ(cache.get(""), "");
  EXPECT_EQ(cache.stats().size, 4u);
}

TEST(NamesCache, ConcurrentCallersGetCorrectResults) {
  names::NameCache cache(&upper, 128);  // smaller than the key set: evictions under contention
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        int k = (i * 7 + t) % 300;
        if (cache.get("k" + std::to_string(k)) != "K" + std::to_string(k)) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.stats().size, 128u);
}

TEST(NamesCache, ProcessWideCachesMatchUncachedFunctions) {
  const char* names_[] = {"_ZN12_GLOBAL__N_16kernelEPf", "_Z3foov.kd", "Cijk_Ailk", "_Zbroken",
                          "_ZN4vllm15rms_norm_kernelIfTniLi1024EEEvPT_PKT_PKT_fii"};
  for (int round = 0; round < 3; ++round) {
    for (const char* n : names_) {
      EXPECT_EQ(names::demangle_cached(n), names::demangle(n));
      EXPECT_EQ(names::kernel_short_name_cached(n), names::kernel_short_name(n));
    }
  }
  EXPECT_GE(names::demangle_cache().stats().hits, 10u);
  EXPECT_LE(names::demangle_cache().stats().size, names::kNameCacheCapacity);
}

TEST(NamesCache, StaysWithinItsByteBudget) {
  // 16 shards of 64 KiB: distinct 10 kB names fill it long before 4096 entries would.
  names::NameCache cache(&upper, 4096, 16 * 64 * 1024);
  for (int k = 0; k < 2000; ++k) EXPECT_EQ(cache.get(std::string(5000, 'a') + std::to_string(k)).size(), 5000u + std::to_string(k).size());
  const auto s = cache.stats();
  EXPECT_LE(s.bytes, 16u * 64 * 1024);
  EXPECT_GT(s.size, 0u);
  EXPECT_LT(s.size, 2000u);
  EXPECT_EQ(s.evictions, 2000u - s.size);
  // An entry larger than a shard's share is computed, returned and not kept.
  const std::string huge(100 * 1024, 'b');
  EXPECT_EQ(cache.get(huge), std::string(100 * 1024, 'B'));
  EXPECT_EQ(cache.stats().size, s.size);
  EXPECT_LE(cache.stats().bytes, 16u * 64 * 1024);
}

TEST(NamesCache, ProcessWideCachesAreBoundedInBytes) {
  // A column of distinct 60 kB names (below the demangler's input cap) cannot pin 4096 x 120 kB.
  names::demangle_cache().clear();
  for (int k = 0; k < 600; ++k) (void)names::demangle_cached("_Z1fI" + std::string(60000, 'i') + std::to_string(k));
  EXPECT_LE(names::demangle_cache().stats().bytes, names::kNameCacheBytes);
  names::demangle_cache().clear();
}
