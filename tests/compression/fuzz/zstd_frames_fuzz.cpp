// Fuzz target for the frame reader: any bytes as a .zst file. Must never crash, hang or allocate
// without bound; bad input must end in FormatError. Built with libFuzzer under clang
// (-DROCPD_FUZZ=ON), and replayed over the committed corpus in every CI run.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "compression/compressed_image.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace rz = rocpd::zstd;
  try {
    // A 1 MiB cap on plain files keeps each run small; the seekable path is bounded per frame.
    rz::CompressedImage image(std::make_unique<rz::MemorySource>(data, size), 1u << 20);
    std::vector<unsigned char> page(4096);
    // Read as SQLite would (pages), plus a read straddling frames, over the first 4 MiB.
    for (std::uint64_t off = 0; off < image.size() && off < (4u << 20); off += page.size())
      image.read(off, page.data(), page.size());
    if (image.size() > 100) image.read(image.size() / 2 - 50, page.data(), 100);
    image.verify_all();
  } catch (const rz::FormatError&) {
  } catch (const rz::IoError&) {
  }
  return 0;
}
