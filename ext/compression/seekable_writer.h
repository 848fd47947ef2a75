// Writes the seekable layout: the input cut into independent zstd frames of `frame_size`
// decompressed bytes (the last one shorter), then the seek table with XXH64 checksums.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace rocpd::zstd {

inline constexpr int kDefaultLevel = 3;
// 64 KiB: bench_compress measured random B-tree probes 5x cheaper than with 256 KiB frames, for
// a 1-3 % lower compression ratio and the same scan speed.
inline constexpr std::size_t kDefaultFrameKiB = 64;

class SeekableWriter {
 public:
  using Sink = std::function<void(const void* data, std::size_t size)>;
  // Called between pieces of work of bounded size (about 128 KiB of input compressed, or 16 MiB of
  // zstd's tables faulted in: 740 MB at level 22 with 64 MiB frames); may throw to stop the writer
  // (an interrupt).
  using Check = std::function<void()>;
  // Throws std::invalid_argument for a level outside zstd's range or frame_size outside
  // [1 KiB, kMaxFrameDecompressedSize].
  SeekableWriter(Sink sink, int level, std::size_t frame_size, Check check = {});
  ~SeekableWriter();
  SeekableWriter(const SeekableWriter&) = delete;
  SeekableWriter& operator=(const SeekableWriter&) = delete;

  void write(const void* data, std::size_t size);
  // Flushes the last frame and the seek table; returns the total compressed size.
  std::uint64_t finish();
  std::size_t frame_count() const { return entries_.size() / 12; }

 private:
  void emit_frame(const unsigned char* data, std::size_t size);
  // zstd's allocator: faults large blocks in piece by piece, running check_ between pieces; when it
  // throws, the allocation fails (zstd returns an error) and the exception is kept in stopped_.
  static void* alloc_checked(void* self, std::size_t size) noexcept;
  static void free_checked(void* self, void* p) noexcept;

  Sink sink_;
  Check check_;
  std::size_t frame_size_;
  ZSTD_CCtx* cctx_ = nullptr;
  std::vector<unsigned char> pending_;
  std::vector<unsigned char> compressed_;
  std::vector<unsigned char> entries_;  // serialized seek-table entries
  std::uint64_t written_ = 0;
  bool finished_ = false;
  std::exception_ptr stopped_;
};

}  // namespace rocpd::zstd
