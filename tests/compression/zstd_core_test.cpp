// The seekable zstd layer without SQLite: XXH64, writer/reader round trips at several frame
// sizes, the plain single-frame path, and every malformed-input error with its exact text.
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <atomic>
#include <vector>

#include "compression/compressed_image.h"
#include "compression/frame_reader.h"
#include "compression/plain_zstd.h"
#include "compression/seek_table.h"
#include "compression/seekable_writer.h"
#include "compression/xxhash64.h"
#include "zstd_test_util.h"

namespace rz = rocpd::zstd;
using rocpd_test::Bytes;
using rocpd_test::sample_data;
using rocpd_test::seekable;

namespace {

std::string open_error(const Bytes& file, std::uint64_t limit = rz::kDefaultPlainLimit) {
  try {
    rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), limit);
    img.verify_all();
  } catch (const rz::FormatError& e) {
    return e.what();
  }
  return "no error";
}

// Offsets inside a seekable file produced by seekable() with checksums.
std::size_t table_start(const Bytes& f) {
  const std::uint32_t frames = rz::get_u32(&f[f.size() - 9]);
  return f.size() - (8 + 12 * frames + 9);
}
std::size_t entry_offset(const Bytes& f, std::size_t i) { return table_start(f) + 8 + 12 * i; }
void set_u32(Bytes& f, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) f[at + k] = static_cast<unsigned char>(v >> (8 * k));
}

}  // namespace

TEST(CompressionXxHash64, KnownValues) {
  EXPECT_EQ(rz::xxhash64("", 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(rz::xxhash64("a", 1), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(rz::xxhash64("abc", 3), 0x44BC2CF5AD770999ULL);
}

TEST(CompressionXxHash64, MatchesZstdFrameChecksums) {
  // zstd stores the low 32 bits of XXH64(content) at the end of a checksummed frame.
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  for (std::size_t n : {0u, 1u, 3u, 4u, 7u, 8u, 31u, 32u, 33u, 100u, 1000u, 65536u + 13u}) {
    Bytes data = sample_data(n, static_cast<unsigned>(n));
    Bytes out(ZSTD_compressBound(n));
    std::size_t c = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), n);
    ASSERT_FALSE(ZSTD_isError(c));
    EXPECT_EQ(rz::get_u32(&out[c - 4]), static_cast<std::uint32_t>(rz::xxhash64(data.data(), n))) << n;
  }
  ZSTD_freeCCtx(cctx);
}

TEST(CompressionSeekable, RoundTripSeveralFrameSizes) {
  // Sizes that are and are not multiples of the frame size, and one smaller than a frame.
  for (std::size_t frame : {1024u, 4096u, 65536u, 262144u}) {
    for (std::size_t n : {frame * 3, frame * 3 + 1, frame * 5 - 17, frame / 2}) {
      const Bytes data = sample_data(n, static_cast<unsigned>(n));
      const Bytes file = seekable(data, frame);
      rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), rz::kDefaultPlainLimit);
      ASSERT_TRUE(img.seekable());
      ASSERT_EQ(img.size(), n);
      EXPECT_EQ(img.reader()->table().frames.size(), (n + frame - 1) / frame);
      Bytes back(n);
      ASSERT_EQ(img.read(0, back.data(), n), n);
      EXPECT_EQ(back, data) << "frame " << frame << " size " << n;
      // Random reads across frame boundaries, some running past the end.
      std::mt19937 rng(static_cast<unsigned>(frame + n));
      for (int k = 0; k < 200; ++k) {
        const std::uint64_t off = rng() % n;
        const std::size_t len = 1 + rng() % (2 * frame);
        Bytes buf(len, 0xAA);
        const std::size_t got = img.read(off, buf.data(), len);
        ASSERT_EQ(got, std::min<std::uint64_t>(len, n - off));
        ASSERT_EQ(0, std::memcmp(buf.data(), data.data() + off, got));
      }
      EXPECT_EQ(img.read(n, back.data(), 10), 0u);
      img.verify_all();
    }
  }
}

TEST(CompressionSeekable, PlainZstdDecodesOurOutput) {
  // What `zstd -d` does: decode every frame, skip the seek-table skippable frame.
  const Bytes data = sample_data(100000);
  const Bytes file = seekable(data, 4096);
  Bytes out(data.size() + 100);
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), file.data(), file.size());
  ASSERT_FALSE(ZSTD_isError(got)) << ZSTD_getErrorName(got);
  out.resize(got);
  EXPECT_EQ(out, data);
}

