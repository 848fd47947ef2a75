// Shared by the compression unit tests: sample data and in-memory zstd files.
#pragma once
#include <zstd.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "compression/seekable_writer.h"

namespace rocpd_test {

using Bytes = std::vector<unsigned char>;

// Trace-like content: repetitive records with varying numbers, compressible but not trivially.
inline Bytes sample_data(std::size_t n, unsigned seed = 1) {
  std::mt19937 rng(seed);
  Bytes out;
  out.reserve(n);
  while (out.size() < n) {
    const std::string rec = "kernel_" + std::to_string(rng() % 97) + "|" + std::to_string(rng() % 1000000) + ";";
    out.insert(out.end(), rec.begin(), rec.end());
  }
  out.resize(n);
  return out;
}

// Our seekable layout of `data`.
inline Bytes seekable(const Bytes& data, std::size_t frame_size, int level = 3) {
  Bytes out;
  rocpd::zstd::SeekableWriter w(
      [&](const void* p, std::size_t n) {
        out.insert(out.end(), static_cast<const unsigned char*>(p), static_cast<const unsigned char*>(p) + n);
      },
      level, frame_size);
  // Feed in odd-sized pieces so frame cutting does not depend on the caller's chunking.
  for (std::size_t off = 0; off < data.size(); off += 7777)
    w.write(data.data() + off, std::min<std::size_t>(7777, data.size() - off));
  w.finish();
  return out;
}

// One ordinary zstd frame of `data` (what `zstd file` writes), with or without the content size
// in its header.
inline Bytes plain_frame(const Bytes& data, bool content_size = true, int level = 3) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
  Bytes out(ZSTD_compressBound(data.size()));
  out.resize(ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size()));
  ZSTD_freeCCtx(cctx);
  return out;
}

// A skippable frame holding `n` zero bytes.
inline Bytes skippable_frame(std::size_t n, unsigned variant = 0) {
  Bytes out;
  const std::uint32_t magic = 0x184D2A50u + (variant & 0xF);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(magic >> (8 * i)));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(n >> (8 * i)));
  out.resize(out.size() + n, 0);
  return out;
}

}  // namespace rocpd_test
