#include "names/name_cache.h"

#include <algorithm>

#include "names/demangle.h"
#include "names/display_name.h"

namespace rocpd::names {

NameCache::NameCache(Compute compute, std::size_t capacity, std::size_t bytes)
    : compute_(compute),
      shard_capacity_(std::max<std::size_t>(1, capacity / kShards)),
      shard_bytes_(bytes / kShards),
      shards_(std::make_unique<Shard[]>(kShards)) {}

// libstdc++'s std::hash (murmur) measured faster than hand-written multiply-xorshift loops on
// 150-byte names.
std::size_t NameCache::hash_bytes(std::string_view s) noexcept { return std::hash<std::string_view>{}(s); }

std::string NameCache::get(std::string_view key) {
  const HashedKey hashed{key, hash_bytes(key)};
  // The low bits pick the bucket inside the shard's map; the high bits pick the shard.
  Shard& shard = shards_[(hashed.hash >> 56) % kShards];
  {
    std::lock_guard lock(shard.mutex);
    if (auto it = shard.index.find(hashed); it != shard.index.end()) {
      shard.order.splice(shard.order.begin(), shard.order, it->second);
      ++shard.stats.hits;
      return it->second->second;
    }
  }
  // Computed outside the lock: a slow name does not block lookups of other names. Two threads
  // missing on the same name both compute it; the second insert finds it present.
  std::string value = compute_(key);
  const std::size_t entry_bytes = key.size() + value.size();
  std::lock_guard lock(shard.mutex);
  ++shard.stats.misses;
  if (entry_bytes <= shard_bytes_ && shard.index.find(hashed) == shard.index.end()) {
    while (!shard.order.empty() &&
           (shard.order.size() >= shard_capacity_ || shard.stats.bytes + entry_bytes > shard_bytes_)) {
      evict_oldest(shard);
    }
    shard.order.emplace_front(std::string(key), value);
    shard.index.emplace(HashedKey{shard.order.front().first, hashed.hash}, shard.order.begin());
    shard.stats.bytes += entry_bytes;
  }
  return value;
}

void NameCache::evict_oldest(Shard& shard) {
  const auto& [oldest, value] = shard.order.back();
  shard.stats.bytes -= oldest.size() + value.size();
  shard.index.erase(HashedKey{oldest, hash_bytes(oldest)});
  shard.order.pop_back();
  ++shard.stats.evictions;
}

NameCache::Stats NameCache::stats() const {
  Stats total;
  for (std::size_t i = 0; i < kShards; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    total.hits += shards_[i].stats.hits;
    total.misses += shards_[i].stats.misses;
    total.evictions += shards_[i].stats.evictions;
    total.size += shards_[i].order.size();
    total.bytes += shards_[i].stats.bytes;
  }
  return total;
}

void NameCache::clear() {
  for (std::size_t i = 0; i < kShards; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    shards_[i].index.clear();
    shards_[i].order.clear();
    shards_[i].stats = {};
  }
}

NameCache& demangle_cache() {
  static NameCache cache(&demangle, kNameCacheCapacity);
  return cache;
}

NameCache& short_name_cache() {
  static NameCache cache(&kernel_short_name, kNameCacheCapacity);
  return cache;
}

NameCache& display_name_cache() {
  static NameCache cache(&display_name, kNameCacheCapacity);
  return cache;
}

std::string demangle_cached(std::string_view name) { return demangle_cache().get(name); }
std::string display_name_cached(std::string_view name) { return display_name_cache().get(name); }
std::string kernel_short_name_cached(std::string_view name) { return short_name_cache().get(name); }

}  // namespace rocpd::names
