#include "members/conversion_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "common/temp_file.h"
#include "members/member_files.h"

namespace rocpd::federation {

namespace {

constexpr std::string_view kPinPrefix = "rocpd-pin-", kLockSuffix = ".lock", kDbSuffix = ".db";
// Converters' own suffixes of the files they write (Converter::suffix), swept like the pins.
constexpr std::string_view kOtherSuffixes[] = {".sqlite"};
constexpr const char* kKinds[] = {"kineto-", "nsys-"};
constexpr uint64_t kDefaultLimit = uint64_t{4} << 30;
constexpr size_t kHead = 64 << 10, kTail = 4 << 10;

// Notices (sqlite3_log, for hosts that log) of the cache's own trouble: once per process each.
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

// "<kind>-v<version>-<path hash>-" and the rest of the entry name, or "" when the file cannot be read.
struct EntryName {
  std::string source_prefix, name;
};
EntryName entry_name(const std::string& source, const Converter& converter) {
  const int fd = ::open(source.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  std::string head(kHead, '\0'), tail(kTail, '\0');
  ssize_t got_head = -1, got_tail = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    got_head = ::pread(fd, head.data(), head.size(), 0);
    if (st.st_size > static_cast<off_t>(kHead))
      got_tail = ::pread(fd, tail.data(), tail.size(), std::max<off_t>(st.st_size - static_cast<off_t>(kTail), 0));
  }
  ::close(fd);
  if (got_head < 0 || got_tail < 0) return {};
  head.resize(static_cast<size_t>(got_head));
  tail.resize(static_cast<size_t>(got_tail));
  const int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  const auto crc = [](const std::string& s) {
    return ::crc32(::crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()));
  };
  EntryName e;
  e.source_prefix = fmt::format("{}-v{}-{}-", converter.kind, converter.version, hash64(canonical_path(source)));
  // The converter's identity is hashed with the file's: a conversion by another nsys replaces the
  // entry as a changed file's would.
  e.name = e.source_prefix +
           hash64(fmt::format("{}\n{}\n{}\n{:08x}\n{:08x}{}", st.st_size, mtime_ns, st.st_ino, crc(head), crc(tail),
                              converter.identity.empty() ? std::string() : "\n" + converter.identity)) +
           std::string(kDbSuffix);
  return e;
}

bool is_entry_name(std::string_view name) {
  if (name.size() < kDbSuffix.size() || name.substr(name.size() - kDbSuffix.size()) != kDbSuffix) return false;
  for (const char* kind : kKinds)
    if (name.substr(0, std::strlen(kind)) == kind) return true;
  return false;
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
  struct stat st {};
  if (::lstat(pin.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
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

CacheOutcome cached_conversion(const std::string& source, const Converter& converter,
                               const std::function<void(const std::string& db_path)>& convert) {
  CacheOutcome out;
  const std::string dir = cache_directory(&out.why);
  if (dir.empty()) return out;
  const uint64_t limit = cache_size_limit();
  const EntryName name = entry_name(source, converter);
  if (name.name.empty()) {
    out.why = "the file cannot be read for its key";
    return out;
  }
  const std::string entry = dir + "/" + name.name;
  std::shared_ptr<const ConversionLock> lock;
  try {
    lock = pin_lock(dir);
  } catch (const std::system_error& e) {
    out.why = fmt::format("cannot create a lock file in '{}': {}", dir, std::strerror(e.code().value()));
    notice(out.why);
    return out;
  }
  if (std::string pin = pin_entry(dir, entry, *lock); !pin.empty()) {
    ::utimensat(AT_FDCWD, entry.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);  // used now (LRU)
    out.trace = std::make_shared<ConvertedTrace>(std::move(pin), std::move(lock));
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
  convert(converted->path());  // its errors are the conversion's; the pin goes with `converted`
  // Published complete, or not at all; a file another process stored first is as good.
  if (!sync_file(converted->path()) || (::link(converted->path().c_str(), entry.c_str()) != 0 && errno != EEXIST)) {
    out.why = fmt::format("cannot store '{}': {}", entry, std::strerror(errno));  // read from its pin all the same
    notice(out.why);
  } else {
    out.stored = true;
    // Older conversions of the same file (changed since) are of no more use.
    for (const auto& e : list_entries(dir))
      if (e.name != name.name && e.name.compare(0, name.source_prefix.size(), name.source_prefix) == 0)
        ::unlink((dir + "/" + e.name).c_str());
    evict(dir, limit, name.name);
  }
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
  std::string why;
  out.directory = cache_directory(&why);
  if (out.directory.empty()) return out;
  for (const auto& e : list_entries(out.directory))
    if (::unlink((out.directory + "/" + e.name).c_str()) == 0) {
      ++out.entries;
      out.bytes += e.bytes;
    }
  remove_stale_grouped_temps(out.directory, kPinPrefix, kLockSuffix, kDbSuffix);
  for (std::string_view suffix : kOtherSuffixes) remove_stale_grouped_temps(out.directory, kPinPrefix, kLockSuffix, suffix);
  return out;
}

}  // namespace rocpd::federation
