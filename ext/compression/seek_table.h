// The zstd seekable format (facebook/zstd contrib/seekable_format, version 0.1.0): independent zstd
// frames followed by one skippable frame holding a seek table. `zstd -d` skips that frame, so a
// seekable file still decompresses with the stock tool. All integers little-endian.
//
//   seek-table frame = magic 0x184D2A5E | u32 frame size | entries | footer
//   entry            = u32 compressed size | u32 decompressed size [| u32 low half of XXH64]
//   footer (9 bytes) = u32 number of frames | u8 descriptor (bit 7: checksums; bits 6-2 must be 0)
//                      | u32 magic 0x8F92EAB1 (the file's last four bytes)
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "compression/byte_source.h"

namespace rocpd::zstd {

inline constexpr std::uint32_t kFrameMagic = 0xFD2FB528;           // an ordinary zstd frame
inline constexpr std::uint32_t kSeekTableFrameMagic = 0x184D2A5E;  // skippable frame, variant E
inline constexpr std::uint32_t kSeekableFooterMagic = 0x8F92EAB1;
inline constexpr std::size_t kFooterSize = 9;
inline constexpr std::size_t kSkippableHeaderSize = 8;
inline constexpr std::uint8_t kChecksumFlag = 0x80;
inline constexpr std::uint8_t kReservedBits = 0x7C;
// Bounds that keep every allocation proportional to real data, whatever a seek table claims.
inline constexpr std::uint32_t kMaxFrames = 0x8000000;                  // the spec's limit
inline constexpr std::uint32_t kMaxFrameDecompressedSize = 64u << 20;  // 64 MiB per frame

struct FrameEntry {
  std::uint64_t compressed_offset = 0;    // where the frame starts in the compressed file
  std::uint64_t decompressed_offset = 0;  // where its content starts in the decompressed image
  std::uint32_t compressed_size = 0;
  std::uint32_t decompressed_size = 0;
  std::uint32_t checksum = 0;  // meaningful when SeekTable::has_checksums
};

struct SeekTable {
  std::vector<FrameEntry> frames;
  bool has_checksums = false;
  std::uint64_t decompressed_size = 0;  // sum of the frames' decompressed sizes
  std::uint64_t data_size = 0;          // compressed bytes before the seek-table frame
  std::uint32_t largest_frame = 0;      // largest decompressed size of one frame

  // Index of the frame holding decompressed byte `offset` (< decompressed_size), skipping empty frames.
  std::size_t frame_at(std::uint64_t offset) const;
};

// True when the file ends with the seekable footer magic (it may still be corrupt).
bool has_seekable_footer(const ByteSource& src);

// Parses and cross-checks the seek table: entry sizes must add up to the bytes before it, every
// frame must fit the per-frame bound. Throws FormatError describing the first inconsistency.
SeekTable read_seek_table(const ByteSource& src);

// Appends the little-endian u32.
void put_u32(std::vector<unsigned char>& out, std::uint32_t v);
std::uint32_t get_u32(const unsigned char* p);

}  // namespace rocpd::zstd
