#include "members/member_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/sqlite_util.h"
#include "members/member_convert.h"

namespace rocpd::federation {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool looks_like_trace_file(const std::string& name) {
  std::string base = name;
  if (ends_with(base, ".zst")) base.resize(base.size() - 4);
  for (const char* ext : {".rpd", ".db", ".sqlite", ".sqlite3"})
    if (ends_with(base, ext)) return true;
  return false;
}

const char* file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// A file descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

uint32_t big_endian(const unsigned char* p, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

bool descriptors_exhausted(int sys_errno) { return sys_errno == EMFILE || sys_errno == ENFILE; }

namespace {
[[noreturn]] void unreadable(const std::string& path, int code) {
  const int err = errno;
  const std::string msg = fmt::format("rocpd_open: '{}': cannot be read: {}", path, std::strerror(err));
  if (descriptors_exhausted(err)) throw OutOfDescriptors(msg, SQLITE_CANTOPEN);
  throw Error(msg, code);
}
}  // namespace

bool is_zstd_path(const std::string& path) { return ends_with(path, ".zst"); }

std::vector<std::string> expand_pattern(const std::string& pattern) {
  if (pattern.empty()) throw Error("rocpd_open: empty path");
  std::vector<std::string> files;
  if (pattern.find_first_of("*?[") != std::string::npos) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
    std::unique_ptr<glob_t, void (*)(glob_t*)> guard(&g, globfree);
    if (rc == GLOB_NOMATCH) throw Error(fmt::format("rocpd_open: no file matches '{}'", pattern));
    if (rc != 0) throw Error(fmt::format("rocpd_open: cannot expand '{}'", pattern));
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      std::error_code ec;
      if (fs::is_regular_file(g.gl_pathv[i], ec)) files.emplace_back(g.gl_pathv[i]);
    }
    if (files.empty()) throw Error(fmt::format("rocpd_open: no regular file matches '{}'", pattern));
  } else {
    std::error_code ec;
    const auto st = fs::status(pattern, ec);
    if (ec || !fs::exists(st)) throw Error(fmt::format("rocpd_open: '{}': no such file or directory", pattern));
    if (fs::is_directory(st)) {
      for (const auto& entry : fs::directory_iterator(pattern, ec))
        if (entry.is_regular_file() && (looks_like_trace_file(entry.path().filename().string()) || is_json_trace_file(entry.path().string())))
          files.push_back(entry.path().string());
      if (files.empty())
        throw Error(fmt::format(
            "rocpd_open: directory '{}' holds no trace files (*.rpd, *.db, *.sqlite, *.sqlite3, optionally .zst)",
            pattern));
    } else {
      check_regular_file(pattern);
      files.push_back(pattern);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void check_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(fmt::format("rocpd_open: '{}': {}", path, std::strerror(errno)), SQLITE_CANTOPEN);
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("rocpd_open: '{}': {}, not a regular file", path, file_kind(st.st_mode)),
                SQLITE_CANTOPEN);
}

SqliteHeader check_sqlite_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) unreadable(path, SQLITE_CANTOPEN);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) unreadable(path, SQLITE_CANTOPEN);
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("rocpd_open: '{}': {}, not a regular file", path, file_kind(st.st_mode)),
                SQLITE_CANTOPEN);
  std::array<unsigned char, 100> h{};
  ssize_t got = 0;
  while (got < static_cast<ssize_t>(h.size())) {
    const ssize_t n = ::read(f.fd, h.data() + got, h.size() - static_cast<size_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) unreadable(path, SQLITE_IOERR);
    if (n == 0) break;
    got += n;
  }
  static const char kMagic[] = "SQLite format 3";
  if (got < 16 || std::memcmp(h.data(), kMagic, 16) != 0)
    throw Error(fmt::format("rocpd_open: '{}': not an SQLite database", path), SQLITE_NOTADB);
  if (got < 100) throw Error(fmt::format("rocpd_open: '{}': truncated ({} bytes, shorter than the SQLite header)", path, got), SQLITE_CORRUPT);
  uint32_t page_size = big_endian(&h[16], 2);
  if (page_size == 1) page_size = 65536;
  const uint32_t pages = big_endian(&h[28], 4);
  // The in-header page count is valid only while the change counter matches "version-valid-for".
  const bool count_valid = pages != 0 && big_endian(&h[24], 4) == big_endian(&h[92], 4);
  const auto size = static_cast<uint64_t>(st.st_size);
  if (count_valid && size < uint64_t{pages} * page_size)
    throw Error(fmt::format("rocpd_open: '{}': truncated ({} bytes, its header records {} pages of {} bytes)", path,
                            size, pages, page_size),
                SQLITE_CORRUPT);
  SqliteHeader header;
  header.wal = h[18] == 2 || h[19] == 2;
  return header;
}

std::string alias_stem(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  const size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name.empty() ? "member" : name;
}

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  auto p = fs::canonical(path, ec);
  return ec ? path : p.string();
}

int64_t file_size_or_missing(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_size);
}

std::pair<int64_t, int64_t> file_stamp(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return {-1, -1};
  return {static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace rocpd::federation
