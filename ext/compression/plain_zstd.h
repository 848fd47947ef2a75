// Ordinary .zst files (as `zstd file` writes them: one frame, or several concatenated, no seek
// table) cannot be read at random. They are decompressed once, when opened, and recompressed on
// the fly into the seekable layout in memory (fast level, 64 KiB frames): the open file then
// holds about its compressed size, and its decoded frames share the global cache budget like
// those of any seekable file.
#pragma once
#include <cstdint>
#include <vector>

#include "compression/byte_source.h"

namespace rocpd::zstd {

// Default cap on the decompressed size of a plain .zst member (rocpd_zstd_plain_limit() changes it).
inline constexpr std::uint64_t kDefaultPlainLimit = 256ull << 20;
// Level and frame size of the in-memory copy: level 1 compresses several hundred MB/s, so opening
// costs little more than the decompression that was needed anyway.
inline constexpr int kPlainCopyLevel = 1;
inline constexpr std::size_t kPlainCopyFrameSize = 64 * 1024;

// True when the file starts like a zstd stream (a zstd frame or a skippable frame).
bool starts_like_zstd(const ByteSource& src);

// Decompresses the whole stream and returns it in the seekable layout (a complete file image,
// with seek table and checksums). Throws FormatError when the first data frame declares more
// than `limit` bytes, when the data passes `limit`, when the file holds no data frame, or when
// the stream is corrupt or truncated.
std::vector<unsigned char> transcode_plain(const ByteSource& src, std::uint64_t limit);

}  // namespace rocpd::zstd
