#include "compression/seekable_writer.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_createCCtx_advanced: our allocator
#include <zstd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "compression/seek_table.h"
#include "compression/xxhash64.h"

namespace rocpd::zstd {

SeekableWriter::SeekableWriter(Sink sink, int level, std::size_t frame_size, Check check)
    : sink_(std::move(sink)), check_(std::move(check)), frame_size_(frame_size) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
    throw std::invalid_argument(
        fmt::format("level {} is outside zstd's range {}..{}", level, ZSTD_minCLevel(), ZSTD_maxCLevel()));
  if (frame_size < 1024 || frame_size > kMaxFrameDecompressedSize)
    throw std::invalid_argument(fmt::format("frame size {} KiB is outside 1..{} KiB", frame_size / 1024.0,
                                            kMaxFrameDecompressedSize / 1024));
  cctx_ = ZSTD_createCCtx_advanced(ZSTD_customMem{alloc_checked, free_checked, this});
  if (!cctx_) throw std::bad_alloc();
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
  // Each frame states its size so a reader can reject a frame that disagrees with the seek table
  // before decompressing it.
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  pending_.reserve(frame_size_);
  compressed_.resize(ZSTD_compressBound(frame_size_));
}

SeekableWriter::~SeekableWriter() { ZSTD_freeCCtx(cctx_); }

void* SeekableWriter::alloc_checked(void* opaque, std::size_t size) noexcept {
  auto* self = static_cast<SeekableWriter*>(opaque);
  constexpr std::size_t kPiece = 16 << 20, kPage = 4096;
  void* p = std::malloc(size);
  if (!p || !self->check_ || size < kPiece) return p;
  // The first frame's tables are one block (740 MB at level 22 with 64 MiB frames) that zstd then
  // clears in one call: faulting its pages in took seconds. Faulted in here, piece by piece, that
  // call is fast and an interrupt is seen between pieces.
  auto* bytes = static_cast<volatile unsigned char*>(p);
  for (std::size_t at = 0; at < size; at += kPiece) {
    for (std::size_t i = at; i < std::min(size, at + kPiece); i += kPage) bytes[i] = 0;
    try {
      self->check_();
    } catch (...) {
      self->stopped_ = std::current_exception();
      std::free(p);
      return nullptr;
    }
  }
  return p;
}

void SeekableWriter::free_checked(void*, void* p) noexcept { std::free(p); }

void SeekableWriter::emit_frame(const unsigned char* data, std::size_t size) {
  // Streamed in steps of about one zstd block, so that check_ runs often even at the slowest
  // levels on 64 MiB frames; the frame is the one ZSTD_compress2 would write.
  constexpr std::size_t kStep = 128 * 1024;
  ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_only);
  ZSTD_CCtx_setPledgedSrcSize(cctx_, size);
  ZSTD_outBuffer out{compressed_.data(), compressed_.size(), 0};
  std::size_t pos = 0;
  for (;;) {
    const std::size_t take = std::min(kStep, size - pos);
    const bool last = pos + take == size;
    ZSTD_inBuffer in{data + pos, take, 0};
    for (;;) {
      const std::size_t r = ZSTD_compressStream2(cctx_, &out, &in, last ? ZSTD_e_end : ZSTD_e_continue);
      if (stopped_) std::rethrow_exception(std::exchange(stopped_, nullptr));
      if (ZSTD_isError(r)) throw std::runtime_error(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(r)));
      if (check_) check_();
      if (last ? r == 0 : in.pos == in.size) break;
      if (out.pos == out.size) throw std::runtime_error("zstd compression failed: output larger than its bound");
    }
    pos += take;
    if (last) break;
  }
  const std::size_t n = out.pos;
  if (entries_.size() / 12 >= kMaxFrames) throw std::runtime_error("too many frames for the seekable format");
  sink_(compressed_.data(), n);
  written_ += n;
  put_u32(entries_, static_cast<std::uint32_t>(n));
  put_u32(entries_, static_cast<std::uint32_t>(size));
  put_u32(entries_, static_cast<std::uint32_t>(xxhash64(data, size)));
}

void SeekableWriter::write(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (size > 0) {
    if (pending_.empty() && size >= frame_size_) {  // whole frames straight from the caller
      emit_frame(p, frame_size_);
      p += frame_size_;
      size -= frame_size_;
      continue;
    }
    const std::size_t take = std::min(size, frame_size_ - pending_.size());
    pending_.insert(pending_.end(), p, p + take);
    p += take;
    size -= take;
    if (pending_.size() == frame_size_) {
      emit_frame(pending_.data(), pending_.size());
      pending_.clear();
    }
  }
}

std::uint64_t SeekableWriter::finish() {
  if (finished_) return written_;
  if (!pending_.empty()) emit_frame(pending_.data(), pending_.size());
  pending_.clear();
  const auto frames = static_cast<std::uint32_t>(entries_.size() / 12);
  std::vector<unsigned char> table;
  table.reserve(kSkippableHeaderSize + entries_.size() + kFooterSize);
  put_u32(table, kSeekTableFrameMagic);
  put_u32(table, static_cast<std::uint32_t>(entries_.size() + kFooterSize));
  table.insert(table.end(), entries_.begin(), entries_.end());
  put_u32(table, frames);
  table.push_back(kChecksumFlag);
  put_u32(table, kSeekableFooterMagic);
  sink_(table.data(), table.size());
  written_ += table.size();
  finished_ = true;
  return written_;
}

}  // namespace rocpd::zstd
