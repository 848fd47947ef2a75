#include "compression/frame_cache.h"

#include <algorithm>

namespace rocpd::zstd {

void MemoryMeter::add(std::uint64_t n) {
  const std::uint64_t now = live.fetch_add(n, std::memory_order_relaxed) + n;
  std::uint64_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
}

DecodedFrame::DecodedFrame(std::size_t size, std::shared_ptr<MemoryMeter> meter)
    : bytes_(std::make_unique_for_overwrite<unsigned char[]>(std::max<std::size_t>(size, 1))),
      size_(size),
      meter_(std::move(meter)) {
  if (meter_) meter_->add(size_);
}

DecodedFrame::~DecodedFrame() {
  if (meter_) meter_->sub(size_);
}

FrameCache::FrameCache(std::uint64_t limit) : limit_(std::max<std::uint64_t>(limit, 1)) {}

const std::shared_ptr<FrameCache>& FrameCache::global() {
  static const auto* cache = new std::shared_ptr<FrameCache>(std::make_shared<FrameCache>());
  return *cache;
}

std::uint64_t FrameCache::new_owner() { return next_owner_.fetch_add(1, std::memory_order_relaxed); }

Frame FrameCache::find(std::uint64_t owner, std::uint64_t index) {
  std::lock_guard lock(mutex_);
  auto it = where_.find({owner, index});
  if (it == where_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->frame;
}

bool FrameCache::contains(std::uint64_t owner, std::uint64_t index) {
  std::lock_guard lock(mutex_);
  return where_.count({owner, index}) != 0;
}

void FrameCache::evict_to(std::uint64_t target, std::list<Node>& out) {
  while (bytes_ > target && !lru_.empty()) {
    auto last = std::prev(lru_.end());
    bytes_ -= last->frame->size();
    where_.erase(last->key);
    out.splice(out.end(), lru_, last);
    ++evictions_;
  }
}

void FrameCache::put(std::uint64_t owner, std::uint64_t index, Frame frame) {
  if (!frame) return;
  std::list<Node> evicted;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  const Key key{owner, index};
  if (auto it = where_.find(key); it != where_.end()) {
    bytes_ -= it->second->frame->size();
    evicted.splice(evicted.end(), lru_, it->second);
    where_.erase(it);
  }
  const std::uint64_t size = frame->size();
  if (size > limit_) {
    evict_to(0, evicted);
    ++oversized_;
  } else {
    evict_to(limit_ - size, evicted);
  }
  lru_.push_front(Node{key, std::move(frame)});
  where_.emplace(key, lru_.begin());
  bytes_ += size;
  peak_bytes_ = std::max(peak_bytes_, bytes_);
}

void FrameCache::forget(std::uint64_t owner) {
  std::list<Node> dropped;
  std::lock_guard lock(mutex_);
  for (auto it = where_.lower_bound({owner, 0}); it != where_.end() && it->first.owner == owner;) {
    bytes_ -= it->second->frame->size();
    dropped.splice(dropped.end(), lru_, it->second);
    it = where_.erase(it);
  }
}

std::uint64_t FrameCache::limit() const {
  std::lock_guard lock(mutex_);
  return limit_;
}

void FrameCache::set_limit(std::uint64_t bytes) {
  std::list<Node> evicted;
  std::lock_guard lock(mutex_);
  limit_ = std::max<std::uint64_t>(bytes, 1);
  evict_to(limit_, evicted);
  peak_bytes_ = bytes_;
  meter_->peak.store(meter_->live.load());
}

CacheStats FrameCache::stats() const {
  std::lock_guard lock(mutex_);
  CacheStats s;
  s.limit = limit_;
  s.cached_bytes = bytes_;
  s.cached_frames = where_.size();
  s.peak_cached_bytes = peak_bytes_;
  s.live_bytes = meter_->live.load();
  s.peak_live_bytes = meter_->peak.load();
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.oversized = oversized_;
  return s;
}

}  // namespace rocpd::zstd
