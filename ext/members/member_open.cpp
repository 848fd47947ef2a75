#include "members/member_open.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>


namespace rocpd::members {

namespace {

// Every byte of `text` outside the unreserved set (and '/') percent-encoded.
std::string uri_escaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

// "file:" URI of a path.
std::string file_uri(const std::string& path, bool immutable) {
  std::string uri = "file:" + uri_escaped(path);
  uri += "?mode=ro";
  if (immutable) uri += "&immutable=1";
  return uri;
}

}  // namespace

namespace {

// The URI open_member_db opens `path` with, after its checks (see member_open.h).
std::string member_uri(const std::string& path, const std::string& vfs, const std::string& who) {
  bool immutable = false;
  if (vfs.empty()) {
    const SqliteHeader header = check_sqlite_file(path, who);
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
  return file_uri(path, immutable);
}

[[noreturn]] void open_failed(sqlite3* raw, int rc, const std::string& path, const std::string& who) {
  const int sys = raw ? sqlite3_system_errno(raw) : 0;
  std::string why = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
  if (sys != 0) why += fmt::format(" ({})", std::strerror(sys));
  const std::string msg = fmt::format("{}: cannot open: {}{}", who, why, zstd_reason(path));
  if (descriptors_exhausted(sys)) throw OutOfDescriptors(msg, rc);
  throw Error(msg, rc);
}

}  // namespace

Db open_member_db(const std::string& path, const std::string& vfs, const std::string& who,
                  const std::string& source) {
  std::string uri = member_uri(path, vfs, who);
  if (!source.empty()) uri += fmt::format("&{}={}", canonical::kSourceParameter, uri_escaped(source));
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const int rc = sqlite3_open_v2(uri.c_str(), &raw, flags, vfs.empty() ? nullptr : vfs.c_str());
  Db db(raw);
  if (rc != SQLITE_OK) open_failed(raw, rc, path, who);
  return db;
}

Db open_member_db_as(const std::string& path, const std::string& vfs, const std::string& schema,
                     const std::string& who) {
  if (schema == "main") return open_member_db(path, vfs, who);
  std::string uri = member_uri(path, vfs, who);
  if (!vfs.empty()) {
    uri += "&vfs=";
    for (unsigned char c : vfs) {
      if (std::isalnum(c) || c == '.' || c == '-' || c == '_' || c == '~') uri += static_cast<char>(c);
      else uri += fmt::format("%{:02X}", c);
    }
  }
  // An in-memory main database (no file) holding the member's file under `schema`.
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  int rc = sqlite3_open_v2(":memory:", &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) open_failed(raw, rc, path, who);
  Stmt attach = prepare(db.get(), fmt::format("ATTACH ?1 AS {}", quote_id(schema)), who);
  sqlite3_bind_text(attach.get(), 1, uri.data(), static_cast<int>(uri.size()), SQLITE_TRANSIENT);
  rc = sqlite3_step(attach.get());
  if (rc != SQLITE_DONE) open_failed(db.get(), rc, path, who);
  return db;
}

}  // namespace rocpd::members
