// Random access into a seekable zstd file: decompresses only the frames a read touches and keeps
// a small, bounded LRU cache of decompressed frames. When reads walk forward frame after frame (a
// scan), the next frames are decompressed ahead on the shared decode pool. Thread-safe: one mutex
// per reader.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "compression/byte_source.h"
#include "compression/decode_pool.h"
#include "compression/seek_table.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace rocpd::zstd {

// Decompresses one frame described by `entry` (index `index`, for messages) from `compressed`;
// verifies it is exactly one frame of exactly the declared size and, when `checksum` is set, its
// XXH64. Throws FormatError.
std::vector<unsigned char> decode_frame(ZSTD_DCtx* dctx, const unsigned char* compressed, const FrameEntry& entry,
                                        std::size_t index, bool checksum);

class FrameReader {
 public:
  // Cache budget per open file: 2 MiB of decompressed frames (32 frames at the default 64 KiB),
  // at least 4 and at most 64 frames. Enough for the B-tree interior pages a query revisits plus
  // the frames of a scan and its read-ahead.
  static constexpr std::size_t kCacheBytes = 2u << 20;
  static constexpr std::size_t kMinCacheFrames = 4, kMaxCacheFrames = 64;
  static std::size_t default_cache_frames(const SeekTable& table);

  // Read-ahead budget of a sequential reader, in decompressed bytes (at least one frame).
  static constexpr std::size_t kReadAheadBytes = 512 * 1024;

  // cache_frames 0: default_cache_frames(table).
  FrameReader(const ByteSource& src, SeekTable table, std::size_t cache_frames = 0, bool read_ahead = true);
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  std::uint64_t size() const { return table_.decompressed_size; }
  const SeekTable& table() const { return table_; }
  // Copies decompressed bytes [offset, offset + n) clipped at size(); returns how many were copied.
  std::size_t read(std::uint64_t offset, void* dst, std::size_t n);
  // Decompresses and checks every frame (bypassing the cache); throws on the first bad one.
  void verify_all();

 private:
  using Frame = std::shared_ptr<const std::vector<unsigned char>>;
  // The caller holds mutex_ for all of these.
  Frame load(std::size_t index);
  Frame decode_now(std::size_t index);
  void read_ahead(std::size_t index);
  struct Slot;
  Slot& slot_for(std::size_t index);

  struct Slot {
    std::size_t index = 0;
    std::uint64_t last_use = 0;
    Frame data;                             // decoded frame, or
    std::shared_ptr<PendingFrame> pending;  // one being decoded on the pool
  };
  const ByteSource& src_;
  SeekTable table_;
  std::size_t cache_frames_;
  std::mutex mutex_;
  std::vector<Slot> cache_;
  std::uint64_t clock_ = 0;
  std::size_t ahead_frames_ = 0;  // 0: no read-ahead
  std::size_t last_loaded_ = static_cast<std::size_t>(-1);
  ZSTD_DCtx* dctx_ = nullptr;
  std::vector<unsigned char> scratch_;  // compressed bytes of the frame being decoded
};

}  // namespace rocpd::zstd
