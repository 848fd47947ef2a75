#include "compression/compressed_image.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "compression/plain_zstd.h"

namespace rocpd::zstd {

CompressedImage::CompressedImage(std::unique_ptr<ByteSource> src, std::uint64_t plain_limit, bool read_ahead)
    : src_(std::move(src)) {
  if (has_seekable_footer(*src_)) {
    reader_ = std::make_unique<FrameReader>(*src_, read_seek_table(*src_), 0, read_ahead);
  } else if (starts_like_zstd(*src_)) {
    plain_ = decompress_plain(*src_, plain_limit);
  } else if (src_->size() == 0) {
    throw FormatError("empty file (not zstd-compressed)");
  } else {
    throw FormatError("not a zstd-compressed file (no zstd frame magic, no seek table)");
  }
}

std::size_t CompressedImage::read(std::uint64_t offset, void* dst, std::size_t n) {
  if (reader_) return reader_->read(offset, dst, n);
  if (offset >= plain_.size()) return 0;
  const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, plain_.size() - offset));
  std::memcpy(dst, plain_.data() + offset, take);
  return take;
}

void CompressedImage::verify_all() {
  if (reader_) reader_->verify_all();
}

std::string CompressedImage::describe() const {
  if (!reader_)
    return fmt::format(R"({{"layout":"single-frame","compressed_size":{},"size":{}}})", src_->size(), plain_.size());
  const SeekTable& t = reader_->table();
  return fmt::format(R"({{"layout":"seekable","compressed_size":{},"size":{},"frames":{},"frame_size":{},"checksums":{}}})",
                     src_->size(), t.decompressed_size, t.frames.size(), t.largest_frame,
                     t.has_checksums ? "true" : "false");
}

}  // namespace rocpd::zstd
