#include "common/big_alloc.h"

#include <sys/mman.h>

#include <bit>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace rocpd {

namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;

// The mapping's size for an array of `bytes`: whole huge pages, rounded up to three significant
// bits of their count (at most 1/4 more address space, never touched unless used), so that arrays
// of nearly equal sizes (one member's and the next one's) share a size class and can reuse.
std::size_t mapped_size(std::size_t bytes) {
  std::size_t pages = (bytes + kHuge - 1) / kHuge;
  const int shift = static_cast<int>(std::bit_width(pages)) - 3;
  if (shift > 0) {
    const std::size_t unit = std::size_t{1} << shift;
    pages = (pages + unit - 1) & ~(unit - 1);
  }
  return pages * kHuge;
}

void* map_aligned(std::size_t size) {
  // Map one huge page more than needed and keep the 2 MiB-aligned part: a huge page must be aligned.
  void* raw = mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHuge - 1) & ~(std::uintptr_t{kHuge} - 1);
  if (aligned > base) munmap(raw, aligned - base);
  const std::uintptr_t tail = aligned + size, end = base + size + kHuge;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
  void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(p, size, MADV_HUGEPAGE);  // advice only: failure (THP disabled) changes nothing
#endif
  return p;
}

// The arrays kept while scopes live. Never destroyed: a static array may be freed after it.
struct Kept {
  std::mutex mutex;
  int scopes = 0;
  std::size_t bytes = 0;
  std::vector<std::pair<void*, std::size_t>> blocks;  // (mapping, mapped_size)
};
Kept& kept() {
  static Kept* k = new Kept;
  return *k;
}

}  // namespace

void* big_allocate(std::size_t bytes) {
  if (bytes < kHuge) return ::operator new(bytes);
  const std::size_t size = mapped_size(bytes);
  {
    Kept& k = kept();
    std::lock_guard lock(k.mutex);
    for (auto it = k.blocks.begin(); it != k.blocks.end(); ++it) {
      if (it->second != size) continue;
      void* p = it->first;
      k.bytes -= size;
      k.blocks.erase(it);
      return p;
    }
  }
  return map_aligned(size);
}

void big_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kHuge) return ::operator delete(p);
  const std::size_t size = mapped_size(bytes);
  {
    Kept& k = kept();
    std::lock_guard lock(k.mutex);
    if (k.scopes > 0 && k.bytes + size <= kBigReuseBytes) {
      try {
        k.blocks.emplace_back(p, size);
        k.bytes += size;
        return;
      } catch (...) {  // no room to note it: unmapped below
      }
    }
  }
  munmap(p, size);
}

BigAllocReuse::BigAllocReuse() {
  Kept& k = kept();
  std::lock_guard lock(k.mutex);
  ++k.scopes;
}

BigAllocReuse::~BigAllocReuse() {
  std::vector<std::pair<void*, std::size_t>> drop;
  {
    Kept& k = kept();
    std::lock_guard lock(k.mutex);
    if (--k.scopes > 0) return;
    drop.swap(k.blocks);
    k.bytes = 0;
  }
  for (const auto& [p, size] : drop) munmap(p, size);
}

std::size_t BigAllocReuse::kept_bytes() {
  Kept& k = kept();
  std::lock_guard lock(k.mutex);
  return k.bytes;
}

}  // namespace rocpd
