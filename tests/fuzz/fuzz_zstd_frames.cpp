// Fuzz target: any bytes as a zstd-compressed member. The bytes go two ways:
//  - through the compression capability's frame reader (CompressedImage over memory), read page
//    by page, straddling frames, and verified, as tests/compression/fuzz does;
//  - as a file x.rpd.zst opened with rocpd_open(path) (the rocpd_zstd VFS under SQLite) and
//    read through rocpd_members / rocpd_ops, plus rocpd_zstd_verify(path).
// Bad input must end in an error; crashes, hangs, unbounded allocations and leaks must not happen.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compression/compressed_image.h"
#include "fuzz_connection.h"
#include "fuzz_files.h"

namespace {

void read_frames(const std::uint8_t* data, std::size_t size) {
  namespace rz = rocpd::zstd;
  try {
    // A 1 MiB cap on plain single-frame files keeps each run small.
    rz::CompressedImage image(std::make_unique<rz::MemorySource>(data, size), 1u << 20);
    std::vector<unsigned char> page(4096);
    for (std::uint64_t off = 0; off < image.size() && off < (4u << 20); off += page.size())
      image.read(off, page.data(), page.size());
    if (image.size() > 100) image.read(image.size() / 2 - 50, page.data(), 100);
    image.verify_all();
  } catch (const rz::FormatError&) {
  } catch (const rz::IoError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_frames(data, size);
  const std::string path = rocpd::fuzz::write_input_file("x.rpd.zst", data, size);
  rocpd::fuzz::Connection db;
  db.run("SELECT rocpd_zstd_plain_limit(1048576)");
  db.run("SELECT rocpd_zstd_verify(?1)", {path});
  if (db.run("SELECT rocpd_open(?1)", {path}) != SQLITE_OK) return 0;
  db.run("SELECT * FROM rocpd_members");
  db.run("SELECT kind, count(*), sum(duration) FROM rocpd_ops GROUP BY kind");
  db.run("SELECT * FROM rocpd_apis LIMIT 500");
  db.run("SELECT rocpd_close()");
  return 0;
}
