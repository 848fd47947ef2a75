#include "compression/seek_table.h"

#include <zstd.h>

#include <algorithm>

#include <fmt/format.h>

namespace rocpd::zstd {

void put_u32(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

std::uint32_t get_u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

std::size_t SeekTable::frame_at(std::uint64_t offset) const {
  // Last frame whose decompressed start is <= offset; empty frames share a start with the next
  // non-empty one, so step past them.
  auto it = std::upper_bound(frames.begin(), frames.end(), offset,
                             [](std::uint64_t off, const FrameEntry& f) { return off < f.decompressed_offset; });
  std::size_t i = static_cast<std::size_t>(it - frames.begin()) - 1;
  while (i < frames.size() && frames[i].decompressed_size == 0) ++i;
  return i;
}

bool has_seekable_footer(const ByteSource& src) {
  if (src.size() < kFooterSize) return false;
  unsigned char magic[4];
  src.read(src.size() - 4, magic, 4);
  return get_u32(magic) == kSeekableFooterMagic;
}

SeekTable read_seek_table(const ByteSource& src) {
  const std::uint64_t file_size = src.size();
  if (file_size < kSkippableHeaderSize + kFooterSize)
    throw FormatError(fmt::format("truncated: {} bytes is too short for a seek table", file_size));
  unsigned char footer[kFooterSize];
  src.read(file_size - kFooterSize, footer, kFooterSize);
  if (get_u32(footer + 5) != kSeekableFooterMagic) throw FormatError("no seek table (footer magic missing)");
  const std::uint32_t frame_count = get_u32(footer);
  const std::uint8_t descriptor = footer[4];
  if (descriptor & kReservedBits)
    throw FormatError(fmt::format("seek table descriptor 0x{:02x} sets reserved bits (unsupported format revision)",
                                  descriptor));
  if (frame_count > kMaxFrames)
    throw FormatError(fmt::format("seek table claims {} frames, more than the format allows ({})", frame_count,
                                  kMaxFrames));
  SeekTable table;
  table.has_checksums = (descriptor & kChecksumFlag) != 0;
  const std::uint64_t entry_size = table.has_checksums ? 12 : 8;
  const std::uint64_t table_size = kSkippableHeaderSize + entry_size * frame_count + kFooterSize;
  if (table_size > file_size)
    throw FormatError(fmt::format("seek table claims {} frames ({} bytes) but the file has only {} bytes",
                                  frame_count, table_size, file_size));
  const std::uint64_t table_start = file_size - table_size;
  unsigned char header[kSkippableHeaderSize];
  src.read(table_start, header, sizeof header);
  if (get_u32(header) != kSeekTableFrameMagic || get_u32(header + 4) != table_size - kSkippableHeaderSize)
    throw FormatError(fmt::format("seek table frame header at offset {} does not match its footer ({} frames)",
                                  table_start, frame_count));

  // Entries are read in bounded chunks: memory stays proportional to the (verified) table size.
  table.frames.reserve(frame_count);
  std::vector<unsigned char> chunk;
  std::uint64_t compressed_offset = 0, decompressed_offset = 0;
  const std::uint64_t entries_start = table_start + kSkippableHeaderSize;
  constexpr std::uint32_t kChunkEntries = 4096;
  for (std::uint32_t first = 0; first < frame_count; first += kChunkEntries) {
    std::uint32_t count = std::min(kChunkEntries, frame_count - first);
    chunk.resize(count * entry_size);
    src.read(entries_start + first * entry_size, chunk.data(), chunk.size());
    for (std::uint32_t k = 0; k < count; ++k) {
      const unsigned char* e = chunk.data() + k * entry_size;
      FrameEntry f;
      f.compressed_offset = compressed_offset;
      f.decompressed_offset = decompressed_offset;
      f.compressed_size = get_u32(e);
      f.decompressed_size = get_u32(e + 4);
      if (table.has_checksums) f.checksum = get_u32(e + 8);
      const std::uint32_t index = first + k;
      if (f.decompressed_size > kMaxFrameDecompressedSize)
        throw FormatError(fmt::format("frame {} declares {} decompressed bytes, above the per-frame limit of {}",
                                      index, f.decompressed_size, kMaxFrameDecompressedSize));
      // The smallest frame (a skippable frame's header) is 8 bytes: this also keeps the table's
      // memory within a small multiple of the file size, whatever the footer claims.
      if (f.compressed_size < kSkippableHeaderSize)
        throw FormatError(fmt::format("frame {} declares {} compressed bytes, fewer than any zstd frame has ({})",
                                      index, f.compressed_size, kSkippableHeaderSize));
      if (f.decompressed_size > 0 && f.compressed_size > ZSTD_compressBound(f.decompressed_size) + 64)
        throw FormatError(fmt::format("frame {} declares {} compressed bytes for {} decompressed bytes (impossible)",
                                      index, f.compressed_size, f.decompressed_size));
      compressed_offset += f.compressed_size;
      decompressed_offset += f.decompressed_size;
      if (compressed_offset > table_start)
        throw FormatError(fmt::format("seek table frame sizes pass the start of the seek table (offset {}) at frame {}",
                                      table_start, index));
      table.largest_frame = std::max(table.largest_frame, f.decompressed_size);
      table.frames.push_back(f);
    }
  }
  if (compressed_offset != table_start)
    throw FormatError(fmt::format("seek table frame sizes add up to {} bytes but {} bytes precede the seek table",
                                  compressed_offset, table_start));
  table.decompressed_size = decompressed_offset;
  table.data_size = table_start;
  return table;
}

}  // namespace rocpd::zstd
