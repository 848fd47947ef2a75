#include "names/name_cache.h"

#include <algorithm>

#include "names/demangle.h"

namespace rocpd::names {

NameCache::NameCache(Compute compute, std::size_t capacity)
    : compute_(compute),
      shard_capacity_(std::max<std::size_t>(1, capacity / kShards)),
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
  std::lock_guard lock(shard.mutex);
  ++shard.stats.misses;
  if (shard.index.find(hashed) == shard.index.end()) {
    if (shard.order.size() >= shard_capacity_) {
      const std::string& oldest = shard.order.back().first;
      shard.index.erase(HashedKey{oldest, hash_bytes(oldest)});
      shard.order.pop_back();
      ++shard.stats.evictions;
    }
    shard.order.emplace_front(std::string(key), value);
    shard.index.emplace(HashedKey{shard.order.front().first, hashed.hash}, shard.order.begin());
  }
  return value;
}

NameCache::Stats NameCache::stats() const {
  Stats total;
  for (std::size_t i = 0; i < kShards; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    total.hits += shards_[i].stats.hits;
    total.misses += shards_[i].stats.misses;
    total.evictions += shards_[i].stats.evictions;
    total.size += shards_[i].order.size();
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

std::string demangle_cached(std::string_view name) { return demangle_cache().get(name); }
std::string kernel_short_name_cached(std::string_view name) { return short_name_cache().get(name); }

}  // namespace rocpd::names
