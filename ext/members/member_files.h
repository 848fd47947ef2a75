// File-system side of rocpd_open(): expanding a path, glob or directory into trace files,
// refusing files that are not (whole) SQLite databases, and naming members after their files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/sqlite_util.h"

namespace rocpd::federation {

// Raised when the process has no file descriptor left (EMFILE/ENFILE): the caller may close idle
// member connections and try again.
class OutOfDescriptors : public Error {
 public:
  using Error::Error;
};
bool descriptors_exhausted(int sys_errno);

// Files named by `pattern`: a file, a glob, or a directory (its *.rpd, *.db, *.sqlite, *.sqlite3
// and *.zst files, not recursive). Sorted. Throws Error when nothing matches.
std::vector<std::string> expand_pattern(const std::string& pattern);

// Throws Error naming `path` when it is not a regular file (a FIFO would block any reader,
// a directory or device is no trace), with the system's reason when it cannot be read at all.
void check_regular_file(const std::string& path);

// What the 100-byte header of an SQLite file says that matters before opening it.
struct SqliteHeader {
  bool wal = false;  // file format versions 2: the database is in WAL mode
};

// Throws Error naming `path` when it is not a complete SQLite database file: not a regular file,
// wrong magic, or shorter than the database size its header records (a truncated copy). Opens the
// file without blocking. zstd files are checked by their VFS instead.
SqliteHeader check_sqlite_file(const std::string& path);

bool is_zstd_path(const std::string& path);
// For a .zst member: "; <why the rocpd_zstd VFS failed on this thread>", since SQLite itself
// only says "unable to open database file" or "database disk image is malformed". Else "".
// (Defined in zstd_reason.cpp: it needs the compression capability.)
std::string zstd_reason(const std::string& path);
// "run/rank7.db.zst" -> "rank7".
std::string alias_stem(const std::string& path);
// Canonical absolute path (for recognising a file opened twice); the input when it cannot resolve.
std::string canonical_path(const std::string& path);
// Size and modification time (ns) of a file; {-1, -1} when it cannot be stat'ed.
std::pair<int64_t, int64_t> file_stamp(const std::string& path);
// Size of a file, -1 when it does not exist.
int64_t file_size_or_missing(const std::string& path);

}  // namespace rocpd::federation