TEST(CompressionSeekable, EmptyInputHasAnEmptyTable) {
  const Bytes file = seekable({}, 4096);
  EXPECT_EQ(file.size(), 17u);
  rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), rz::kDefaultPlainLimit);
  EXPECT_TRUE(img.seekable());
  EXPECT_EQ(img.size(), 0u);
}

TEST(CompressionSeekable, CacheIsBoundedAndConcurrentReadsAgree) {
  const Bytes data = sample_data(64 * 1024, 5);
  const Bytes file = seekable(data, 1024);
  rz::MemorySource src(file.data(), file.size());
  auto cache = std::make_shared<rz::FrameCache>(2048);  // two frames
  rz::FrameReader reader(src, rz::read_seek_table(src), true, cache);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int k = 0; k < 2000; ++k) {
        const std::uint64_t off = rng() % data.size();
        unsigned char buf[300];
        const std::size_t got = reader.read(off, buf, sizeof buf);
        if (std::memcmp(buf, data.data() + off, got) != 0) ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_LE(cache->stats().peak_cached_bytes, 2048u);
}

TEST(CompressionSeekable, ReadAheadGivesTheSameBytesAndDefersErrors) {
  const Bytes data = sample_data(300000, 9);
  Bytes file = seekable(data, 4096);
  for (bool ahead : {false, true}) {
    rz::MemorySource src(file.data(), file.size());
    rz::FrameReader reader(src, rz::read_seek_table(src), ahead, std::make_shared<rz::FrameCache>(64 * 4096));
    Bytes back(data.size());
    for (std::size_t off = 0; off < data.size(); off += 1000) reader.read(off, back.data() + off, std::min<std::size_t>(1000, data.size() - off));
    EXPECT_EQ(back, data) << ahead;
  }
  // A damaged frame read ahead on the pool fails only when the reader reaches it, with the same text.
  const std::size_t table = table_start(file);
  std::size_t off10 = 0;
  for (int i = 0; i < 10; ++i) off10 += rz::get_u32(&file[table + 8 + 12 * i]);
  set_u32(file, table + 8 + 12 * 10 + 8, rz::get_u32(&file[table + 8 + 12 * 10 + 8]) ^ 0x100);
  rz::MemorySource src(file.data(), file.size());
  rz::FrameReader reader(src, rz::read_seek_table(src), true, std::make_shared<rz::FrameCache>(64 * 4096));
  unsigned char buf[512];
  for (std::uint64_t off = 0; off < 10 * 4096; off += sizeof buf) reader.read(off, buf, sizeof buf);
  try {
    reader.read(10 * 4096 + 5, buf, 10);
    FAIL() << "no error";
  } catch (const rz::FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("frame 10 at offset " + std::to_string(off10) + " fails its checksum", 0), 0u)
        << e.what();
  }
  // Reading past it still works.
  EXPECT_EQ(reader.read(12 * 4096, buf, 100), 100u);
  EXPECT_EQ(0, std::memcmp(buf, data.data() + 12 * 4096, 100));
}

TEST(CompressionSeekable, WriterRejectsBadParameters) {
  auto sink = [](const void*, std::size_t) {};
  EXPECT_THROW(rz::SeekableWriter(sink, 99, 4096), std::invalid_argument);
  EXPECT_THROW(rz::SeekableWriter(sink, 3, 512), std::invalid_argument);
  EXPECT_THROW(rz::SeekableWriter(sink, 3, std::size_t{128} << 20), std::invalid_argument);
}

// Resident memory of this process in bytes (VmRSS), 0 when unknown.
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  std::size_t kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmRSS: %zu kB", &kib) == 1) break;
  std::fclose(f);
  return kib * 1024;
}

