#include "federation/member_open.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>


namespace rocpd::federation {

namespace {

// "file:" URI of a path: every byte outside the unreserved set percent-encoded.
std::string file_uri(const std::string& path, bool immutable) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') uri += static_cast<char>(c);
    else uri += fmt::format("%{:02X}", c);
  }
  uri += "?mode=ro";
  if (immutable) uri += "&immutable=1";
  return uri;
}

}  // namespace

Db open_member_db(const std::string& path, const std::string& vfs, const std::string& who) {
  bool immutable = false;
  if (vfs.empty()) {
    const SqliteHeader header = check_sqlite_file(path);
    if (header.wal) {
      const int64_t wal = file_size_or_missing(path + "-wal");
      if (wal <= 0) {
        immutable = true;
      } else if (file_size_or_missing(path + "-shm") < 0) {
        throw Error(fmt::format("{}: WAL-mode database with {} bytes of changes in '{}-wal' but no '{}-shm'; "
                                "reading it would create '{}-shm' beside it. Checkpoint it first "
                                "(sqlite3 '{}' 'PRAGMA wal_checkpoint(TRUNCATE)') or read a copy",
                                who, wal, path, path, path, path),
                    SQLITE_CANTOPEN);
      }
    }
  }
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const int rc = sqlite3_open_v2(file_uri(path, immutable).c_str(), &raw, flags, vfs.empty() ? nullptr : vfs.c_str());
  Db db(raw);
  if (rc == SQLITE_OK) return db;
  const int sys = raw ? sqlite3_system_errno(raw) : 0;
  std::string why = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
  if (sys != 0) why += fmt::format(" ({})", std::strerror(sys));
  const std::string msg = fmt::format("{}: cannot open: {}{}", who, why, zstd_reason(path));
  if (descriptors_exhausted(sys)) throw OutOfDescriptors(msg, rc);
  throw Error(msg, rc);
}

}  // namespace rocpd::federation
