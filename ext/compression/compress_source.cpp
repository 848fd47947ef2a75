#include "compression/compress_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace rocpd::compression {

namespace {

// Header bytes 18-19 (file format write/read versions) are 2 in WAL mode.
bool wal_header(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;  // SQLite's open reports why
  std::array<unsigned char, 20> h{};
  size_t got = 0;
  while (got < h.size()) {
    const ssize_t n = ::read(fd, h.data() + got, h.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  return got == h.size() && std::memcmp(h.data(), "SQLite format 3", 16) == 0 && h[18] == 2 && h[19] == 2;
}

// -1 when missing.
long long size_or_missing(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

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

CompressSource open_compress_source(const std::string& src, const std::string& path) {
  const std::string who = fmt::format("rocpd_compress: source '{}'", src);
  CompressSource out;
  std::string name = src;
  int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  if (wal_header(path)) {
    const long long wal = size_or_missing(path + "-wal");
    if (wal <= 0) {
      name = file_uri(path, true);
    } else if (size_or_missing(path + "-shm") < 0) {
      throw Error(fmt::format("{}: WAL-mode database with {} bytes of changes in '{}-wal' but no '{}-shm'; "
                              "reading it would create '{}-shm' beside it. Checkpoint it first "
                              "(sqlite3 '{}' 'PRAGMA wal_checkpoint(TRUNCATE)') or compress a copy",
                              who, wal, path, path, path, path),
                  SQLITE_CANTOPEN);
    } else {
      name = file_uri(path, false);
      out.file_is_image = false;
    }
    flags |= SQLITE_OPEN_URI;
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  out.db = Db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_compress: cannot open source '{}': {}", src,
                            raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
                rc);
  return out;
}

}  // namespace rocpd::compression
