// An allocator for the large arrays the analyses build per member (rows, calls, id tables: tens
// of MB for a member of 100k ops). On the project's machines the first touch of each 4 KiB page
// costs a page fault that dominated those computations (measured: 60 % of rocpd_kernel_stacks'
// time); arrays of at least 2 MiB are mapped on their own, 2 MiB-aligned, and advised as huge pages
// (MADV_HUGEPAGE: one fault per 2 MiB where transparent huge pages are enabled, `madvise` mode
// included; elsewhere the advice is ignored and nothing changes). Smaller arrays use operator new.
// It changes no process-wide setting (the host application's malloc is left as it is).
//
// A mapping's pages are zeroed by the kernel at their first touch, every time: a computation that
// builds the same arrays member after member paid that for each member (measured: 8 % of
// rocpd_kernel_sequences' time). While a BigAllocReuse scope lives, freed arrays are kept (up to
// kBigReuseBytes in all) for the next allocation of their size class instead of being unmapped.
#pragma once
#include <cstddef>
#include <vector>

namespace rocpd {

// `bytes` of memory for an array; throws std::bad_alloc.
void* big_allocate(std::size_t bytes);
// Frees what big_allocate(bytes) returned (the same `bytes`).
void big_free(void* p, std::size_t bytes) noexcept;

inline constexpr std::size_t kBigReuseBytes = std::size_t{256} << 20;

// Scopes may nest and live on any threads; the arrays kept are unmapped when the last one ends.
class BigAllocReuse {
 public:
  BigAllocReuse();
  ~BigAllocReuse();
  BigAllocReuse(const BigAllocReuse&) = delete;
  BigAllocReuse& operator=(const BigAllocReuse&) = delete;
  // Bytes kept for reuse now (tests).
  static std::size_t kept_bytes();
};

template <class T>
struct BigAlloc {
  using value_type = T;
  BigAlloc() = default;
  template <class U>
  BigAlloc(const BigAlloc<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(big_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { big_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const BigAlloc<U>&) const noexcept { return true; }
};

template <class T>
using BigVector = std::vector<T, BigAlloc<T>>;

}  // namespace rocpd
