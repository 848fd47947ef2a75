#include "members/member_files.h"
#include "members/nsys_report.h"

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
#include "members/json_sniff.h"
#include "members/member_convert.h"

namespace rocpd::members {

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
[[noreturn]] void unreadable(const std::string& who, int code) {
  const int err = errno;
  const std::string msg = fmt::format("{}: cannot be read: {}", who, std::strerror(err));
  if (descriptors_exhausted(err)) throw OutOfDescriptors(msg, SQLITE_CANTOPEN);
  throw Error(msg, code);
}
}  // namespace

bool is_zstd_path(const std::string& path) { return ends_with(path, ".zst"); }

bool is_sqlite_file(const std::string& path) {
  static constexpr char kMagic[] = "SQLite format 3";  // with its NUL: 16 bytes
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) return false;
  char head[sizeof kMagic] = {};
  return ::pread(f.fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) &&
         std::memcmp(head, kMagic, sizeof head) == 0;
}

namespace {

constexpr const char* kTraceFileKinds = "*.rpd, *.db, *.sqlite, *.sqlite3, optionally .zst; *.json, *.json.gz";

// Why a file found in a directory or glob cannot be a member ("": it is a candidate): a 0-byte
// file holds no trace (a tracer that never wrote, a placeholder), and one that cannot be opened
// (no permission) is passed over with the system's reason, like an entry that cannot be listed. A
// file named by its path gets its error instead.
std::string pass_over_reason(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return fmt::format("{}, not a regular file", file_kind(st.st_mode));
  if (st.st_size == 0) return "an empty file (0 bytes)";
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0 && !descriptors_exhausted(errno)) return fmt::format("cannot be read: {}", std::strerror(errno));
  return {};
}

// Adds the trace-like files of directory `root` and of its subdirectories to `out`. Entries that
// cannot be read (a symbolic link loop, a dangling link, no permission), subdirectories that
// cannot be listed, and files that are not regular (a FIFO would block a reader) are passed over
// and listed, with the system's reason.
void walk_directory(const std::string& root, PatternFiles& out, const std::function<void()>& check) {
  std::vector<std::string> pending{root};
  size_t seen = 0;
  while (!pending.empty()) {
    const std::string dir = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      out.skipped.push_back({dir, fmt::format("cannot be listed: {}", ec.message())});
      continue;
    }
    for (const fs::directory_iterator end; it != end; it.increment(ec)) {
      if (ec) break;
      if (check && ++seen % 256 == 0) check();
      const fs::directory_entry& entry = *it;
      std::error_code kind_ec;
      if (!entry.is_symlink(kind_ec) && entry.is_directory(kind_ec)) {  // symbolic links to directories are not followed
        pending.push_back(entry.path().string());
        continue;
      }
      const std::string path = entry.path().string();
      const bool json = is_json_trace_path(path);
      if (is_nsys_report_path(path)) {
        // Beside its own export (nsys profile --export sqlite), the .sqlite file is the member.
        std::string exported = path.substr(0, path.rfind('.')) + ".sqlite";
        std::error_code sibling_ec;
        if (fs::exists(exported, sibling_ec))
          out.skipped.push_back({path, fmt::format("an Nsight Systems report whose export '{}' is read", exported)});
        else if (nsys_export_enabled())
          out.files.push_back(path);
        else
          out.skipped.push_back({path, "an Nsight Systems report, not an SQLite database: export it with `nsys export "
                                       "--type sqlite` (or set ROCPD_NSYS_EXPORT=1)"});
        continue;
      }
      if (!json && !looks_like_trace_file(entry.path().filename().string())) continue;
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        out.skipped.push_back({path, fmt::format("cannot be read: {}", std::strerror(errno))});
        continue;
      }
      if (std::string why = pass_over_reason(path, st); !why.empty()) {
        out.skipped.push_back({path, std::move(why)});
        continue;
      }
      // A directory's other JSON (a config, a report) is not a member: only Chrome-trace JSON is.
      if (json && !is_sqlite_file(path))
        if (JsonSniff sniff = sniff_json_trace_file(path); !sniff.trace) {
          out.skipped.push_back({path, "JSON that is not a PyTorch profiler (Chrome) trace: " + sniff.why});
          continue;
        }
      out.files.push_back(path);
    }
    // Listing ends at its first error (a directory that vanished or failed while being read).
    if (ec) out.skipped.push_back({dir, fmt::format("listing stopped: {}", ec.message())});
  }
}

