// ChunkedVector (ext/common/chunked_vector.h) against std::vector with the same pushes.
#include "common/chunked_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace rocpd {
namespace {

struct Wide {
  int64_t a = 0, b = 0, c = 0;
};

TEST(ChunkedVector, MatchesAVectorAcrossChunkBoundaries) {
  ChunkedVector<Wide> chunked;
  std::vector<Wide> plain;
  const std::size_t n = 3 * ChunkedVector<Wide>::kChunk + 17;
  for (std::size_t i = 0; i < n; ++i) {
    const Wide w{static_cast<int64_t>(i), static_cast<int64_t>(i * 7), -static_cast<int64_t>(i)};
    chunked.push_back(w);
    plain.push_back(w);
  }
  ASSERT_EQ(chunked.size(), plain.size());
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(chunked[i].a, plain[i].a);
    ASSERT_EQ(chunked[i].b, plain[i].b);
    ASSERT_EQ(chunked[i].c, plain[i].c);
  }
  std::size_t i = 0;
  for (Wide& w : chunked) {
    ASSERT_EQ(w.b, plain[i].b);
    w.c = 1;  // writes through the iterator
    ++i;
  }
  EXPECT_EQ(i, n);
  const ChunkedVector<Wide>& view = chunked;
  int64_t ones = 0;
  for (const Wide& w : view) ones += w.c;
  EXPECT_EQ(ones, static_cast<int64_t>(n));
}

TEST(ChunkedVector, ElementsNeverMove) {
  ChunkedVector<Wide> chunked;
  chunked.push_back({1, 2, 3});
  const Wide* first = &chunked[0];
  for (std::size_t i = 0; i < 2 * ChunkedVector<Wide>::kChunk; ++i) chunked.push_back({});
  EXPECT_EQ(&chunked[0], first);
  EXPECT_EQ(first->b, 2);
}

TEST(ChunkedVector, EmptyHasNoElements) {
  ChunkedVector<Wide> chunked;
  EXPECT_TRUE(chunked.empty());
  EXPECT_EQ(chunked.size(), 0u);
  EXPECT_TRUE(chunked.begin() == chunked.end());
}

}  // namespace
}  // namespace rocpd
