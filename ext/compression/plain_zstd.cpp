#include "compression/plain_zstd.h"

#include <zstd.h>

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "compression/seek_table.h"

namespace rocpd::zstd {
namespace {
struct DStreamFree {
  void operator()(ZSTD_DStream* d) const noexcept { ZSTD_freeDStream(d); }
};

std::string limit_hint(std::uint64_t limit) {
  return fmt::format("the limit for single-frame .zst files is {} bytes (rocpd_zstd_plain_limit(); "
                     "rocpd_compress() writes a seekable file instead)",
                     limit);
}
}  // namespace

bool starts_like_zstd(const ByteSource& src) {
  if (src.size() < 4) return false;
  unsigned char magic[4];
  src.read(0, magic, 4);
  const std::uint32_t m = get_u32(magic);
  return m == kFrameMagic || (m & 0xFFFFFFF0u) == 0x184D2A50u;
}

std::vector<unsigned char> decompress_plain(const ByteSource& src, std::uint64_t limit) {
  const std::uint64_t file_size = src.size();
  unsigned char header[18];  // the largest zstd frame header
  const std::size_t header_len = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof header, file_size));
  src.read(0, header, header_len);
  const unsigned long long declared = ZSTD_getFrameContentSize(header, header_len);
  if (declared == ZSTD_CONTENTSIZE_ERROR) throw FormatError("not a zstd frame (bad frame header)");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > limit)
    throw FormatError(fmt::format("declares {} decompressed bytes; {}", declared, limit_hint(limit)));

  std::unique_ptr<ZSTD_DStream, DStreamFree> stream(ZSTD_createDStream());
  if (!stream) throw std::bad_alloc();
  std::vector<unsigned char> out;
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN) out.reserve(static_cast<std::size_t>(declared));
  std::vector<unsigned char> in_buf(ZSTD_DStreamInSize());
  std::vector<unsigned char> out_buf(ZSTD_DStreamOutSize());
  std::uint64_t offset = 0;
  std::size_t last_ret = 0;
  while (offset < file_size) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(in_buf.size(), file_size - offset));
    src.read(offset, in_buf.data(), chunk);
    offset += chunk;
    ZSTD_inBuffer in{in_buf.data(), chunk, 0};
    // Keep calling while input remains or the output buffer came back full (more may be pending).
    bool output_full = true;
    while (in.pos < in.size || output_full) {
      ZSTD_outBuffer o{out_buf.data(), out_buf.size(), 0};
      last_ret = ZSTD_decompressStream(stream.get(), &o, &in);
      if (ZSTD_isError(last_ret))
        throw FormatError(fmt::format("corrupt zstd data near compressed offset {} ({})", offset - chunk + in.pos,
                                      ZSTD_getErrorName(last_ret)));
      if (out.size() + o.pos > limit)
        throw FormatError(fmt::format("decompresses past {} bytes; {}", limit, limit_hint(limit)));
      out.insert(out.end(), out_buf.data(), out_buf.data() + o.pos);
      output_full = o.pos == o.size;
    }
  }
  // 0 means the last frame was complete and fully flushed.
  if (last_ret != 0)
    throw FormatError(fmt::format("truncated: the last zstd frame ends early ({} bytes in the file)", file_size));
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && out.size() < declared)
    throw FormatError(fmt::format("decompresses to {} bytes but declares {}", out.size(), declared));
  return out;
}

}  // namespace rocpd::zstd
