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

class NameCache {
 public:
  using Compute = std::string (*)(std::string_view);
  // `capacity` entries in all (least recently used evicted first), split over shards that
  // each have their own lock so concurrent callers rarely wait on each other.
  NameCache(Compute compute, std::size_t capacity);

  std::string get(std::string_view key);

  struct Stats {
    std::uint64_t hits = 0, misses = 0, evictions = 0;
    std::size_t size = 0;
  };
  Stats stats() const;
  void clear();

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  struct Shard {
    mutable std::mutex mutex;
    // Most recently used at the front; the map points into the list.
    std::list<std::pair<std::string, std::string>> order;
    std::unordered_map<std::string_view, decltype(order)::iterator, Hash, std::equal_to<>> index;
    Stats stats;
  };
  static constexpr std::size_t kShards = 16;

  Compute compute_;
  std::size_t shard_capacity_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace rocpd::names

namespace rocpd::names {
// The process-wide caches behind demangle_cached / kernel_short_name_cached (for stats in
// tests and benchmarks).
NameCache& demangle_cache();
NameCache& short_name_cache();
}  // namespace rocpd::names