TEST(CompressionSeekable, WriterChecksWhileFaultingInLevel22Tables) {
  // Issue 31 item 4: at level 22 with 64 MiB frames, zstd's first call allocates and clears 740 MB
  // of tables, which took 1.3-4 s before the first check could run: an interrupt waited that long.
  // Timing-free: the first check must come before most of that memory is resident.
  if (resident_bytes() == 0) GTEST_SKIP() << "no /proc/self/status VmRSS here";
  struct Stop {};
  // Zeros from calloc: not resident until read, and the writer stops before it reads them.
  constexpr std::size_t kFrame = std::size_t{64} << 20;
  std::unique_ptr<unsigned char, decltype(&std::free)> data(static_cast<unsigned char*>(std::calloc(kFrame, 1)),
                                                             &std::free);
  ASSERT_TRUE(data);
  std::size_t before = resident_bytes(), at_first_check = 0;
  int checks = 0;
  rz::SeekableWriter writer([](const void*, std::size_t) {}, 22, kFrame, [&] {
    if (checks++ == 0) at_first_check = resident_bytes();
    throw Stop{};
  });
  EXPECT_THROW(writer.write(data.get(), kFrame), Stop);
  EXPECT_EQ(checks, 1);
  EXPECT_LT(at_first_check, before + (std::size_t{128} << 20))
      << "resident before " << before << ", at the first check " << at_first_check;
}

TEST(CompressionBadInput, NotZstd) {
  EXPECT_EQ(open_error(Bytes{}), "empty file (not zstd-compressed)");
  const std::string text = "SQLite format 3";
  EXPECT_EQ(open_error(Bytes(text.begin(), text.end())),
            "not a zstd-compressed file (no zstd frame magic, no seek table)");
}

TEST(CompressionBadInput, TruncatedFiles) {
  const Bytes file = seekable(sample_data(20000), 4096);
  // Losing the tail loses the footer: the file then reads as a plain stream cut short.
  Bytes cut(file.begin(), file.end() - 1);
  EXPECT_EQ(open_error(cut), "truncated: the last zstd frame ends early (" + std::to_string(cut.size()) + " bytes in the file)");
  // Cut inside the first frame.
  Bytes head(file.begin(), file.begin() + 20);
  EXPECT_EQ(open_error(head), "truncated: the last zstd frame ends early (20 bytes in the file)");
  // Data removed from the middle while the seek table survives.
  Bytes middle = file;
  middle.erase(middle.begin() + 100, middle.begin() + 150);
  EXPECT_EQ(open_error(middle), "seek table frame sizes pass the start of the seek table (offset " +
                                    std::to_string(table_start(file) - 50) + ") at frame 4");
  // The sizes fall short of the data before the table.
  Bytes short_sum = file;
  const std::size_t last = entry_offset(file, 4);
  set_u32(short_sum, last, rz::get_u32(&file[last]) - 1);
  EXPECT_EQ(open_error(short_sum), "seek table frame sizes add up to " + std::to_string(table_start(file) - 1) +
                                       " bytes but " + std::to_string(table_start(file)) + " bytes precede the seek table");
  // Only a footer left.
  Bytes footer(file.end() - 9, file.end());
  EXPECT_EQ(open_error(footer), "truncated: 9 bytes is too short for a seek table");
}

TEST(CompressionBadInput, SeekTableThatLies) {
  const Bytes good = seekable(sample_data(20000), 4096);
  const std::uint32_t c0 = rz::get_u32(&good[entry_offset(good, 0)]);
  const std::uint32_t c1 = rz::get_u32(&good[entry_offset(good, 1)]);
  // Sizes shifted between two frames: the sum still matches, the frame boundary does not.
  Bytes shifted = good;
  set_u32(shifted, entry_offset(shifted, 0), c0 + 1);
  set_u32(shifted, entry_offset(shifted, 1), c1 - 1);
  EXPECT_EQ(open_error(shifted), "frame 0 at offset 0 is " + std::to_string(c0) + " bytes long but the seek table says " +
                                     std::to_string(c0 + 1));
  // A decompressed size that disagrees with the frame header.
  Bytes dsize = good;
  set_u32(dsize, entry_offset(dsize, 1) + 4, 4000);
  EXPECT_EQ(open_error(dsize), "frame 1 at offset " + std::to_string(c0) +
                                   " declares 4096 decompressed bytes but the seek table says 4000");
  // More frames than the file can hold.
  Bytes many = good;
  set_u32(many, many.size() - 9, 1000000);
  EXPECT_EQ(open_error(many), "seek table claims 1000000 frames (12000017 bytes) but the file has only " +
                                  std::to_string(good.size()) + " bytes");
  Bytes too_many = good;
  set_u32(too_many, too_many.size() - 9, 0x8000001);
  EXPECT_EQ(open_error(too_many), "seek table claims 134217729 frames, more than the format allows (134217728)");
  // Reserved descriptor bits.
  Bytes reserved = good;
  reserved[reserved.size() - 5] |= 0x04;
  EXPECT_EQ(open_error(reserved), "seek table descriptor 0x84 sets reserved bits (unsupported format revision)");
  // Skippable-frame header that disagrees with the footer.
  Bytes header = good;
  set_u32(header, table_start(header) + 4, 1);
  EXPECT_EQ(open_error(header), "seek table frame header at offset " + std::to_string(table_start(good)) +
                                    " does not match its footer (5 frames)");
  // A frame size past the per-frame bound (would make the reader allocate 1 GiB).
  Bytes huge = good;
  set_u32(huge, entry_offset(huge, 2) + 4, 1u << 30);
  EXPECT_EQ(open_error(huge), "frame 2 declares 1073741824 decompressed bytes, above the per-frame limit of 67108864");
  // A compressed size no zstd frame can have for its content.
  Bytes bloated = good;
  set_u32(bloated, entry_offset(bloated, 0) + 4, 10);
  set_u32(bloated, entry_offset(bloated, 0), 100000);
  EXPECT_EQ(open_error(bloated), "frame 0 declares 100000 compressed bytes for 10 decompressed bytes (impossible)");
  // Empty entries (no zstd frame is under 8 bytes): a footer claiming millions of them in a
  // small file would otherwise make the table cost 32 bytes per 8 bytes of file.
  Bytes empty;
  rz::put_u32(empty, rz::kSeekTableFrameMagic);
  rz::put_u32(empty, 2 * 8 + 9);
  for (int i = 0; i < 2; ++i) {
    rz::put_u32(empty, 0);
    rz::put_u32(empty, 0);
  }
  rz::put_u32(empty, 2);
  empty.push_back(0);
  rz::put_u32(empty, rz::kSeekableFooterMagic);
  EXPECT_EQ(open_error(empty), "frame 0 declares 0 compressed bytes, fewer than any zstd frame has (8)");
}

