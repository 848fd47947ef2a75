// File-system side of rocpd_open(): expanding a path, glob or directory into trace files,
// refusing files that are not (whole) SQLite databases, and naming members after their files.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "canonical/member.h"
#include "common/sqlite_util.h"

namespace rocpd::members {

// Raised when the process has no file descriptor left (EMFILE/ENFILE): the caller may close idle
// member connections and try again.
class OutOfDescriptors : public Error {
 public:
  using Error::Error;
};
bool descriptors_exhausted(int sys_errno);

// An entry of a directory or glob that rocpd_open passed over, and why (rocpd_skipped).
struct SkippedFile {
  std::string path;
  std::string reason;
};

// What a pattern names.
struct PatternFiles {
  std::vector<std::string> files;    // candidate trace files, sorted
  // Member names are these files' paths relative to this directory, without the file name's
  // extensions (member_name); empty for a single file, named after its own file name.
  std::string base;
  bool single = false;               // the pattern is one file: its errors are never skipped
  std::vector<SkippedFile> skipped;  // not regular files, unreadable entries, symbolic link loops
};

// Files named by `pattern`: a path that exists is that file or directory, even when its name
// holds glob characters; a directory gives its trace-like files (looks_like_trace_file) in it
// and its subdirectories (symbolic links to directories are not followed); anything else is a
// glob, whose matching directories are read the same way. Sorted. Throws Error when no candidate
// is found, naming what was passed over. `check` runs every few hundred entries (interrupts).
PatternFiles expand_pattern(const std::string& pattern, const std::function<void()>& check = {});
// The name of member `path` found under directory `base` (PatternFiles): "host1/123_results"
// for "out/host1/123_results.db" under "out"; the file's stem when `base` is empty.
std::string member_name(const std::string& path, const std::string& base);
// "rocpd_open: directory 'd' holds no trace files (...)": the message when a pattern that found
// candidates opened none of them, listing what was skipped and why (at most a few, then a count).
std::string skipped_list(const std::vector<SkippedFile>& skipped);

// Throws Error naming `path` when it is not a regular file (a FIFO would block any reader,
// a directory or device is no trace), with the system's reason when it cannot be read at all.
void check_regular_file(const std::string& path, const std::string& who);

// What the 100-byte header of an SQLite file says that matters before opening it.
struct SqliteHeader {
  bool wal = false;  // file format versions 2: the database is in WAL mode
};

// Throws Error, prefixed with `who` (which names the file), when `path` is not a complete SQLite
// database file: not a regular file, wrong magic, or shorter than the database size its header
// records (a truncated copy). Opens the file without blocking. zstd files are checked by their
// VFS instead.
SqliteHeader check_sqlite_file(const std::string& path, const std::string& who);

bool is_zstd_path(const std::string& path);
// The file starts with SQLite's header ("SQLite format 3"): a database whatever its name says (a
// member named rank0.json is still read as a database, not converted as a JSON trace).
bool is_sqlite_file(const std::string& path);
// For a .zst member: "; <why the rocpd_zstd VFS failed on this thread>", since SQLite itself
// only says "unable to open database file" or "database disk image is malformed". Else "".
// (Defined in zstd_reason.cpp: it needs the compression capability.)
std::string zstd_reason(const std::string& path);
// For a member that SQLite could not read: "; '<path>-journal' is a hot rollback journal ..." when
// that is why (a reader opened read-only cannot roll it back), else "".
std::string hot_journal_reason(const std::string& path);
// "run/rank7.db.zst" -> "rank7".
std::string alias_stem(const std::string& path);
// Canonical absolute path (for recognising a file opened twice); the input when it cannot resolve.
std::string canonical_path(const std::string& path);
// canonical_path() of many files, most of them in a few directories: each directory is resolved
// once, a file that is no symbolic link costs one lstat (resolving /a/b/c/file component by
// component cost 8 system calls for each of 10,000 files).
class CanonicalPaths {
 public:
  std::string of(const std::string& path);

 private:
  std::unordered_map<std::string, std::string> dirs_;  // directory as written -> canonical
};
// Size, modification time and identity of a file (FileStamp, canonical/member.h); a stamp whose
// size is -1 when it cannot be stat'ed.
canonical::FileStamp file_stamp(const std::string& path);
// Size of a file, -1 when it does not exist.
int64_t file_size_or_missing(const std::string& path);

}  // namespace rocpd::members
