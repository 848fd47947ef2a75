// A growable array stored in fixed-size chunks (BigVector each): appending never moves the
// elements already stored. A BigVector of a member's rows doubles its storage as it grows, copying
// every row each time into memory the kernel must first zero (measured: 10 % of
// rocpd_kernel_sequences' time for 100k-op members); chunks of one size class are also what
// BigAllocReuse hands from one member to the next.
#pragma once
#include <cstddef>
#include <iterator>
#include <vector>

#include "common/big_alloc.h"

namespace rocpd {

template <class T>
class ChunkedVector {
 public:
  // Elements per chunk: the largest power of two whose chunk takes at most 4 MiB.
  static constexpr std::size_t kShift = [] {
    std::size_t shift = 0;
    while ((std::size_t{2} << shift) * sizeof(T) <= (std::size_t{4} << 20)) ++shift;
    return shift;
  }();
  static constexpr std::size_t kChunk = std::size_t{1} << kShift;

  void push_back(const T& v) {
    if ((size_ & (kChunk - 1)) == 0) {
      chunks_.emplace_back();
      chunks_.back().reserve(kChunk);
    }
    chunks_.back().push_back(v);
    ++size_;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[i >> kShift][i & (kChunk - 1)]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kShift][i & (kChunk - 1)]; }

  template <class V, class Owner>
  class Iter {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = V*;
    using reference = V&;
    Iter(Owner* owner, std::size_t i) : owner_(owner), i_(i) {}
    V& operator*() const { return (*owner_)[i_]; }
    V* operator->() const { return &(*owner_)[i_]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

   private:
    Owner* owner_;
    std::size_t i_;
  };
  using iterator = Iter<T, ChunkedVector>;
  using const_iterator = Iter<const T, const ChunkedVector>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::vector<BigVector<T>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace rocpd
