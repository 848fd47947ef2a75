#include "compression/compressed_image.h"

#include <fmt/format.h>

#include "compression/plain_zstd.h"

namespace rocpd::zstd {

CompressedImage::CompressedImage(std::unique_ptr<ByteSource> src, std::uint64_t plain_limit, bool read_ahead,
                                 std::shared_ptr<FrameCache> cache)
    : src_(std::move(src)) {
  if (has_seekable_footer(*src_)) {
    reader_ = std::make_unique<FrameReader>(*src_, read_seek_table(*src_), read_ahead, std::move(cache));
  } else if (starts_like_zstd(*src_)) {
    plain_ = true;
    plain_copy_ = transcode_plain(*src_, plain_limit);
    plain_source_ = std::make_unique<MemorySource>(plain_copy_.data(), plain_copy_.size());
    reader_ = std::make_unique<FrameReader>(*plain_source_, read_seek_table(*plain_source_), read_ahead,
                                            std::move(cache));
  } else if (src_->size() == 0) {
    throw FormatError("empty file (not zstd-compressed)");
  } else {
    throw FormatError("not a zstd-compressed file (no zstd frame magic, no seek table)");
  }
}

void CompressedImage::verify_framing(const std::function<void()>& check) {
  if (!plain_) reader_->verify_framing(check);
}

void CompressedImage::verify_all(const std::function<void()>& check) {
  if (!plain_) reader_->verify_all(check);
}

std::string CompressedImage::describe() const {
  if (plain_)
    return fmt::format(R"({{"layout":"single-frame","compressed_size":{},"size":{}}})", src_->size(), size());
  const SeekTable& t = reader_->table();
  return fmt::format(R"({{"layout":"seekable","compressed_size":{},"size":{},"frames":{},"frame_size":{},"checksums":{}}})",
                     src_->size(), t.decompressed_size, t.frames.size(), t.largest_frame,
                     t.has_checksums ? "true" : "false");
}

}  // namespace rocpd::zstd
