#include "compression/plain_zstd.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "compression/seek_table.h"
#include "compression/seekable_writer.h"

namespace rocpd::zstd {
namespace {
struct DStreamFree {
  void operator()(ZSTD_DStream* d) const noexcept { ZSTD_freeDStream(d); }
};

bool is_skippable(std::uint32_t magic) { return (magic & 0xFFFFFFF0u) == 0x184D2A50u; }

std::string limit_hint(std::uint64_t limit) {
  return fmt::format("the limit for single-frame .zst files is {} bytes (rocpd_zstd_plain_limit(); "
                     "rocpd_compress() writes a seekable file instead)",
                     limit);
}

// Bytes in a zstd frame header with this frame header descriptor (RFC 8878, 3.1.1.1), counting
// the magic number.
std::size_t frame_header_size(unsigned char descriptor) {
  const bool single_segment = descriptor & 0x20;
  static constexpr std::size_t kDictId[] = {0, 1, 2, 4};
  static constexpr std::size_t kContentSize[] = {0, 2, 4, 8};
  const std::size_t fcs = (descriptor >> 6) == 0 ? (single_segment ? 1 : 0) : kContentSize[descriptor >> 6];
  return 4 + 1 + (single_segment ? 0 : 1) + kDictId[descriptor & 3] + fcs;
}

// Offset of the first frame that is not a skippable frame. Reads in chunks, so a file of many
// tiny skippable frames costs few reads.
std::uint64_t first_data_frame(const ByteSource& src) {
  const std::uint64_t file_size = src.size();
  std::vector<unsigned char> buf(64 * 1024);
  std::uint64_t buf_start = 0, buf_len = 0, pos = 0;
  for (;;) {
    if (pos == file_size) throw FormatError("holds only skippable frames (no zstd data frame)");
    if (file_size - pos < 8) return pos;  // too short for a skippable header: let the decoder judge
    if (pos < buf_start || pos + 8 > buf_start + buf_len) {
      buf_start = pos;
      buf_len = std::min<std::uint64_t>(buf.size(), file_size - pos);
      src.read(pos, buf.data(), static_cast<std::size_t>(buf_len));
    }
    const unsigned char* h = buf.data() + (pos - buf_start);
    if (!is_skippable(get_u32(h))) return pos;
    const std::uint64_t next = pos + 8 + get_u32(h + 4);
    if (next > file_size)
      throw FormatError(fmt::format("truncated: the skippable frame at offset {} runs past the end of the file "
                                    "({} bytes)",
                                    pos, file_size));
    pos = next;
  }
}
}  // namespace

bool starts_like_zstd(const ByteSource& src) {
  if (src.size() < 4) return false;
  unsigned char magic[4];
  src.read(0, magic, 4);
  const std::uint32_t m = get_u32(magic);
  return m == kFrameMagic || is_skippable(m);
}

std::vector<unsigned char> transcode_plain(const ByteSource& src, std::uint64_t limit) {
  const std::uint64_t file_size = src.size();
  const std::uint64_t first = first_data_frame(src);
  unsigned char header[18];  // the largest zstd frame header
  const std::size_t header_len = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof header, file_size - first));
  src.read(first, header, header_len);
  if (header_len >= 4 && get_u32(header) != kFrameMagic)
    throw FormatError(fmt::format("not a zstd frame at offset {} (no frame magic)", first));
  if (header_len < 5 || header_len < frame_header_size(header[4]))
    throw FormatError(fmt::format("truncated: the last zstd frame ends early ({} bytes in the file)", file_size));
  const unsigned long long declared = ZSTD_getFrameContentSize(header, header_len);
  if (declared == ZSTD_CONTENTSIZE_ERROR)
    throw FormatError(fmt::format("not a zstd frame at offset {} (bad frame header)", first));
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > limit)
    throw FormatError(fmt::format("declares {} decompressed bytes; {}", declared, limit_hint(limit)));

  std::unique_ptr<ZSTD_DStream, DStreamFree> stream(ZSTD_createDStream());
  if (!stream) throw std::bad_alloc();
  std::vector<unsigned char> copy;
  SeekableWriter writer(
      [&](const void* p, std::size_t n) {
        copy.insert(copy.end(), static_cast<const unsigned char*>(p), static_cast<const unsigned char*>(p) + n);
      },
      kPlainCopyLevel, kPlainCopyFrameSize);
  std::vector<unsigned char> in_buf(ZSTD_DStreamInSize());
  std::vector<unsigned char> out_buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{in_buf.data(), 0, 0};
  std::uint64_t offset = 0, total = 0;
  std::size_t last_ret = 1;  // 0 once the last frame has ended and been flushed entirely
  bool more_output = false;
  for (;;) {
    if (in.pos == in.size && !more_output) {
      if (offset == file_size) break;
      const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(in_buf.size(), file_size - offset));
      src.read(offset, in_buf.data(), chunk);
      offset += chunk;
      in = ZSTD_inBuffer{in_buf.data(), chunk, 0};
    }
    ZSTD_outBuffer out{out_buf.data(), out_buf.size(), 0};
    last_ret = ZSTD_decompressStream(stream.get(), &out, &in);
    if (ZSTD_isError(last_ret)) {
      const std::uint64_t at = offset - in.size + in.pos;
      if (ZSTD_getErrorCode(last_ret) == ZSTD_error_frameParameter_windowTooLarge)
        throw FormatError(fmt::format("the frame near compressed offset {} needs a decoding window over 128 MiB "
                                      "(zstd's default limit; written with --long=28 or more?)",
                                      at));
      throw FormatError(fmt::format("corrupt zstd data near compressed offset {} ({})", at, ZSTD_getErrorName(last_ret)));
    }
    total += out.pos;
    if (total > limit) throw FormatError(fmt::format("decompresses past {} bytes; {}", limit, limit_hint(limit)));
    writer.write(out_buf.data(), out.pos);
    // A full output buffer may leave decoded bytes inside zstd: call again even without input,
    // unless the frame has just ended (0). Calling then would start on a next frame's header and
    // report it missing - the bug that refused files of a multiple of 128 KiB as truncated.
    more_output = out.pos == out.size && last_ret != 0;
  }
  if (last_ret != 0)
    throw FormatError(fmt::format("truncated: the last zstd frame ends early ({} bytes in the file)", file_size));
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && total < declared)
    throw FormatError(fmt::format("decompresses to {} bytes but declares {}", total, declared));
  writer.finish();
  copy.shrink_to_fit();
  return copy;
}

}  // namespace rocpd::zstd