// The directory part of a glob before its first wildcard ("out/*/*.db" -> "out").
std::string glob_base(const std::string& pattern) {
  const size_t wild = pattern.find_first_of("*?[");
  const size_t slash = pattern.rfind('/', wild);
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : pattern.substr(0, slash);
}

}  // namespace

std::string skipped_list(const std::vector<SkippedFile>& skipped) {
  constexpr size_t kShown = 5;
  std::string out;
  for (size_t i = 0; i < skipped.size() && i < kShown; ++i)
    out += fmt::format("{}'{}' ({})", i ? ", " : "", skipped[i].path, skipped[i].reason);
  if (skipped.size() > kShown) out += fmt::format(" and {} more (SELECT * FROM rocpd_skipped)", skipped.size() - kShown);
  return out;
}

PatternFiles expand_pattern(const std::string& pattern, const std::function<void()>& check) {
  if (pattern.empty()) throw Error("rocpd_open: empty path");
  PatternFiles out;
  std::error_code ec;
  // A path that exists is a path: a file may well be named `br[a].rpd`.
  const auto link = fs::symlink_status(pattern, ec);
  const bool exists = !ec && fs::exists(link);
  const bool wild = pattern.find_first_of("*?[") != std::string::npos;
  // A path under a directory that cannot be searched says so, not "no such file".
  if (ec && !wild && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    throw Error(fmt::format("rocpd_open: '{}': {}", pattern, ec.message()), SQLITE_CANTOPEN);
  if (!exists && wild) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
    std::unique_ptr<glob_t, void (*)(glob_t*)> guard(&g, globfree);
    if (rc == GLOB_NOMATCH) throw Error(fmt::format("rocpd_open: no file matches '{}'", pattern));
    if (rc != 0) throw Error(fmt::format("rocpd_open: cannot expand '{}'", pattern));
    out.base = glob_base(pattern);
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string path = g.gl_pathv[i];
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        out.skipped.push_back({path, fmt::format("cannot be read: {}", std::strerror(errno))});
      } else if (S_ISDIR(st.st_mode)) {
        walk_directory(path, out, check);
      } else if (std::string why = pass_over_reason(path, st); !why.empty()) {
        out.skipped.push_back({path, std::move(why)});
      } else {
        out.files.push_back(path);
      }
    }
    if (out.files.empty())
      throw Error(fmt::format("rocpd_open: no regular file matches '{}'{}", pattern,
                              out.skipped.empty() ? "" : "; passed over: " + skipped_list(out.skipped)));
  } else {
    const auto st = fs::status(pattern, ec);
    if (!exists) throw Error(fmt::format("rocpd_open: '{}': no such file or directory", pattern));
    if (!ec && fs::is_directory(st)) {
      out.base = pattern;
      walk_directory(pattern, out, check);
      if (out.files.empty())
        throw Error(fmt::format("rocpd_open: directory '{}' holds no trace files ({}), in it or its subdirectories{}",
                                pattern, kTraceFileKinds,
                                out.skipped.empty() ? "" : "; passed over: " + skipped_list(out.skipped)));
    } else {
      check_regular_file(pattern, fmt::format("rocpd_open: '{}'", pattern));
      out.files.push_back(pattern);
      out.single = true;
    }
  }
  std::sort(out.files.begin(), out.files.end());
  out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
  return out;
}

void check_regular_file(const std::string& path, const std::string& who) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(fmt::format("{}: {}", who, std::strerror(errno)), SQLITE_CANTOPEN);
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: {}, not a regular file", who, file_kind(st.st_mode)), SQLITE_CANTOPEN);
}

