// The decompressed view of one .zst file, whatever its layout: seekable (random access through
// the seek table) or plain (recompressed at open into an in-memory seekable copy, under a cap).
// Either way decoded frames live in the shared FrameCache. No SQLite here: the VFS,
// rocpd_zstd_verify, the unit tests and the fuzz target all share it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compression/byte_source.h"
#include "compression/frame_cache.h"
#include "compression/frame_reader.h"

namespace rocpd::zstd {

class CompressedImage {
 public:
  // Detects the layout and validates the seek table (or transcodes a plain file). Throws
  // FormatError for a file that is not zstd or is damaged, IoError when the storage fails.
  // `read_ahead`: let sequential readers decompress the next frames on the decode pool.
  CompressedImage(std::unique_ptr<ByteSource> src, std::uint64_t plain_limit, bool read_ahead = true,
                  std::shared_ptr<FrameCache> cache = FrameCache::global());

  bool seekable() const { return !plain_; }
  std::uint64_t size() const { return reader_->size(); }
  std::uint64_t compressed_size() const { return src_->size(); }
  // Bytes held in memory for a plain file (its seekable copy); 0 for a seekable file.
  std::uint64_t plain_copy_size() const { return plain_copy_.size(); }
  const FrameReader* reader() const { return reader_.get(); }
  // Copies [offset, offset + n) clipped at size(); returns the number of bytes copied.
  std::size_t read(std::uint64_t offset, void* dst, std::size_t n) { return reader_->read(offset, dst, n); }
  // Decompresses and checks every frame (a plain file was checked when it was opened); `check`
  // runs before each frame and may throw to stop.
  void verify_all(const std::function<void()>& check = {});
  // The framing of every frame against the seek table, without decoding (a plain file: nothing).
  void verify_framing(const std::function<void()>& check = {});
  // JSON summary: layout, sizes, frames, checksums.
  std::string describe() const;

 private:
  // Declaration order matters: the reader reads from the sources, so it is destroyed first.
  std::unique_ptr<ByteSource> src_;
  bool plain_ = false;
  std::vector<unsigned char> plain_copy_;
  std::unique_ptr<MemorySource> plain_source_;
  std::unique_ptr<FrameReader> reader_;
};

}  // namespace rocpd::zstd
