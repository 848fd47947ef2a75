// rocpd_zstd_verify(path [, max_ratio]): opens a .zst member the way the rocpd_zstd VFS does,
// decompresses and checks every frame, and returns a JSON summary; or fails with the precise
// reason. It is the way to learn why ATTACH of a compressed file said "unable to open database".
#include <fmt/format.h>

#include <algorithm>

#include "common/sqlite_util.h"
#include "compression/compressed_image.h"
#include "compression/host_interrupt.h"
#include "compression/zstd_vfs.h"

namespace rocpd::compression {
namespace {

// rocpd_zstd_verify decodes at most this many bytes per byte of the file unless told otherwise:
// a seek table may declare thousands of 64 MiB frames of zeros in a few megabytes (minutes of
// decoding), while rocpd_compress's frames of 64 KiB reach about 2600:1 even on all-zero pages.
constexpr std::uint64_t kDefaultMaxRatio = 4096;

void rocpd_zstd_verify_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) throw Error("rocpd_zstd_verify: path must be text");
    const std::string path(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])));
    std::uint64_t max_ratio = kDefaultMaxRatio;
    if (argc >= 2) {
      if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) < 0)
        throw Error("rocpd_zstd_verify: max_ratio must be a non-negative integer (0: no bound)");
      max_ratio = static_cast<std::uint64_t>(sqlite3_value_int64(argv[1]));
    }
    HostInterrupt interrupt(sqlite3_context_db_handle(ctx));
    try {
      zstd::CompressedImage image(std::make_unique<zstd::PosixFileSource>(path), plain_limit());
      // What the seek table claims is checked against the frames first (cheap), so that a table
      // that lies is named as such rather than as an implausible ratio.
      image.verify_framing([&] { interrupt.check(); });
      const std::uint64_t csize = std::max<std::uint64_t>(image.compressed_size(), 1);
      if (image.seekable() && max_ratio > 0 && image.size() / csize >= max_ratio)
        throw Error(fmt::format("rocpd_zstd_verify: {}: its frames declare {} bytes from {} compressed bytes "
                                "({}:1, at least the bound of {}:1 it decodes by default); to verify it anyway, "
                                "give a larger bound: rocpd_zstd_verify(path, max_ratio), 0 for none",
                                path, image.size(), image.compressed_size(), image.size() / csize, max_ratio),
                    SQLITE_CORRUPT);
      image.verify_all([&] { interrupt.check(); });
      const std::string json = image.describe();
      sqlite3_result_text(ctx, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
    } catch (const zstd::FormatError& e) {
      throw Error(fmt::format("rocpd_zstd_verify: {}: {}", path, e.what()), SQLITE_CORRUPT);
    } catch (const zstd::IoError& e) {
      throw Error(fmt::format("rocpd_zstd_verify: {}: {}", path, e.what()), SQLITE_IOERR);
    }
  });
}

// rocpd_zstd_plain_limit([bytes]): the cap on the decompressed size of single-frame .zst files
// (process-wide); with an argument, sets it. Returns the cap in effect.
void rocpd_zstd_plain_limit_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (argc == 1) {
      if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) <= 0)
        throw Error("rocpd_zstd_plain_limit: the limit must be a positive integer (bytes)");
      set_plain_limit(static_cast<std::uint64_t>(sqlite3_value_int64(argv[0])));
    }
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(plain_limit()));
  });
}

// rocpd_zstd_last_error(): why the rocpd_zstd VFS last failed on this thread, naming the file
// (NULL if it has not failed): the detail behind "unable to open database" or "database disk
// image is malformed".
void rocpd_zstd_last_error_fn(sqlite3_context* ctx, int, sqlite3_value**) {
  guard(ctx, [&] {
    const std::string msg = last_vfs_error();
    if (msg.empty()) sqlite3_result_null(ctx);
    else sqlite3_result_text(ctx, msg.c_str(), static_cast<int>(msg.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

int register_rocpd_zstd_functions(sqlite3* db) {
  int rc = SQLITE_OK;
  for (int n : {1, 2}) {
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_zstd_verify", n, kFileFunction, nullptr, rocpd_zstd_verify_fn,
                                      nullptr, nullptr, nullptr);
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "rocpd_zstd_last_error", 0, kFileFunction, nullptr, rocpd_zstd_last_error_fn,
                                    nullptr, nullptr, nullptr);
  for (int n : {0, 1}) {
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_zstd_plain_limit", n, kFileFunction, nullptr,
                                      rocpd_zstd_plain_limit_fn, nullptr, nullptr, nullptr);
  }
  return rc;
}

}  // namespace rocpd::compression