SqliteHeader check_sqlite_file(const std::string& path, const std::string& who) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) unreadable(who, SQLITE_CANTOPEN);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) unreadable(who, SQLITE_CANTOPEN);
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: {}, not a regular file", who, file_kind(st.st_mode)), SQLITE_CANTOPEN);
  // Only the header is read here: without this, a file not yet cached is read ahead by 128 kB or
  // more (10,000 members opened cold: 17 s instead of 10.5-13 s).
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_RANDOM);
  std::array<unsigned char, 100> h{};
  ssize_t got = 0;
  while (got < static_cast<ssize_t>(h.size())) {
    const ssize_t n = ::read(f.fd, h.data() + got, h.size() - static_cast<size_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) unreadable(who, SQLITE_IOERR);
    if (n == 0) break;
    got += n;
  }
  static const char kMagic[] = "SQLite format 3";
  if (got == 0) throw Error(fmt::format("{}: an empty file (0 bytes), not an SQLite database", who), SQLITE_NOTADB);
  if (got < 16 || std::memcmp(h.data(), kMagic, 16) != 0) {
    static const char kReport[] = "NVIDIA Tegra Profiler Report";  // every .nsys-rep / .qdrep
    if (got >= static_cast<ssize_t>(sizeof kReport - 1) && std::memcmp(h.data(), kReport, sizeof kReport - 1) == 0)
      throw Error(nsys_report_message(path, who), SQLITE_NOTADB);
    throw Error(fmt::format("{}: not an SQLite database", who), SQLITE_NOTADB);
  }
  if (got < 100) throw Error(fmt::format("{}: truncated ({} bytes, shorter than the SQLite header)", who, got), SQLITE_CORRUPT);
  uint32_t page_size = big_endian(&h[16], 2);
  if (page_size == 1) page_size = 65536;
  const uint32_t pages = big_endian(&h[28], 4);
  // The in-header page count is valid only while the change counter matches "version-valid-for".
  const bool count_valid = pages != 0 && big_endian(&h[24], 4) == big_endian(&h[92], 4);
  const auto size = static_cast<uint64_t>(st.st_size);
  if (count_valid && size < uint64_t{pages} * page_size)
    throw Error(fmt::format("{}: truncated ({} bytes, its header records {} pages of {} bytes)", who, size, pages,
                            page_size),
                SQLITE_CORRUPT);
  SqliteHeader header;
  header.wal = h[18] == 2 || h[19] == 2;
  return header;
}

std::string hot_journal_reason(const std::string& path) {
  const std::string journal = path + "-journal";
  Fd f{::open(journal.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) return {};
  // A rollback journal whose header still holds the magic number has changes not yet rolled back
  // (a zeroed or truncated header is a finished transaction's leftover).
  static const unsigned char kMagic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  unsigned char h[8] = {};
  if (::read(f.fd, h, sizeof h) != static_cast<ssize_t>(sizeof h) || std::memcmp(h, kMagic, sizeof h) != 0) return {};
  return fmt::format("; '{}' is a hot rollback journal (a writer stopped in the middle of a transaction, or is "
                     "still writing): SQLite must roll it back into the file before anyone reads it, which a "
                     "read-only reader cannot do. Let the writer finish, or open the file once read-write "
                     "(sqlite3 '{}' 'PRAGMA quick_check'), which rolls it back",
                     journal, path);
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

std::string CanonicalPaths::of(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  struct stat st {};
  if (name.empty() || name == "." || name == ".." || ::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode))
    return canonical_path(path);
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  auto it = dirs_.find(dir);
  if (it == dirs_.end()) {
    std::error_code ec;
    const auto resolved = fs::canonical(dir, ec);
    if (ec) return canonical_path(path);
    it = dirs_.emplace(dir, resolved.string()).first;
  }
  return it->second == "/" ? "/" + name : it->second + "/" + name;
}

int64_t file_size_or_missing(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_size);
}

canonical::FileStamp file_stamp(const std::string& path) {
  struct stat st {};
  canonical::FileStamp stamp;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return stamp;
  stamp.size = static_cast<int64_t>(st.st_size);
  stamp.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  stamp.inode = static_cast<uint64_t>(st.st_ino);
  stamp.device = static_cast<uint64_t>(st.st_dev);
  const std::string wal = path + "-wal";
  if (::stat(wal.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    stamp.wal_size = static_cast<int64_t>(st.st_size);
    stamp.wal_mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    stamp.wal_inode = static_cast<uint64_t>(st.st_ino);
    // A header torn by a writer's update only reads as one more change.
    const std::string shm = path + "-shm";
    const int fd = ::open(shm.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      struct stat sst {};
      if (::fstat(fd, &sst) == 0 && S_ISREG(sst.st_mode))
        if (::pread(fd, stamp.wal_index.data(), stamp.wal_index.size(), 0) < 0) stamp.wal_index.fill(0);
      ::close(fd);
    }
  }
  return stamp;
}

std::string member_name(const std::string& path, const std::string& base) {
  const std::string stem = alias_stem(path);
  if (base.empty()) return stem;
  const fs::path parent = fs::path(path).parent_path().lexically_relative(base);
  if (parent.empty() || parent == ".") return stem;
  for (const auto& part : parent)
    if (part == "..") return stem;  // not under base (cannot happen for what expand_pattern lists)
  return (parent / stem).string();
}

}  // namespace rocpd::members
