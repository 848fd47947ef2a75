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

std::size_t FrameReader::default_cache_frames(const SeekTable& table) {
  const std::size_t frame = std::max<std::size_t>(1, table.largest_frame);
  return std::clamp(kCacheBytes / frame, kMinCacheFrames, kMaxCacheFrames);
}

FrameReader::FrameReader(const ByteSource& src, SeekTable table, std::size_t cache_frames, bool read_ahead)
    : src_(src), table_(std::move(table)),
      cache_frames_(cache_frames ? cache_frames : default_cache_frames(table_)) {
  dctx_ = ZSTD_createDCtx();
  if (!dctx_) throw std::bad_alloc();
  if (read_ahead && table_.largest_frame > 0) {
    // Keep at least two cache slots for frames the reader is actually using.
    const std::size_t budget = std::max<std::size_t>(1, kReadAheadBytes / table_.largest_frame);
    ahead_frames_ = cache_frames_ > 2 ? std::min(budget, cache_frames_ - 2) : 0;
  }
}

FrameReader::~FrameReader() {
  // Queued read-ahead jobs own their inputs; marking them claimed just saves the pool the work.
  for (Slot& s : cache_)
    if (s.pending && s.pending->claim()) s.pending->finish(nullptr, nullptr);
  ZSTD_freeDCtx(dctx_);
}

FrameReader::Slot& FrameReader::slot_for(std::size_t index) {
  if (cache_.size() < cache_frames_) {
    cache_.push_back({index, clock_, nullptr, nullptr});
    return cache_.back();
  }
  auto victim = std::min_element(cache_.begin(), cache_.end(),
                                 [](const Slot& a, const Slot& b) { return a.last_use < b.last_use; });
  if (victim->pending && victim->pending->claim()) victim->pending->finish(nullptr, nullptr);  // cancelled
  *victim = {index, clock_, nullptr, nullptr};
  return *victim;
}

FrameReader::Frame FrameReader::decode_now(std::size_t index) {
  const FrameEntry& entry = table_.frames[index];
  scratch_.resize(entry.compressed_size);
  src_.read(entry.compressed_offset, scratch_.data(), scratch_.size());
  return std::make_shared<const std::vector<unsigned char>>(
      decode_frame(dctx_, scratch_.data(), entry, index, table_.has_checksums));
}

void FrameReader::read_ahead(std::size_t index) {
  std::size_t queued = 0;
  for (std::size_t next = index + 1; next < table_.frames.size() && queued < ahead_frames_; ++next) {
    const FrameEntry& entry = table_.frames[next];
    if (entry.decompressed_size == 0) continue;
    ++queued;
    if (std::any_of(cache_.begin(), cache_.end(), [&](const Slot& s) { return s.index == next && (s.data || s.pending); }))
      continue;
    // The compressed bytes are read here, on the reader's thread: the pool never touches the file.
    auto compressed = std::make_shared<std::vector<unsigned char>>(entry.compressed_size);
    src_.read(entry.compressed_offset, compressed->data(), compressed->size());
    auto pending = std::make_shared<PendingFrame>();
    const bool checksums = table_.has_checksums;
    const bool submitted = submit_decode([pending, compressed, entry, next, checksums] {
      if (!pending->claim()) return;
      struct DCtxFree {
        void operator()(ZSTD_DCtx* d) const noexcept { ZSTD_freeDCtx(d); }
      };
      thread_local std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
      try {
        if (!dctx) throw std::bad_alloc();
        pending->finish(std::make_shared<const std::vector<unsigned char>>(
                            decode_frame(dctx.get(), compressed->data(), entry, next, checksums)),
                        nullptr);
      } catch (...) {
        pending->finish(nullptr, std::current_exception());
      }
    });
    if (!submitted) {
      ahead_frames_ = 0;  // single core: read-ahead cannot overlap anything
      return;
    }
    Slot& slot = slot_for(next);
    slot.pending = std::move(pending);
  }
}

FrameReader::Frame FrameReader::load(std::size_t index) {
  ++clock_;
  Frame frame;
  bool found = false;
  for (Slot& s : cache_) {
    if (s.index != index || !(s.data || s.pending)) continue;
    found = true;
    s.last_use = clock_;
    if (s.data) return s.data;  // the common case: no read-ahead bookkeeping
    std::shared_ptr<PendingFrame> pending = std::move(s.pending);
    s.pending.reset();
    // Decode it here rather than wait behind other jobs, unless a pool thread already started
    // (once claimed here, the pool's job finds it taken and drops it).
    frame = pending->claim() ? decode_now(index) : pending->wait();
    s.data = frame;
    break;
  }
  if (!found) {
    frame = decode_now(index);
    slot_for(index).data = frame;
  }
  // A reader moving forward frame by frame is scanning: keep the next frames coming.
  const bool sequential = last_loaded_ != static_cast<std::size_t>(-1) && index > last_loaded_ &&
                          index <= last_loaded_ + 2;
  last_loaded_ = index;
  if (sequential && ahead_frames_ > 0) read_ahead(index);
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
