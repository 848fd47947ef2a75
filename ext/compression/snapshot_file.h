// An unnamed temporary file that SQLite writes a database into: the destination of the backup
// that assembles a WAL-mode source's snapshot for rocpd_compress. It has no name in any directory
// (O_TMPFILE; where the file system cannot, a random name created with O_EXCL and removed at
// once), so no file of the user's can be replaced, followed or left behind. SQLite reaches it
// through a private VFS that knows only the files of live SnapshotFile objects.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/sqlite_util.h"

namespace rocpd::compression {

class SnapshotFile {
 public:
  // Creates the file in directory `dir`; throws Error naming it when it cannot.
  explicit SnapshotFile(const std::string& dir);
  ~SnapshotFile();
  SnapshotFile(const SnapshotFile&) = delete;
  SnapshotFile& operator=(const SnapshotFile&) = delete;

  // A connection whose main database is this file, journal off (nothing else is ever opened).
  Db open();
  std::uint64_t size() const;
  // Reads exactly n bytes at offset; throws Error.
  void read(std::uint64_t offset, void* dst, std::size_t n) const;

 private:
  int fd_ = -1;
  std::string token_;  // the name the private VFS knows the file by
};

}  // namespace rocpd::compression
