// Plain .zst files (no seek table): decoded sizes and file sizes at the decoder's buffer
// boundaries (a multiple of 128 KiB used to be refused as truncated), skippable frames, empty
// frames, and headers that lie.
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>

#include "compression/compressed_image.h"
#include "compression/plain_zstd.h"
#include "compression/seek_table.h"
#include "zstd_test_util.h"

namespace rz = rocpd::zstd;
using rocpd_test::Bytes;

namespace {

Bytes random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// Opens `file` as a plain .zst and returns its decompressed bytes, or the error text.
std::string decode(const Bytes& file, Bytes& out) {
  try {
    rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), rz::kDefaultPlainLimit);
    EXPECT_FALSE(img.seekable());
    out.assign(img.size(), 0);
    if (img.read(0, out.data(), out.size()) != out.size()) return "short read";
    return "ok";
  } catch (const rz::FormatError& e) {
    return e.what();
  }
}

}  // namespace

TEST(CompressionPlain, DecodedSizesAtBufferBoundaries) {
  const std::size_t block = ZSTD_DStreamOutSize();  // 128 KiB
  for (std::size_t n : {block, 2 * block, 3 * block, 8 * block, block - 1, block + 1, 2 * block + 4096,
                        std::size_t{4096}, std::size_t{1}}) {
    for (bool random : {false, true}) {
      for (bool content_size : {true, false}) {
        const Bytes data = random ? random_bytes(n, static_cast<unsigned>(n)) : rocpd_test::sample_data(n, 7);
        Bytes back;
        EXPECT_EQ(decode(rocpd_test::plain_frame(data, content_size), back), "ok")
            << n << " random " << random << " content size " << content_size;
        EXPECT_EQ(back, data) << n;
      }
    }
  }
}

TEST(CompressionPlain, FramesEndingAtBufferBoundaries) {
  // Concatenated frames (zstd -d accepts them): the first ends exactly at 128 KiB of output.
  const std::size_t block = ZSTD_DStreamOutSize();
  const Bytes a = random_bytes(block, 1), b = random_bytes(2 * block, 2), c = rocpd_test::sample_data(5000, 3);
  Bytes back;
  EXPECT_EQ(decode(concat({rocpd_test::plain_frame(a), rocpd_test::plain_frame(b)}), back), "ok");
  EXPECT_EQ(back, concat({a, b}));
  EXPECT_EQ(decode(concat({rocpd_test::plain_frame(a, false), rocpd_test::skippable_frame(100),
                           rocpd_test::plain_frame(c)}),
                   back),
            "ok");
  EXPECT_EQ(back, concat({a, c}));
}

TEST(CompressionPlain, FileSizesAtInputBufferBoundaries) {
  // Compressed files of exactly k x 128 KiB and k x ZSTD_DStreamInSize() bytes (padded with a
  // trailing skippable frame), whatever they decode to.
  const Bytes data = random_bytes(300 * 1024, 9);
  const Bytes frame = rocpd_test::plain_frame(data);
  for (std::size_t target : {std::size_t{128 * 1024} * 3, std::size_t{128 * 1024} * 4, ZSTD_DStreamInSize() * 3,
                             ZSTD_DStreamInSize() * 4}) {
    ASSERT_GT(target, frame.size() + 8);
    const Bytes file = concat({frame, rocpd_test::skippable_frame(target - frame.size() - 8)});
    ASSERT_EQ(file.size(), target);
    Bytes back;
    EXPECT_EQ(decode(file, back), "ok") << target;
    EXPECT_EQ(back, data) << target;
  }
}