TEST(CompressionBadInput, ZeroLengthFramesBetweenData) {
  // A seekable file with empty frames (an empty zstd frame and a skippable frame) between data
  // frames: valid, and reads skip them.
  const Bytes a = sample_data(5000, 1), b = sample_data(7000, 2);
  auto frame = [](const Bytes& d) {
    Bytes out(ZSTD_compressBound(d.size()));
    out.resize(ZSTD_compress(out.data(), out.size(), d.data(), d.size(), 3));
    return out;
  };
  const Bytes fa = frame(a), fe = frame({}), fb = frame(b);
  Bytes skip;
  rz::put_u32(skip, 0x184D2A50u);
  rz::put_u32(skip, 4);
  rz::put_u32(skip, 0);
  Bytes file;
  for (const Bytes* f : std::initializer_list<const Bytes*>{&fa, &fe, &skip, &fb}) file.insert(file.end(), f->begin(), f->end());
  rz::put_u32(file, rz::kSeekTableFrameMagic);
  rz::put_u32(file, 4 * 8 + 9);
  for (auto [c, d] : {std::pair{fa.size(), a.size()}, {fe.size(), 0ul}, {skip.size(), 0ul}, {fb.size(), b.size()}}) {
    rz::put_u32(file, static_cast<std::uint32_t>(c));
    rz::put_u32(file, static_cast<std::uint32_t>(d));
  }
  rz::put_u32(file, 4);
  file.push_back(0);
  rz::put_u32(file, rz::kSeekableFooterMagic);
  EXPECT_EQ(open_error(file), "no error");
  rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), rz::kDefaultPlainLimit);
  Bytes back(a.size() + b.size());
  ASSERT_EQ(img.read(0, back.data(), back.size()), back.size());
  Bytes both = a;
  both.insert(both.end(), b.begin(), b.end());
  EXPECT_EQ(back, both);
}

TEST(CompressionBadInput, CorruptFramesAndChecksums) {
  const Bytes good = seekable(sample_data(20000), 4096);
  const std::uint32_t c0 = rz::get_u32(&good[entry_offset(good, 0)]);
  // A wrong checksum in the table.
  Bytes sum = good;
  const std::uint32_t stored = rz::get_u32(&sum[entry_offset(sum, 3) + 8]);
  set_u32(sum, entry_offset(sum, 3) + 8, stored ^ 1);
  std::size_t off3 = 0;
  for (int i = 0; i < 3; ++i) off3 += rz::get_u32(&good[entry_offset(good, i)]);
  char hex[64];
  std::snprintf(hex, sizeof hex, "(seek table 0x%08x, data 0x%08x)", stored ^ 1, stored);
  EXPECT_EQ(open_error(sum), "frame 3 at offset " + std::to_string(off3) + " fails its checksum " + hex);
  // Damaged compressed bytes: either zstd notices or the checksum does; either way frame 0.
  Bytes flipped = good;
  flipped[c0 / 2] ^= 0x5A;
  EXPECT_EQ(open_error(flipped).rfind("frame 0 at offset 0 ", 0), 0u) << open_error(flipped);
  // Frame magic destroyed.
  Bytes magic = good;
  magic[0] = 0;
  EXPECT_EQ(open_error(magic), "frame 0 at offset 0 is not a valid zstd frame (Unknown frame descriptor)");
}

