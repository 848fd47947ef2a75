// Random access into a seekable zstd file: decompresses only the frames a read touches. Decoded
// frames live in a FrameCache shared by every open file (one memory budget for the process).
// When reads walk forward frame after frame (a scan), the next frames are decompressed ahead on
// the shared decode pool. Thread-safe: one mutex per reader, and the cache has its own (always
// taken after the reader's, never the other way round).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "compression/byte_source.h"
#include "compression/decode_pool.h"
#include "compression/frame_cache.h"
#include "compression/seek_table.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace rocpd::zstd {

struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const noexcept;
};

// Decompresses one frame described by `entry` (index `index`, for messages) from `compressed`;
// verifies it is exactly one frame of exactly the declared size and, when `checksum` is set, its
// XXH64. The declared size is checked before anything is allocated. Throws FormatError.
// The checks decode_frame makes before decoding: one zstd frame of exactly the seek table's
// compressed size, declaring (if at all) the table's decompressed size. Throws FormatError.
void check_framing(const unsigned char* compressed, const FrameEntry& entry, std::size_t index);

std::shared_ptr<DecodedFrame> decode_frame(ZSTD_DCtx* dctx, const unsigned char* compressed, const FrameEntry& entry,
                                           std::size_t index, bool checksum, std::shared_ptr<MemoryMeter> meter);

class FrameReader {
 public:
  // Read-ahead of a sequential reader, in decompressed bytes (at least one frame): kReadAheadBytes,
  // or 1/kReadAheadShare of the cache limit if that is less (frames read ahead are cached, so they
  // must not push out what readers use). Frames larger than that share are not read ahead.
  static constexpr std::size_t kReadAheadBytes = 512 * 1024;
  static constexpr std::uint64_t kReadAheadShare = 16;

  FrameReader(const ByteSource& src, SeekTable table, bool read_ahead = true,
              std::shared_ptr<FrameCache> cache = FrameCache::global());
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  std::uint64_t size() const { return table_.decompressed_size; }
  const SeekTable& table() const { return table_; }
  // Copies decompressed bytes [offset, offset + n) clipped at size(); returns how many were copied.
  std::size_t read(std::uint64_t offset, void* dst, std::size_t n);
  // Decompresses and checks every frame (bypassing the cache); throws on the first bad one.
  // `check` runs before each frame (at most 64 MiB to decode): it may throw to stop.
  void verify_all(const std::function<void()>& check = {});
  // Only the framing of every frame (check_framing: no decoding, work in proportion to the file).
  void verify_framing(const std::function<void()>& check = {});

 private:
  // The caller holds mutex_ for all of these.
  Frame load(std::size_t index);
  Frame decode_now(std::size_t index);
  void read_ahead(std::size_t index);
  // Cancels read-ahead outside the frames after `index` that a scan will want next.
  void drop_pending_outside(std::size_t index);

  const ByteSource& src_;
  SeekTable table_;
  std::shared_ptr<FrameCache> cache_;
  const std::uint64_t owner_;  // this reader's key prefix in the cache
  std::mutex mutex_;
  std::map<std::size_t, std::shared_ptr<PendingFrame>> pending_;  // read-ahead queued or running
  std::vector<std::shared_ptr<PendingFrame>> retired_;  // dropped while running: waited for on close
  std::size_t ahead_frames_ = 0;                        // 0: no read-ahead
  std::size_t last_loaded_ = static_cast<std::size_t>(-1);
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx_;
  std::vector<unsigned char> scratch_;  // compressed bytes of the frame being decoded
};

}  // namespace rocpd::zstd
