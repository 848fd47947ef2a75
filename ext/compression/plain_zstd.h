// Ordinary .zst files (as `zstd file` writes them: one frame, or several concatenated, no seek
// table) cannot be read at random: they are decompressed once, into memory, under a size cap.
#pragma once
#include <cstdint>
#include <vector>

#include "compression/byte_source.h"

namespace rocpd::zstd {

// Default cap on the decompressed size of a plain .zst member (rocpd_zstd_plain_limit() changes it).
inline constexpr std::uint64_t kDefaultPlainLimit = 256ull << 20;

// True when the file starts like a zstd stream (a zstd frame or a skippable frame).
bool starts_like_zstd(const ByteSource& src);

// Decompresses the whole stream. Throws FormatError when the first frame declares more than
// `limit` bytes, when the data passes `limit`, or when the stream is corrupt or truncated.
std::vector<unsigned char> decompress_plain(const ByteSource& src, std::uint64_t limit);

}  // namespace rocpd::zstd
