#include "compression/frame_reader.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "compression/xxhash64.h"

namespace rocpd::zstd {

std::vector<unsigned char> decode_frame(ZSTD_DCtx* dctx, const unsigned char* compressed, const FrameEntry& entry,
                                        std::size_t index, bool checksum) {
  const std::size_t csize = entry.compressed_size;
  const std::size_t dsize = entry.decompressed_size;
  const std::size_t frame_size = ZSTD_findFrameCompressedSize(compressed, csize);
  if (ZSTD_isError(frame_size))
    throw FormatError(fmt::format("frame {} at offset {} is not a valid zstd frame ({})", index,
                                  entry.compressed_offset, ZSTD_getErrorName(frame_size)));
  if (frame_size != csize)
    throw FormatError(fmt::format("frame {} at offset {} is {} bytes long but the seek table says {}", index,
                                  entry.compressed_offset, frame_size, csize));
  const unsigned long long declared = ZSTD_getFrameContentSize(compressed, csize);
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared != dsize)
    throw FormatError(fmt::format("frame {} at offset {} declares {} decompressed bytes but the seek table says {}",
                                  index, entry.compressed_offset, declared, dsize));
  std::vector<unsigned char> out(dsize);
  const std::size_t got = ZSTD_decompressDCtx(dctx, out.data(), out.size(), compressed, csize);
  if (ZSTD_isError(got)) {
    if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
      throw FormatError(fmt::format("frame {} at offset {} decompresses past its declared size of {} bytes", index,
                                    entry.compressed_offset, dsize));
    throw FormatError(fmt::format("frame {} at offset {} is corrupt ({})", index, entry.compressed_offset,
                                  ZSTD_getErrorName(got)));
  }
  if (got != dsize)
    throw FormatError(fmt::format("frame {} at offset {} decompresses to {} bytes but the seek table says {}", index,
                                  entry.compressed_offset, got, dsize));
  if (checksum) {
    const auto actual = static_cast<std::uint32_t>(xxhash64(out.data(), out.size()));
    if (actual != entry.checksum)
      throw FormatError(fmt::format("frame {} at offset {} fails its checksum (seek table 0x{:08x}, data 0x{:08x})",
                                    index, entry.compressed_offset, entry.checksum, actual));
  }
  return out;
}

FrameReader::FrameReader(const ByteSource& src, SeekTable table, std::size_t cache_frames)
    : src_(src), table_(std::move(table)), cache_frames_(std::max<std::size_t>(1, cache_frames)) {
  dctx_ = ZSTD_createDCtx();
  if (!dctx_) throw std::bad_alloc();
}

FrameReader::~FrameReader() { ZSTD_freeDCtx(dctx_); }

FrameReader::Frame FrameReader::load(std::size_t index) {
  ++clock_;
  for (Slot& s : cache_) {
    if (s.data && s.index == index) {
      s.last_use = clock_;
      return s.data;
    }
  }
  const FrameEntry& entry = table_.frames[index];
  scratch_.resize(entry.compressed_size);
  src_.read(entry.compressed_offset, scratch_.data(), scratch_.size());
  auto frame = std::make_shared<const std::vector<unsigned char>>(
      decode_frame(dctx_, scratch_.data(), entry, index, table_.has_checksums));
  if (cache_.size() < cache_frames_) {
    cache_.push_back({index, clock_, frame});
  } else {
    auto victim = std::min_element(cache_.begin(), cache_.end(),
                                   [](const Slot& a, const Slot& b) { return a.last_use < b.last_use; });
    *victim = {index, clock_, frame};
  }
  return frame;
}

std::size_t FrameReader::read(std::uint64_t offset, void* dst, std::size_t n) {
  if (offset >= table_.decompressed_size) return 0;
  n = static_cast<std::size_t>(std::min<std::uint64_t>(n, table_.decompressed_size - offset));
  auto* out = static_cast<unsigned char*>(dst);
  std::size_t copied = 0;
  std::lock_guard lock(mutex_);
  while (copied < n) {
    const std::uint64_t pos = offset + copied;
    const std::size_t index = table_.frame_at(pos);
    Frame frame = load(index);
    const std::size_t within = static_cast<std::size_t>(pos - table_.frames[index].decompressed_offset);
    const std::size_t take = std::min(n - copied, frame->size() - within);
    std::memcpy(out + copied, frame->data() + within, take);
    copied += take;
  }
  return copied;
}

void FrameReader::verify_all() {
  std::lock_guard lock(mutex_);
  std::vector<unsigned char> compressed;
  for (std::size_t i = 0; i < table_.frames.size(); ++i) {
    const FrameEntry& entry = table_.frames[i];
    compressed.resize(entry.compressed_size);
    src_.read(entry.compressed_offset, compressed.data(), compressed.size());
    if (entry.decompressed_size == 0) {
      // Skippable (or empty) frames carry no data; only their framing must be sound.
      const std::size_t fs = ZSTD_findFrameCompressedSize(compressed.data(), compressed.size());
      if (ZSTD_isError(fs) || fs != compressed.size())
        throw FormatError(fmt::format("frame {} at offset {} is not a valid zstd frame of {} bytes", i,
                                      entry.compressed_offset, entry.compressed_size));
      continue;
    }
    decode_frame(dctx_, compressed.data(), entry, i, table_.has_checksums);
  }
}

}  // namespace rocpd::zstd
