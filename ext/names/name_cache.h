// A bounded, thread-safe memo of a string -> string function (no SQLite here).
// Trace columns hold few distinct kernel names repeated millions of times, so demangling each
// distinct name once and looking the rest up is what makes demangle() cheap on a column.
#pragma once
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace rocpd::names {

// Bytes of keys plus values each process-wide name cache holds at most.
inline constexpr std::size_t kNameCacheBytes = 32 * 1024 * 1024;

class NameCache {
 public:
  using Compute = std::string (*)(std::string_view);
  // `capacity` entries and `bytes` of keys plus values in all (least recently used evicted
  // first), split over shards that each have their own lock so concurrent callers rarely wait
  // on each other. The byte bound matters for hostile columns of huge distinct names: an entry
  // larger than a shard's share of `bytes` is computed every time instead of kept.
  NameCache(Compute compute, std::size_t capacity, std::size_t bytes = kNameCacheBytes);

  std::string get(std::string_view key);

  struct Stats {
    std::uint64_t hits = 0, misses = 0, evictions = 0;
    std::size_t size = 0;
    std::size_t bytes = 0;  // keys plus values held
  };
  Stats stats() const;
  void clear();

 private:
  // The key bytes with their hash, computed once per lookup (it also picks the shard).
  struct HashedKey {
    std::string_view bytes;
    std::size_t hash;
    bool operator==(const HashedKey& o) const noexcept { return hash == o.hash && bytes == o.bytes; }
  };
  struct KeyHash {
    std::size_t operator()(const HashedKey& k) const noexcept { return k.hash; }
  };
  struct Shard {
    mutable std::mutex mutex;
    // Most recently used at the front; the map's keys view the strings in the list.
    std::list<std::pair<std::string, std::string>> order;
    std::unordered_map<HashedKey, decltype(order)::iterator, KeyHash> index;
    Stats stats;
  };
  static std::size_t hash_bytes(std::string_view s) noexcept;
  static constexpr std::size_t kShards = 16;

  static void evict_oldest(Shard& shard);

  Compute compute_;
  std::size_t shard_capacity_;
  std::size_t shard_bytes_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace rocpd::names

namespace rocpd::names {
// The process-wide caches behind demangle_cached / kernel_short_name_cached (for stats in
// tests and benchmarks).
NameCache& demangle_cache();
NameCache& short_name_cache();
}  // namespace rocpd::names
