// rocpd_compress's source, opened read-only without creating anything beside it, by the rules
// rocpd_open reads members with (docs/guarantees.md, "Never written"): a WAL-mode file whose
// `-wal` is missing or empty holds all its content in the main file and is opened `immutable` (no
// `-wal`, no `-shm`, no locks: a read-only directory works); one with committed pages still in
// its `-wal` is read through its existing `-shm`; a `-wal` without `-shm` is refused with the
// remedy, since reading it would create the `-shm`. Other files open as given (a name or a URI).
#pragma once
#include <string>

#include "common/sqlite_util.h"

namespace rocpd::compression {

struct CompressSource {
  Db db;
  // The main file alone is the database (not WAL, or WAL with nothing in its -wal): its bytes can
  // be copied as they are. Otherwise SQLite assembles the pages (backup).
  bool file_is_image = true;
};

// `src` as the user gave it (a file name or a "file:" URI); `path` the file it names. Throws
// Error prefixed "rocpd_compress: source '<src>'".
CompressSource open_compress_source(const std::string& src, const std::string& path);

}  // namespace rocpd::compression