TEST(CompressionPlain, SkippableAndEmptyFrames) {
  Bytes back;
  EXPECT_EQ(decode(rocpd_test::skippable_frame(10), back), "holds only skippable frames (no zstd data frame)");
  EXPECT_EQ(decode(concat({rocpd_test::skippable_frame(0), rocpd_test::skippable_frame(5, 3)}), back),
            "holds only skippable frames (no zstd data frame)");
  Bytes cut = rocpd_test::skippable_frame(100);
  cut.resize(50);
  EXPECT_EQ(decode(cut, back), "truncated: the skippable frame at offset 0 runs past the end of the file (50 bytes)");
  // A frame of nothing (zstd of an empty file) is an empty image, like an empty seekable file.
  EXPECT_EQ(decode(rocpd_test::plain_frame({}), back), "ok");
  EXPECT_TRUE(back.empty());
  const Bytes data = rocpd_test::sample_data(70000, 4);
  EXPECT_EQ(decode(concat({rocpd_test::skippable_frame(30), rocpd_test::plain_frame({}), rocpd_test::plain_frame(data)}),
                   back),
            "ok");
  EXPECT_EQ(back, data);
  Bytes junk = concat({rocpd_test::skippable_frame(3), Bytes{'S', 'Q', 'L', 'i', 't', 'e', 0, 0, 0, 0}});
  EXPECT_EQ(decode(junk, back), "not a zstd frame at offset 11 (no frame magic)");
}

TEST(CompressionPlain, HeadersThatLie) {
  const Bytes data = rocpd_test::sample_data(5000, 5);
  // Single-segment frame header with a 2-byte content size field (FCS = value - 256).
  Bytes frame = rocpd_test::plain_frame(data);
  ASSERT_EQ(frame[4] >> 6, 1);  // FCS field of 2 bytes: 5000 - 256
  Bytes small = frame, big = frame;
  const unsigned fcs_at = (frame[4] & 0x20) ? 5 : 6;
  small[fcs_at] = static_cast<unsigned char>((1000 - 256) & 0xFF);
  small[fcs_at + 1] = static_cast<unsigned char>((1000 - 256) >> 8);
  big[fcs_at] = static_cast<unsigned char>((60000 - 256) & 0xFF);
  big[fcs_at + 1] = static_cast<unsigned char>((60000 - 256) >> 8);
  Bytes back;
  EXPECT_EQ(decode(small, back).rfind("corrupt zstd data near compressed offset", 0), 0u) << decode(small, back);
  EXPECT_EQ(decode(big, back).rfind("corrupt zstd data near compressed offset", 0), 0u) << decode(big, back);
  // Cut inside the frame header.
  for (std::size_t n : {4u, 5u, 6u}) {
    Bytes head(frame.begin(), frame.begin() + n);
    EXPECT_EQ(decode(head, back), "truncated: the last zstd frame ends early (" + std::to_string(n) +
                                      " bytes in the file)");
  }
  // Past the cap as the data is produced, whatever the header says (no content size).
  const Bytes frame_unknown = rocpd_test::plain_frame(rocpd_test::sample_data(300000, 6), false);
  try {
    rz::CompressedImage img(std::make_unique<rz::MemorySource>(frame_unknown.data(), frame_unknown.size()), 200000);
    FAIL() << "no error";
  } catch (const rz::FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("decompresses past 200000 bytes", 0), 0u) << e.what();
  }
}

TEST(CompressionPlain, TheInMemoryCopyIsSeekableAndSmall) {
  const Bytes data = rocpd_test::sample_data(3 << 20, 8);
  const Bytes file = rocpd_test::plain_frame(data, true, 9);
  rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), rz::kDefaultPlainLimit);
  EXPECT_EQ(img.size(), data.size());
  EXPECT_LT(img.plain_copy_size(), data.size() / 2);  // held compressed, not decoded
  EXPECT_EQ(img.reader()->table().frames.size(), data.size() / rz::kPlainCopyFrameSize);
  std::mt19937 rng(1);
  for (int k = 0; k < 300; ++k) {
    const std::size_t off = rng() % data.size();
    unsigned char buf[4096];
    const std::size_t got = img.read(off, buf, sizeof buf);
    ASSERT_EQ(0, std::memcmp(buf, data.data() + off, got));
  }
  EXPECT_EQ(img.describe(), R"({"layout":"single-frame","compressed_size":)" + std::to_string(file.size()) +
                                R"(,"size":)" + std::to_string(data.size()) + "}");
}
