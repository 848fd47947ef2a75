#include "compression/frame_reader.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "compression/xxhash64.h"

namespace rocpd::zstd {

void check_framing(const unsigned char* compressed, const FrameEntry& entry, std::size_t index) {
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
}

std::shared_ptr<DecodedFrame> decode_frame(ZSTD_DCtx* dctx, const unsigned char* compressed, const FrameEntry& entry,
                                           std::size_t index, bool checksum, std::shared_ptr<MemoryMeter> meter) {
  const std::size_t csize = entry.compressed_size;
  const std::size_t dsize = entry.decompressed_size;
  check_framing(compressed, entry, index);
  auto out = std::make_shared<DecodedFrame>(dsize, std::move(meter));
  const std::size_t got = ZSTD_decompressDCtx(dctx, out->data(), dsize, compressed, csize);
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
    const auto actual = static_cast<std::uint32_t>(xxhash64(out->data(), dsize));
    if (actual != entry.checksum)
      throw FormatError(fmt::format("frame {} at offset {} fails its checksum (seek table 0x{:08x}, data 0x{:08x})",
                                    index, entry.compressed_offset, entry.checksum, actual));
  }
  return out;
}

void DCtxFree::operator()(ZSTD_DCtx* d) const noexcept { ZSTD_freeDCtx(d); }

FrameReader::FrameReader(const ByteSource& src, SeekTable table, bool read_ahead, std::shared_ptr<FrameCache> cache)
    : src_(src), table_(std::move(table)), cache_(std::move(cache)), owner_(cache_->new_owner()),
      dctx_(ZSTD_createDCtx()) {
  if (!dctx_) throw std::bad_alloc();
  const std::uint64_t largest = table_.largest_frame;
  const std::uint64_t share = cache_->limit() / kReadAheadShare;
  if (read_ahead && largest > 0 && largest <= share) {
    const std::uint64_t bytes = std::min<std::uint64_t>(kReadAheadBytes, share);
    ahead_frames_ = static_cast<std::size_t>(std::max<std::uint64_t>(1, bytes / largest));
  }
}

FrameReader::~FrameReader() {
  // Queued jobs are cancelled; running ones are waited for, so that none puts a frame in the
  // cache after forget() below.
  auto settle = [](const std::shared_ptr<PendingFrame>& p) {
    if (p->claim()) {
      p->finish(nullptr, nullptr);
      return;
    }
    try {
      p->wait();
    } catch (...) {  // a damaged frame nobody will read any more
    }
  };
  for (auto& [index, p] : pending_) settle(p);
  for (auto& p : retired_) settle(p);
  cache_->forget(owner_);
}

Frame FrameReader::decode_now(std::size_t index) {
  const FrameEntry& entry = table_.frames[index];
  scratch_.resize(entry.compressed_size);
  src_.read(entry.compressed_offset, scratch_.data(), scratch_.size());
  return decode_frame(dctx_.get(), scratch_.data(), entry, index, table_.has_checksums, cache_->meter());
}

void FrameReader::drop_pending_outside(std::size_t index) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->first > index && it->first <= index + ahead_frames_) {
      ++it;
      continue;
    }
    if (it->second->claim()) it->second->finish(nullptr, nullptr);  // cancelled before it started
    else if (!it->second->done()) retired_.push_back(it->second);
    it = pending_.erase(it);
  }
  std::erase_if(retired_, [](const std::shared_ptr<PendingFrame>& p) { return p->done(); });
}

void FrameReader::read_ahead(std::size_t index) {
  std::size_t queued = 0;
  for (std::size_t next = index + 1; next < table_.frames.size() && queued < ahead_frames_; ++next) {
    const FrameEntry& entry = table_.frames[next];
    if (entry.decompressed_size == 0) continue;
    ++queued;
    if (pending_.count(next) || cache_->contains(owner_, next)) continue;
    // The compressed bytes are read here, on the reader's thread: the pool never touches the file.
    auto compressed = std::make_shared<std::vector<unsigned char>>(entry.compressed_size);
    src_.read(entry.compressed_offset, compressed->data(), compressed->size());
    auto pending = std::make_shared<PendingFrame>();
    const bool submitted =
        submit_decode([pending, compressed, entry, next, checksums = table_.has_checksums, cache = cache_,
                       owner = owner_] {
          if (!pending->claim()) return;
          thread_local std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
          try {
            if (!dctx) throw std::bad_alloc();
            Frame frame = decode_frame(dctx.get(), compressed->data(), entry, next, checksums, cache->meter());
            cache->put(owner, next, frame);  // counted against the budget like any other frame
            pending->finish(frame, nullptr);
          } catch (...) {
            pending->finish(nullptr, std::current_exception());
          }
        });
    if (!submitted) {
      ahead_frames_ = 0;  // single core: read-ahead cannot overlap anything
      return;
    }
    pending_.emplace(next, std::move(pending));
  }
}

Frame FrameReader::load(std::size_t index) {
  Frame frame = cache_->find(owner_, index);
  if (!frame) {
    if (auto it = pending_.find(index); it != pending_.end()) {
      std::shared_ptr<PendingFrame> pending = std::move(it->second);
      pending_.erase(it);
      // Decode it here rather than wait behind other jobs, unless a pool thread already started;
      // a damaged frame read ahead fails here, when the reader reaches it.
      if (pending->claim()) pending->finish(nullptr, nullptr);
      else frame = pending->wait();  // null if the cache evicted it meanwhile
    }
    if (!frame) {
      frame = decode_now(index);
      cache_->put(owner_, index, frame);
    }
  }
  // A reader moving forward frame by frame is scanning: keep the next frames coming.
  const bool sequential = last_loaded_ != static_cast<std::size_t>(-1) && index > last_loaded_ &&
                          index <= last_loaded_ + 2;
  last_loaded_ = index;
  if (!pending_.empty() || !retired_.empty()) drop_pending_outside(index);
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

void FrameReader::verify_framing(const std::function<void()>& check) {
  std::lock_guard lock(mutex_);
  std::vector<unsigned char> compressed;
  for (std::size_t i = 0; i < table_.frames.size(); ++i) {
    if (check && i % 64 == 0) check();
    const FrameEntry& entry = table_.frames[i];
    if (entry.decompressed_size == 0) continue;  // verify_all checks those
    compressed.resize(entry.compressed_size);
    src_.read(entry.compressed_offset, compressed.data(), compressed.size());
    check_framing(compressed.data(), entry, i);
  }
}

void FrameReader::verify_all(const std::function<void()>& check) {
  std::lock_guard lock(mutex_);
  std::vector<unsigned char> compressed;
  for (std::size_t i = 0; i < table_.frames.size(); ++i) {
    if (check) check();
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
    decode_frame(dctx_.get(), compressed.data(), entry, i, table_.has_checksums, cache_->meter());
  }
}

}  // namespace rocpd::zstd
