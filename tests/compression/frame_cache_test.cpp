// The process-wide frame budget (FrameCache): LRU across readers, concurrent readers staying
// within the limit, frames larger than the whole limit, and release on close.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "compression/frame_cache.h"
#include "compression/frame_reader.h"
#include "compression/seek_table.h"
#include "zstd_test_util.h"

namespace rz = rocpd::zstd;
using rocpd_test::Bytes;

namespace {

rz::Frame frame_of(std::size_t n, const std::shared_ptr<rz::FrameCache>& cache) {
  return std::make_shared<rz::DecodedFrame>(n, cache->meter());
}

// Waits until the decode pool has finished (frames it decoded ahead are counted while alive).
void settle(const std::shared_ptr<rz::FrameCache>& cache, std::uint64_t live) {
  for (int i = 0; i < 500 && cache->stats().live_bytes != live; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

TEST(CompressionCache, LeastRecentlyUsedGoesFirst) {
  auto cache = std::make_shared<rz::FrameCache>(3000);
  cache->put(1, 0, frame_of(1000, cache));
  cache->put(2, 0, frame_of(1000, cache));
  cache->put(1, 1, frame_of(1000, cache));
  ASSERT_NE(cache->find(1, 0), nullptr);  // now the most recent: (2, 0) is the oldest
  cache->put(3, 0, frame_of(1000, cache));
  EXPECT_EQ(cache->find(2, 0), nullptr);
  EXPECT_NE(cache->find(1, 0), nullptr);
  EXPECT_NE(cache->find(1, 1), nullptr);
  EXPECT_NE(cache->find(3, 0), nullptr);
  const rz::CacheStats s = cache->stats();
  EXPECT_EQ(s.cached_bytes, 3000u);
  EXPECT_EQ(s.cached_frames, 3u);
  EXPECT_EQ(s.evictions, 1u);
  cache->forget(1);
  EXPECT_EQ(cache->stats().cached_bytes, 1000u);
  cache->set_limit(500);  // evicts at once
  EXPECT_EQ(cache->stats().cached_bytes, 0u);
  EXPECT_EQ(cache->stats().live_bytes, 0u);  // nothing holds the evicted frames
}

TEST(CompressionCache, ConcurrentReadersOfManyFilesStayWithinTheLimit) {
  // 6 files of 200 KiB in 4 KiB frames, a 64 KiB budget, 8 threads (two share a reader).
  constexpr std::size_t kFrame = 4096, kLimit = 64 * 1024;
  auto cache = std::make_shared<rz::FrameCache>(kLimit);
  std::vector<Bytes> data, files;
  std::vector<std::unique_ptr<rz::MemorySource>> sources;
  std::vector<std::unique_ptr<rz::FrameReader>> readers;
  for (unsigned f = 0; f < 6; ++f) {
    data.push_back(rocpd_test::sample_data(200 * 1024 + f, f));
    files.push_back(rocpd_test::seekable(data.back(), kFrame));
  }
  for (unsigned f = 0; f < 6; ++f) {
    sources.push_back(std::make_unique<rz::MemorySource>(files[f].data(), files[f].size()));
    readers.push_back(std::make_unique<rz::FrameReader>(*sources[f], rz::read_seek_table(*sources[f]), true, cache));
  }
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const unsigned f = t % 6;
      std::mt19937 rng(t);
      for (int k = 0; k < 1500; ++k) {
        // Alternate scans (read-ahead) and random probes.
        const std::uint64_t off = (k % 3 == 0) ? rng() % data[f].size() : (k * 1000u) % data[f].size();
        unsigned char buf[1500];
        const std::size_t got = readers[f]->read(off, buf, sizeof buf);
        if (std::memcmp(buf, data[f].data() + off, got) != 0) ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  const rz::CacheStats s = cache->stats();
  EXPECT_LE(s.peak_cached_bytes, kLimit);
  // Beyond the cache: what each thread is copying from, and frames being decoded ahead.
  EXPECT_LE(s.peak_live_bytes, kLimit + 8 * 3 * kFrame);
  EXPECT_GT(s.evictions, 0u);
  readers.clear();
  settle(cache, 0);
  EXPECT_EQ(cache->stats().cached_bytes, 0u);  // closing a reader releases its frames
  EXPECT_EQ(cache->stats().live_bytes, 0u);
}

TEST(CompressionCache, FrameLargerThanTheLimitIsStillReadable) {
  const Bytes data = rocpd_test::sample_data(40000, 3);
  const Bytes file = rocpd_test::seekable(data, 16 * 1024);
  rz::MemorySource src(file.data(), file.size());
  auto cache = std::make_shared<rz::FrameCache>(1000);
  {
    rz::FrameReader other(src, rz::read_seek_table(src), false, cache);
    rz::FrameReader reader(src, rz::read_seek_table(src), true, cache);
    Bytes back(data.size());
    for (std::size_t off = 0; off < data.size(); off += 512)
      reader.read(off, back.data() + off, std::min<std::size_t>(512, data.size() - off));
    EXPECT_EQ(back, data);
    const rz::CacheStats s = cache->stats();
    EXPECT_EQ(s.cached_frames, 1u);  // cached alone
    EXPECT_EQ(s.oversized, 3u);      // one decode per frame, not one per read
    unsigned char b[10];
    ASSERT_EQ(other.read(30000, b, 10), 10u);  // another reader's frame replaces it
    EXPECT_EQ(0, std::memcmp(b, data.data() + 30000, 10));
    EXPECT_EQ(cache->stats().cached_frames, 1u);
  }
  EXPECT_EQ(cache->stats().cached_bytes, 0u);
}