TEST(CompressionBadInput, FrameDecompressingPastItsDeclaredSize) {
  // Frames without a content size in their header: only decompression can notice the lie.
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  const Bytes data = sample_data(5000);
  Bytes frame(ZSTD_compressBound(data.size()));
  frame.resize(ZSTD_compress2(cctx, frame.data(), frame.size(), data.data(), data.size()));
  ZSTD_freeCCtx(cctx);
  Bytes file = frame;
  rz::put_u32(file, rz::kSeekTableFrameMagic);
  rz::put_u32(file, 8 + 9);
  rz::put_u32(file, static_cast<std::uint32_t>(frame.size()));
  rz::put_u32(file, 4000);  // the frame really holds 5000 bytes
  rz::put_u32(file, 1);
  file.push_back(0);
  rz::put_u32(file, rz::kSeekableFooterMagic);
  EXPECT_EQ(open_error(file), "frame 0 at offset 0 decompresses past its declared size of 4000 bytes");
  set_u32(file, frame.size() + 12, 6000);
  EXPECT_EQ(open_error(file), "frame 0 at offset 0 decompresses to 5000 bytes but the seek table says 6000");
}

TEST(CompressionPlain, RoundTripAndLimits) {
  const Bytes data = sample_data(300000);
  Bytes file(ZSTD_compressBound(data.size()));
  file.resize(ZSTD_compress(file.data(), file.size(), data.data(), data.size(), 3));
  {
    rz::CompressedImage img(std::make_unique<rz::MemorySource>(file.data(), file.size()), rz::kDefaultPlainLimit);
    EXPECT_FALSE(img.seekable());
    Bytes back(data.size());
    ASSERT_EQ(img.read(0, back.data(), back.size()), data.size());
    EXPECT_EQ(back, data);
  }
  EXPECT_EQ(open_error(file, 1000),
            "declares 300000 decompressed bytes; the limit for single-frame .zst files is 1000 bytes "
            "(rocpd_zstd_plain_limit(); rocpd_compress() writes a seekable file instead)");
}

TEST(CompressionPlain, UndeclaredSizePastTheLimit) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  const Bytes data = sample_data(300000);
  Bytes file(ZSTD_compressBound(data.size()));
  file.resize(ZSTD_compress2(cctx, file.data(), file.size(), data.data(), data.size()));
  ZSTD_freeCCtx(cctx);
  EXPECT_EQ(open_error(file, 100000),
            "decompresses past 100000 bytes; the limit for single-frame .zst files is 100000 bytes "
            "(rocpd_zstd_plain_limit(); rocpd_compress() writes a seekable file instead)");
}

TEST(CompressionPlain, DeclaredTerabyteIsRefusedBeforeAllocating) {
  // A frame header (single segment, 8-byte content size) declaring 1 TB, with no data behind it.
  Bytes file;
  rz::put_u32(file, rz::kFrameMagic);
  file.push_back(0xE0);  // FCS field 8 bytes, single segment
  const std::uint64_t tb = 1ULL << 40;
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<unsigned char>(tb >> (8 * i)));
  EXPECT_EQ(open_error(file),
            "declares 1099511627776 decompressed bytes; the limit for single-frame .zst files is 268435456 bytes "
            "(rocpd_zstd_plain_limit(); rocpd_compress() writes a seekable file instead)");
}

TEST(CompressionPlain, CorruptStream) {
  const Bytes data = sample_data(50000);
  Bytes file(ZSTD_compressBound(data.size()));
  file.resize(ZSTD_compress(file.data(), file.size(), data.data(), data.size(), 3));
  file[file.size() / 2] ^= 0xFF;
  file[file.size() / 2 + 1] ^= 0xFF;
  EXPECT_EQ(open_error(file).rfind("corrupt zstd data", 0), 0u) << open_error(file);
}
