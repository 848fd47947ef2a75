// One memory budget for every decoded frame of every open .zst file in the process: an LRU
// cache keyed by (reader, frame), shared by all readers and threads. Before it existed each open
// file had its own cache, so memory grew with the number of open files (16 members with 64 MiB
// frames reached 3.7 GB). No SQLite here.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>

namespace rocpd::zstd {

// Counts the bytes of decoded frames alive anywhere (cached, being read, decoded ahead), so the
// budget can be checked from outside (rocpd_zstd_cache_stats()).
struct MemoryMeter {
  std::atomic<std::uint64_t> live{0};
  std::atomic<std::uint64_t> peak{0};
  void add(std::uint64_t n);
  void sub(std::uint64_t n) { live.fetch_sub(n, std::memory_order_relaxed); }
};

// The decompressed bytes of one frame. Not zero-filled on allocation: the decoder writes them all.
class DecodedFrame {
 public:
  DecodedFrame(std::size_t size, std::shared_ptr<MemoryMeter> meter);
  ~DecodedFrame();
  DecodedFrame(const DecodedFrame&) = delete;
  DecodedFrame& operator=(const DecodedFrame&) = delete;
  unsigned char* data() { return bytes_.get(); }
  const unsigned char* data() const { return bytes_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<unsigned char[]> bytes_;
  std::size_t size_;
  std::shared_ptr<MemoryMeter> meter_;  // shared: a frame may outlive the cache that counted it
};
using Frame = std::shared_ptr<const DecodedFrame>;

struct CacheStats {
  std::uint64_t limit = 0;
  std::uint64_t cached_bytes = 0, cached_frames = 0, peak_cached_bytes = 0;
  std::uint64_t live_bytes = 0, peak_live_bytes = 0;
  std::uint64_t hits = 0, misses = 0, evictions = 0, oversized = 0;
};

class FrameCache {
 public:
  // 256 MiB: 4096 frames at the default 64 KiB (the per-file caches it replaces held 2 MiB
  // each), or four of the largest frames the format allows (64 MiB).
  static constexpr std::uint64_t kDefaultLimit = 256ull << 20;

  explicit FrameCache(std::uint64_t limit = kDefaultLimit);
  FrameCache(const FrameCache&) = delete;
  FrameCache& operator=(const FrameCache&) = delete;

  // The process-wide cache every reader uses unless given another (never destroyed: pool
  // threads may still finish a frame at exit).
  static const std::shared_ptr<FrameCache>& global();

  // A fresh key prefix for one reader.
  std::uint64_t new_owner();
  // The cached frame, or null; a hit makes it the most recently used.
  Frame find(std::uint64_t owner, std::uint64_t index);
  bool contains(std::uint64_t owner, std::uint64_t index);
  // Caches a frame, evicting the least recently used ones until the total fits the limit. A frame
  // larger than the whole limit is still cached, alone (everything else evicted), so the reader
  // working through it does not decode it again for every page.
  void put(std::uint64_t owner, std::uint64_t index, Frame frame);
  // Drops every frame of a reader that is going away.
  void forget(std::uint64_t owner);

  std::uint64_t limit() const;
  // Sets the limit (bytes > 0), evicts down to it at once and restarts the peak figures.
  void set_limit(std::uint64_t bytes);
  CacheStats stats() const;
  const std::shared_ptr<MemoryMeter>& meter() const { return meter_; }

 private:
  struct Key {
    std::uint64_t owner, index;
    auto operator<=>(const Key&) const = default;
  };
  struct Node {
    Key key;
    Frame frame;
  };
  // Caller holds mutex_; moves the evicted frames to `out` so they are freed after unlocking.
  void evict_to(std::uint64_t target, std::list<Node>& out);

  const std::shared_ptr<MemoryMeter> meter_ = std::make_shared<MemoryMeter>();
  std::atomic<std::uint64_t> next_owner_{1};
  mutable std::mutex mutex_;
  std::list<Node> lru_;  // front: most recently used
  std::map<Key, std::list<Node>::iterator> where_;
  std::uint64_t limit_;
  std::uint64_t bytes_ = 0, peak_bytes_ = 0;
  std::uint64_t hits_ = 0, misses_ = 0, evictions_ = 0, oversized_ = 0;
};

}  // namespace rocpd::zstd
