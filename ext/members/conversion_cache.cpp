#include "members/conversion_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "common/temp_file.h"
#include "compression/xxhash64.h"
#include "members/fault_injection.h"
#include "members/member_files.h"

namespace rocpd::members {

namespace {

constexpr std::string_view kPinPrefix = "rocpd-pin-", kLockSuffix = ".lock", kDbSuffix = ".db";
// Converters' own suffixes of the files they write (Converter::suffix), swept like the pins.
constexpr std::string_view kOtherSuffixes[] = {".sqlite"};
constexpr const char* kKinds[] = {"kineto-", "nsys-"};
constexpr uint64_t kDefaultLimit = uint64_t{4} << 30;
constexpr size_t kHead = 64 << 10, kTail = 4 << 10;
constexpr size_t kHashDigits = 16;

// Notices (sqlite3_log, for hosts that log; rocpd-ext prints them as warnings) of the cache's own
// trouble: once per process each.
void notice(const std::string& text) {
  static std::mutex mutex;
  static auto* said = new std::set<std::string>();  // never destroyed: conversions may run at exit
  std::lock_guard lock(mutex);
  if (said->insert(text).second) sqlite3_log(SQLITE_WARNING, "rocpd conversion cache: %s", text.c_str());
}

// 64 bits of a text: its CRC-32 and Adler-32 (zlib), enough to tell entries apart; the key it
// hashes holds what changes with the file.
std::string hash64(std::string_view text) {
  const auto* p = reinterpret_cast<const Bytef*>(text.data());
  const auto n = static_cast<uInt>(text.size());
  const uint64_t h = (uint64_t{static_cast<uint32_t>(::crc32(::crc32(0, nullptr, 0), p, n))} << 32) |
                     static_cast<uint32_t>(::adler32(::adler32(0, nullptr, 0), p, n));
  return fmt::format("{:016x}", h);
}

// What an entry converts: the source file as it was read for its key.
struct SourceStamp {
  std::string path;  // canonical
  int64_t size = 0, mtime_ns = 0;
  uint64_t inode = 0;
  uint32_t head_crc = 0, tail_crc = 0;  // of its first 64 KiB and last 4 KiB
};

std::optional<SourceStamp> source_stamp(const std::string& source) {
  const int fd = ::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string head(kHead, '\0'), tail(kTail, '\0');
  ssize_t got_head = -1, got_tail = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    got_head = ::pread(fd, head.data(), head.size(), 0);
    if (st.st_size > static_cast<off_t>(kHead))
      got_tail = ::pread(fd, tail.data(), tail.size(), std::max<off_t>(st.st_size - static_cast<off_t>(kTail), 0));
  }
  ::close(fd);
  if (got_head < 0 || got_tail < 0) return std::nullopt;
  head.resize(static_cast<size_t>(got_head));
  tail.resize(static_cast<size_t>(got_tail));
  const auto crc = [](const std::string& s) {
    return static_cast<uint32_t>(
        ::crc32(::crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
  };
  SourceStamp out;
  out.path = canonical_path(source);
  out.size = static_cast<int64_t>(st.st_size);
  out.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  out.inode = static_cast<uint64_t>(st.st_ino);
  out.head_crc = crc(head);
  out.tail_crc = crc(tail);
  return out;
}

// "<kind>-v<version>-<path hash>-": the names of every entry of the source, whatever its state.
std::string source_prefix(const SourceStamp& s, const Converter& c) {
  return fmt::format("{}-v{}-{}-", c.kind, c.version, hash64(s.path));
}

// source_prefix and "<key hash>-": the names of the entries of the source as it is now. The
// converter's identity is hashed with the file's: a conversion by another nsys replaces the entry as
// a changed file's would.
std::string key_prefix(const SourceStamp& s, const Converter& c) {
  return source_prefix(s, c) +
         hash64(fmt::format("{}\n{}\n{}\n{:08x}\n{:08x}{}", s.size, s.mtime_ns, s.inode, s.head_crc, s.tail_crc,
                            c.identity.empty() ? std::string() : "\n" + c.identity)) +
         "-";
}

// The hash of a file's bytes (16 hex digits: XXH64 of the XXH64s of its 1 MiB pieces, seeded with
// its size), read without following a link; "" when it cannot be read.
std::string content_hash(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return {};
  std::vector<char> buffer(size_t{1} << 20);
  std::vector<uint64_t> pieces;
  uint64_t total = 0;
  for (;;) {
    size_t filled = 0;
    while (filled < buffer.size()) {
      const ssize_t n = ::read(fd, buffer.data() + filled, buffer.size() - filled);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        return {};
      }
      if (n == 0) break;
      filled += static_cast<size_t>(n);
    }
    if (filled == 0) break;
    pieces.push_back(zstd::xxhash64(buffer.data(), filled));
    total += filled;
    if (filled < buffer.size()) break;
  }
  ::close(fd);
  return fmt::format("{:016x}", zstd::xxhash64(pieces.data(), pieces.size() * sizeof(uint64_t), total));
}

bool is_hex(std::string_view s) { return s.find_first_not_of("0123456789abcdef") == std::string_view::npos; }

bool is_entry_name(std::string_view name) {
  if (name.size() < kDbSuffix.size() || name.substr(name.size() - kDbSuffix.size()) != kDbSuffix) return false;
  for (const char* kind : kKinds)
    if (name.substr(0, std::strlen(kind)) == kind) return true;
  return false;
}

// Names in `dir` of entries that begin with `prefix` and end with their bytes' hash.
std::vector<std::string> names_with_prefix(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n = e->d_name;
    if (n.size() == prefix.size() + kHashDigits + kDbSuffix.size() && n.substr(0, prefix.size()) == prefix &&
        n.substr(n.size() - kDbSuffix.size()) == kDbSuffix && is_hex(n.substr(prefix.size(), kHashDigits)))
      out.emplace_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Why the name `path` is no entry this process may read, replace or remove ("" when it is one: a
// regular file of this user). Never follows a link.
std::string not_ours(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return "is a symbolic link (never read or written through)";
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != ::geteuid()) return fmt::format("belongs to another user (uid {})", st.st_uid);
  return {};
}

// The entries of `dir`: regular files of this user named as entries.
struct Entry {
  std::string name;
  int64_t bytes = 0;
  int64_t used_ns = 0;  // modification time: set again at every use
};
std::vector<Entry> list_entries(const std::string& dir) {
  std::vector<Entry> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    if (!is_entry_name(e->d_name)) continue;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid())
      continue;
    out.push_back({e->d_name, static_cast<int64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
  }
  ::closedir(d);
  return out;
}

// Removes entries, least recently used first, until those left fit `limit`; `keep` stays.
void evict(const std::string& dir, uint64_t limit, const std::string& keep) {
  std::vector<Entry> entries = list_entries(dir);
  uint64_t total = 0;
  for (const auto& e : entries) total += static_cast<uint64_t>(e.bytes);
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used_ns < b.used_ns; });
  for (const auto& e : entries) {
    if (total <= limit) break;
    if (e.name == keep) continue;
    if (::unlink((dir + "/" + e.name).c_str()) == 0 || errno == ENOENT) total -= static_cast<uint64_t>(e.bytes);
  }
}

// The process's lock file of its pins in `dir`; pins of processes gone are removed once per process.
std::shared_ptr<const ConversionLock> pin_lock(const std::string& dir) {
  static std::mutex mutex;
  static auto* swept = new std::set<std::string>();  // never destroyed: conversions may run at exit
  {
    std::lock_guard lock(mutex);
    if (swept->insert(dir).second)
      for (std::string_view suffix : kOtherSuffixes) remove_stale_grouped_temps(dir, kPinPrefix, kLockSuffix, suffix);
  }
  return process_lock(dir, kPinPrefix, kLockSuffix, kDbSuffix);
}

// "rocpd-pin-<token of the process's lock>-": the names of this process's pins, which the lock guards.
std::string pin_prefix(const ConversionLock& lock) {
  return std::string(kPinPrefix) + temp_token(lock.path(), kPinPrefix, kLockSuffix) + "-";
}

// A new pin of entry `entry` for this process, or "" when the entry is not there (or not ours).
std::string pin_entry(const std::string& dir, const std::string& entry, const ConversionLock& lock) {
  std::string pin;
  try {
    pin = link_unlocked_file(entry, dir, pin_prefix(lock), kDbSuffix);
  } catch (const std::system_error&) {
    return {};
  }
  if (!not_ours(pin).empty()) {
    ::unlink(pin.c_str());
    return {};
  }
  return pin;
}

// fsync of a file by its name: an entry is on disk before its name appears.
bool sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// The record an entry holds of what it converts.
constexpr const char* kRecordTable = "rocpd_ext_cache_entry";
constexpr const char* kRecordColumns = "source, size, mtime_ns, inode, head_crc32, tail_crc32, converter, version, identity";

void bind_text(sqlite3_stmt* st, int i, std::string_view v) {
  sqlite3_bind_text(st, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

// Writes into the database `db_path` the record of what it converts; "" or why it could not.
std::string write_record(const std::string& db_path, const SourceStamp& s, const Converter& c) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(db_path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) return raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
  try {
    exec(db.get(), "PRAGMA synchronous = OFF");  // (the file is synced before it is published)
    exec(db.get(), fmt::format("CREATE TABLE {}(source TEXT, size INTEGER, mtime_ns INTEGER, inode INTEGER, "
                               "head_crc32 INTEGER, tail_crc32 INTEGER, converter TEXT, version INTEGER, identity TEXT)",
                               kRecordTable)
                       .c_str());
    Stmt ins = prepare(db.get(), fmt::format("INSERT INTO {}({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                                             kRecordTable, kRecordColumns));
    bind_text(ins.get(), 1, s.path);
    sqlite3_bind_int64(ins.get(), 2, s.size);
    sqlite3_bind_int64(ins.get(), 3, s.mtime_ns);
    sqlite3_bind_int64(ins.get(), 4, static_cast<int64_t>(s.inode));
    sqlite3_bind_int64(ins.get(), 5, s.head_crc);
    sqlite3_bind_int64(ins.get(), 6, s.tail_crc);
    bind_text(ins.get(), 7, c.kind);
    sqlite3_bind_int64(ins.get(), 8, c.version);
    bind_text(ins.get(), 9, c.identity);
    step(ins.get());
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// Why the entry read at `pin`, named with the hash `hash`, is not the conversion of `s` by `c` (""
// when it is): its bytes must hash to its name (else it is damaged: changed, truncated, emptied)
// and its record must describe the source as it is now (else it converts another file).
std::string entry_fault(const std::string& pin, std::string_view hash, const SourceStamp& s, const Converter& c) {
  const std::string got = content_hash(pin);
  if (got.empty()) return fmt::format("cannot be read: {}", std::strerror(errno));
  if (got != hash) return "is damaged (its bytes do not hash to its name)";
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(pin.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) return fmt::format("cannot be opened: {}", raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
  sqlite3_stmt* st_raw = nullptr;
  if (sqlite3_prepare_v2(db.get(), fmt::format("SELECT {} FROM {}", kRecordColumns, kRecordTable).c_str(), -1,
                         &st_raw, nullptr) != SQLITE_OK)
    return fmt::format("holds no record of what it converts ({})", sqlite3_errmsg(db.get()));
  Stmt st(st_raw);
  if (sqlite3_step(st.get()) != SQLITE_ROW) return "holds no record of what it converts";
  auto text = [&](int i) { return std::string(column_text(st.get(), i)); };
  auto integer = [&](int i) { return sqlite3_column_int64(st.get(), i); };
  if (text(0) != s.path || integer(1) != s.size || integer(2) != s.mtime_ns ||
      integer(3) != static_cast<int64_t>(s.inode) || integer(4) != s.head_crc || integer(5) != s.tail_crc ||
      text(6) != c.kind || integer(7) != c.version || text(8) != c.identity)
    return fmt::format("converts '{}' of {} bytes, modified at {} ns (by {} v{}), not this file ('{}' of {} bytes, "
                       "modified at {} ns)",
                       text(0), integer(1), integer(2), text(6), integer(7), s.path, s.size, s.mtime_ns);
  return {};
}

// Removes the name `entry` if it still names the file `pin` is a link of.
void remove_if_same(const std::string& entry, const std::string& pin) {
  struct stat a {}, b {};
  if (::lstat(entry.c_str(), &a) == 0 && ::lstat(pin.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
      a.st_ino == b.st_ino)
    ::unlink(entry.c_str());
}

// Whether an error of the conversion into the cache directory is the directory's (no space left, a
// write refused): then the conversion goes on without the cache.
bool cache_write_failure(const Error& e, const std::string& dir) {
  const int primary = e.code() & 0xFF;
  if (primary == SQLITE_FULL || primary == SQLITE_IOERR) return true;
  struct statvfs fs {};
  return ::statvfs(dir.c_str(), &fs) == 0 && uint64_t{fs.f_bavail} * fs.f_frsize < (uint64_t{1} << 20);
}

}  // namespace

std::string cache_directory(std::string* why) {
  if (const char* v = std::getenv("ROCPD_CACHE"); v && std::strcmp(v, "0") == 0) {
    *why = "ROCPD_CACHE=0";
    return {};
  }
  std::string base;
  // The XDG base directory specification: a relative $XDG_CACHE_HOME is invalid and ignored.
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/') base = x;
  else if (const char* h = std::getenv("HOME"); h && h[0] == '/') base = std::string(h) + "/.cache";
  if (base.empty()) {
    *why = "neither $XDG_CACHE_HOME nor $HOME is an absolute path";
    return {};
  }
  ::mkdir(base.c_str(), 0700);  // the specification's mode for a base directory it creates
  const std::string dir = base + "/rocpd_ext";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *why = fmt::format("cannot create '{}': {}", dir, std::strerror(errno));
    notice(*why);
    return {};
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    *why = fmt::format("'{}': {}", dir, std::strerror(errno));
    return {};
  }
  if (S_ISLNK(st.st_mode)) *why = fmt::format("'{}' is a symbolic link (refused: the cache is never written through one)", dir);
  else if (!S_ISDIR(st.st_mode)) *why = fmt::format("'{}' is not a directory", dir);
  else if (st.st_uid != ::geteuid()) *why = fmt::format("'{}' belongs to another user (uid {})", dir, st.st_uid);
  else if (st.st_mode & (S_IWGRP | S_IWOTH)) *why = fmt::format("'{}' is writable by other users (mode {:04o})", dir, st.st_mode & 07777);
  else if (::access(dir.c_str(), W_OK | X_OK) != 0) *why = fmt::format("'{}': {}", dir, std::strerror(errno));
  else return dir;
  notice(*why);
  return {};
}

uint64_t cache_size_limit() {
  const char* v = std::getenv("ROCPD_CACHE_SIZE");
  if (!v || !*v) return kDefaultLimit;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  int shift = 0;
  if (end && *end) {
    switch (*end) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      default: shift = -1;
    }
    if (shift > 0 && end[1] != '\0' && !(std::strchr("bB", end[1]) && end[2] == '\0')) shift = -1;
  }
  if (end == v || errno || shift < 0 || *v == '-' || (shift && n > (~0ull >> shift)))
    throw Error(fmt::format("ROCPD_CACHE_SIZE='{}': not a size (bytes, or a number with K, M, G or T)", v));
  return static_cast<uint64_t>(n) << shift;
}

namespace {

// The first stored conversion of the file as it is now that checks out (pinned, so that eviction
// leaves it alone while read), or null; entries that do not check out are removed.
std::shared_ptr<ConvertedTrace> read_stored(const std::string& dir, const std::string& key, const SourceStamp& stamp,
                                            const Converter& converter,
                                            const std::shared_ptr<const ConversionLock>& lock) {
  for (const std::string& name : names_with_prefix(dir, key)) {
    const std::string entry = dir + "/" + name;
    if (const std::string why = not_ours(entry); !why.empty()) {
      notice(fmt::format("'{}' {}: not used", entry, why));
      continue;
    }
    std::string pin = pin_entry(dir, entry, *lock);
    if (pin.empty()) continue;  // gone meanwhile
    const std::string fault = entry_fault(pin, std::string_view(name).substr(key.size(), kHashDigits), stamp, converter);
    if (fault.empty()) {
      ::utimensat(AT_FDCWD, entry.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);  // used now (LRU)
      return std::make_shared<ConvertedTrace>(std::move(pin), lock);
    }
    notice(fmt::format("'{}' {}: converted again", entry, fault));
    remove_if_same(entry, pin);
    ::unlink(pin.c_str());
  }
  return nullptr;
}

// Publishes `converted` (hashed `hash`) as `entry`, or says why not. Another process's conversion
// of the same bytes already there is as good (conversions are deterministic).
std::string store_entry(const std::string& converted, const std::string& entry, const std::string& hash,
                        const std::string& dir, const ConversionLock& lock) {
  if (::link(converted.c_str(), entry.c_str()) != 0) {
    if (errno != EEXIST) return fmt::format("cannot store '{}': {}", entry, std::strerror(errno));
    if (const std::string why = not_ours(entry); !why.empty())
      return fmt::format("'{}' {}: the conversion is not stored there", entry, why);
    // Another process's conversion of the same bytes (conversions are deterministic), or a file
    // that only has the name: replaced (a rename never follows a link and publishes whole).
    if (content_hash(entry) != hash) {
      std::string staged;
      try {
        staged = link_unlocked_file(converted, dir, pin_prefix(lock), kDbSuffix);
      } catch (const std::system_error& e) {
        return fmt::format("cannot store '{}': {}", entry, std::strerror(e.code().value()));
      }
      if (::rename(staged.c_str(), entry.c_str()) != 0) {
        const int err = errno;
        ::unlink(staged.c_str());
        return fmt::format("cannot store '{}': {}", entry, std::strerror(err));
      }
    }
  }
  return {};
}

}  // namespace

CacheOutcome cached_conversion(const std::string& source, const Converter& converter,
                               const std::function<void(const std::string& db_path)>& convert) {
  CacheOutcome out;
  const std::string dir = cache_directory(&out.why);
  if (dir.empty()) return out;
  const uint64_t limit = cache_size_limit();
  const auto stamp = source_stamp(source);
  if (!stamp) {
    out.why = "the file cannot be read for its key";
    return out;
  }
  const std::string key = key_prefix(*stamp, converter);
  std::shared_ptr<const ConversionLock> lock;
  try {
    lock = pin_lock(dir);
  } catch (const std::system_error& e) {
    out.why = fmt::format("cannot create a lock file in '{}': {}", dir, std::strerror(e.code().value()));
    notice(out.why);
    return out;
  }
  if (auto stored = read_stored(dir, key, *stamp, converter, lock)) {
    out.trace = std::move(stored);
    out.hit = true;
    return out;
  }
  std::shared_ptr<ConvertedTrace> converted;
  try {
    converted = std::make_shared<ConvertedTrace>(create_unlocked_file(dir, pin_prefix(*lock), converter.suffix, 0600), lock);
  } catch (const std::system_error& e) {
    out.why = fmt::format("cannot create a file in '{}': {}", dir, std::strerror(e.code().value()));
    notice(out.why);
    return out;
  }
  try {
    convert(converted->path());  // its errors are the conversion's; the pin goes with `converted`
    if (fault_injected("cache_full")) throw Error(sqlite3_errstr(SQLITE_FULL), SQLITE_FULL);
  } catch (const Error& e) {
    if ((e.code() & 0xFF) == SQLITE_INTERRUPT || !cache_write_failure(e, dir)) throw;
    out.why = fmt::format("cannot write '{}': {}", converted->path(), sqlite3_errstr(e.code()));
    notice(out.why);
    return out;  // (converted into a temporary database by the caller)
  }
  // Recorded, hashed and published complete, or not at all; a file another process stored first is as good.
  auto keep_unstored = [&](std::string why) {
    out.why = std::move(why);
    notice(out.why);
    out.trace = std::move(converted);  // read from its pin all the same
    return out;
  };
  if (std::string why = write_record(converted->path(), *stamp, converter); !why.empty())
    return keep_unstored(fmt::format("cannot record what '{}' converts: {}", converted->path(), why));
  const std::string hash = content_hash(converted->path());
  if (hash.empty()) return keep_unstored(fmt::format("cannot read '{}': {}", converted->path(), std::strerror(errno)));
  const std::string name = key + hash + std::string(kDbSuffix);
  const std::string entry = dir + "/" + name;
  if (!sync_file(converted->path()))
    return keep_unstored(fmt::format("cannot store '{}': {}", entry, std::strerror(errno)));
  if (std::string why = store_entry(converted->path(), entry, hash, dir, *lock); !why.empty())
    return keep_unstored(std::move(why));
  out.stored = true;
  // Older conversions of the same file (changed since) are of no more use.
  const std::string older = source_prefix(*stamp, converter);
  for (const auto& e : list_entries(dir))
    if (e.name != name && e.name.compare(0, older.size(), older) == 0) ::unlink((dir + "/" + e.name).c_str());
  evict(dir, limit, name);
  out.trace = std::move(converted);
  return out;
}

std::string conversion_label(const CacheOutcome& outcome) {
  if (outcome.trace && outcome.hit) return "cached";
  if (outcome.trace && outcome.stored) return "converted, cached";
  return "converted, not cached: " + outcome.why;
}

CacheCleared clear_cache() {
  CacheCleared out;
  out.directory = cache_directory(&out.why);
  if (out.directory.empty()) {
    if (out.why == "ROCPD_CACHE=0") out.why = "the cache is off (ROCPD_CACHE=0): nothing was removed";
    return out;
  }
  std::vector<std::string> names;
  if (DIR* d = ::opendir(out.directory.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (is_entry_name(e->d_name)) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = out.directory + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;  // gone meanwhile
    // A link at an entry's name is removed (the link, never what it names); files of another user
    // and directories are left, and said.
    if (!S_ISLNK(st.st_mode)) {
      if (const std::string why = not_ours(path); !why.empty()) {
        out.not_removed.push_back({name, why});
        continue;
      }
    }
    if (::unlink(path.c_str()) != 0) {
      if (errno != ENOENT) out.not_removed.push_back({name, std::strerror(errno)});
      continue;
    }
    ++out.entries;
    if (S_ISREG(st.st_mode)) out.bytes += static_cast<int64_t>(st.st_size);
  }
  remove_stale_grouped_temps(out.directory, kPinPrefix, kLockSuffix, kDbSuffix);
  for (std::string_view suffix : kOtherSuffixes) remove_stale_grouped_temps(out.directory, kPinPrefix, kLockSuffix, suffix);
  return out;
}

}  // namespace rocpd::members
