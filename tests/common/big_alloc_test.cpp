// BigAllocReuse (ext/common/big_alloc.h): freed arrays are kept and handed out again only while a
// scope lives, up to kBigReuseBytes, and unmapped when the last scope ends.
#include "common/big_alloc.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace rocpd {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(BigAllocReuse, FreedArraysAreUnmappedWithoutAScope) {
  void* p = big_allocate(5 * kMiB);
  std::memset(p, 1, 5 * kMiB);
  big_free(p, 5 * kMiB);
  EXPECT_EQ(BigAllocReuse::kept_bytes(), 0u);
}

TEST(BigAllocReuse, AFreedArrayServesTheNextOfItsSizeClass) {
  BigAllocReuse scope;
  auto* p = static_cast<unsigned char*>(big_allocate(5 * kMiB));
  std::memset(p, 7, 5 * kMiB);
  big_free(p, 5 * kMiB);
  EXPECT_GE(BigAllocReuse::kept_bytes(), 5 * kMiB);
  // 5.5 MiB needs the same three huge pages: the kept mapping, with its pages as they were.
  auto* q = static_cast<unsigned char*>(big_allocate(5 * kMiB + kMiB / 2));
  EXPECT_EQ(q, p);
  EXPECT_EQ(q[5 * kMiB - 1], 7);
  EXPECT_EQ(BigAllocReuse::kept_bytes(), 0u);
  std::memset(q, 0, 5 * kMiB + kMiB / 2);  // the whole size asked for is usable
  big_free(q, 5 * kMiB + kMiB / 2);
}

TEST(BigAllocReuse, OtherSizeClassesAndSmallArraysAreNotReused) {
  BigAllocReuse scope;
  void* p = big_allocate(4 * kMiB);
  big_free(p, 4 * kMiB);
  void* q = big_allocate(40 * kMiB);
  EXPECT_NE(q, p);
  big_free(q, 40 * kMiB);
  void* small = big_allocate(kMiB);  // below 2 MiB: operator new, never kept
  big_free(small, kMiB);
  EXPECT_EQ(BigAllocReuse::kept_bytes(), 44 * kMiB);
}

TEST(BigAllocReuse, TheLastScopeToEndUnmapsWhatIsKept) {
  auto outer = std::make_unique<BigAllocReuse>();
  {
    BigAllocReuse inner;
    big_free(big_allocate(6 * kMiB), 6 * kMiB);
  }
  EXPECT_EQ(BigAllocReuse::kept_bytes(), 6 * kMiB);  // the outer scope still lives
  outer.reset();
  EXPECT_EQ(BigAllocReuse::kept_bytes(), 0u);
}

TEST(BigAllocReuse, KeepsAtMostItsBudget) {
  BigAllocReuse scope;
  std::vector<void*> arrays;
  const std::size_t size = 64 * kMiB;
  for (std::size_t total = 0; total <= 2 * kBigReuseBytes; total += size) arrays.push_back(big_allocate(size));
  for (void* p : arrays) big_free(p, size);
  EXPECT_LE(BigAllocReuse::kept_bytes(), kBigReuseBytes);
  EXPECT_GE(BigAllocReuse::kept_bytes(), kBigReuseBytes - size);
}

// Arrays freed on one thread serve allocations on another (members are computed on every core and
// freed on the connection's thread; the diagnosis suites run that under ThreadSanitizer).
TEST(BigAllocReuse, ThreadsShareTheKeptArrays) {
  BigAllocReuse scope;
  auto work = [](unsigned char fill) {
    for (int i = 0; i < 200; ++i) {
      const std::size_t size = (2 + static_cast<std::size_t>(i % 5)) * kMiB;
      auto* p = static_cast<unsigned char*>(big_allocate(size));
      p[0] = fill;
      p[size - 1] = fill;
      EXPECT_EQ(p[0], fill);
      big_free(p, size);
    }
  };
  std::thread a(work, 1), b(work, 2);
  a.join();
  b.join();
  EXPECT_LE(BigAllocReuse::kept_bytes(), kBigReuseBytes);
}

}  // namespace
}  // namespace rocpd
