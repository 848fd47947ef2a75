// The decompressed view of one .zst file, whatever its layout: seekable (random access through
// the seek table) or plain (decompressed once into memory under a cap). No SQLite here: the VFS,
// rocpd_zstd_verify, the unit tests and the fuzz target all share it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compression/byte_source.h"
#include "compression/frame_reader.h"

namespace rocpd::zstd {

class CompressedImage {
 public:
  // Detects the layout and validates the seek table (or decompresses a plain file). Throws
  // FormatError for a file that is not zstd or is damaged, IoError when the storage fails.
  // `read_ahead`: let sequential readers decompress the next frames on the decode pool.
  CompressedImage(std::unique_ptr<ByteSource> src, std::uint64_t plain_limit, bool read_ahead = true);

  bool seekable() const { return reader_ != nullptr; }
  std::uint64_t size() const { return reader_ ? reader_->size() : plain_.size(); }
  std::uint64_t compressed_size() const { return src_->size(); }
  const FrameReader* reader() const { return reader_.get(); }
  // Copies [offset, offset + n) clipped at size(); returns the number of bytes copied.
  std::size_t read(std::uint64_t offset, void* dst, std::size_t n);
  // Decompresses and checks every frame (a plain file was checked when it was opened).
  void verify_all();
  // JSON summary: layout, sizes, frames, checksums.
  std::string describe() const;

 private:
  std::unique_ptr<ByteSource> src_;
  std::unique_ptr<FrameReader> reader_;
  std::vector<unsigned char> plain_;
};

}  // namespace rocpd::zstd
