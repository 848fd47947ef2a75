#include "common/big_alloc.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace rocpd {

namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;
std::size_t rounded(std::size_t bytes) { return (bytes + kHuge - 1) & ~(kHuge - 1); }
}  // namespace

void* big_allocate(std::size_t bytes) {
  if (bytes < kHuge) return ::operator new(bytes);
  const std::size_t size = rounded(bytes);
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

void big_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kHuge) return ::operator delete(p);
  munmap(p, rounded(bytes));
}

}  // namespace rocpd
