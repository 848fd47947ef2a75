#include "common/temp_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

namespace rocpd {

namespace {
constexpr size_t kRandomChars = 8;

std::string random_chars() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[kRandomChars] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    // No entropy source: time and address make a name that O_EXCL still checks.
    auto seed = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<uintptr_t>(&bytes) ^
                static_cast<uint64_t>(std::clock()) ^ static_cast<uint64_t>(std::time(nullptr));
    for (auto& b : bytes) b = static_cast<unsigned char>(seed >>= 5);
  }
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % (sizeof kAlphabet - 1)];
  return out;
}

bool is_random_part(std::string_view s) {
  if (s.size() != kRandomChars) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

std::string in_dir(const std::string& dir, std::string_view name) {
  std::string path = dir.empty() ? std::string() : (dir.back() == '/' ? dir : dir + "/");
  path.append(name);
  return path;
}

// The files this process holds locked: a sweep in the same process passes them over without
// opening them (closing a descriptor of a file drops the process's POSIX locks on it, which
// SQLite may hold on that file).
std::mutex live_mutex;
std::set<std::pair<dev_t, ino_t>>& live_files() {
  static auto* set = new std::set<std::pair<dev_t, ino_t>>();  // never destroyed: used at exit
  return *set;
}

// Creates `path` with O_EXCL, locks it and checks the name still leads to it (a sweep may have
// taken the unlocked file between the two): -1 with errno, or -2 when a sweep got there first.
int create_locked(const std::string& path, mode_t mode, struct stat& st) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return -1;
  struct stat named {};
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::fstat(fd, &st) != 0 || ::lstat(path.c_str(), &named) != 0 ||
      named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
    ::close(fd);
    return -2;
  }
  return fd;
}

// Opens `name` in `dirfd` when it is a regular file of this user that nobody holds locked, and
// returns it locked (-1 otherwise). The caller removes the name while holding the lock.
int lock_if_abandoned(int dirfd, const char* name) {
  struct stat st {};
  if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid())
    return -1;
  {
    std::lock_guard lock(live_mutex);
    if (live_files().count({st.st_dev, st.st_ino})) return -1;
  }
  const int fd = ::openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino ||
      ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::vector<std::string> names_in(const std::string& dir, int& dirfd) {
  std::vector<std::string> names;
  dirfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) return names;
  const int listing = ::dup(dirfd);
  DIR* d = listing >= 0 ? ::fdopendir(listing) : nullptr;
  if (!d) {
    if (listing >= 0) ::close(listing);
    return names;
  }
  while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }
}  // namespace

TempFile TempFile::create(const std::string& dir, std::string_view prefix, std::string_view suffix, mode_t mode) {
  for (int attempt = 0;; ++attempt) {
    TempFile t;
    std::string name(prefix);
    name += random_chars();
    name.append(suffix);
    t.path_ = in_dir(dir, name);
    struct stat st {};
    t.fd_ = create_locked(t.path_, mode, st);
    if (t.fd_ >= 0) {
      t.dev_ = st.st_dev;
      t.ino_ = st.st_ino;
      std::lock_guard lock(live_mutex);
      live_files().insert({t.dev_, t.ino_});
      return t;
    }
    const int err = t.fd_ == -2 ? EEXIST : errno;
    if (t.fd_ == -2) ::unlink(t.path_.c_str());  // ours, unless a sweep already took it
    t.fd_ = -1;
    t.path_.clear();  // not ours
    if (err != EEXIST || attempt >= 100) throw std::system_error(err, std::generic_category());
  }
}

TempFile& TempFile::operator=(TempFile&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::exchange(o.path_, {});
    fd_ = std::exchange(o.fd_, -1);
    dev_ = o.dev_;
    ino_ = o.ino_;
  }
  return *this;
}

void TempFile::release() {
  path_.clear();
  remove();
}

void TempFile::remove() {
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
  if (fd_ >= 0) {
    {
      std::lock_guard lock(live_mutex);
      live_files().erase({dev_, ino_});
    }
    ::close(fd_);  // the lock goes last: the name was removed while it was held
    fd_ = -1;
  }
}

int remove_stale_temps(const std::string& dir, std::string_view prefix, std::string_view suffix) {
  int dirfd = -1;
  const std::vector<std::string> names = names_in(dir, dirfd);
  int removed = 0;
  for (const auto& name : names) {
    const std::string_view n = name;
    if (n.size() != prefix.size() + kRandomChars + suffix.size() || !starts_with(n, prefix) || !ends_with(n, suffix) ||
        !is_random_part(n.substr(prefix.size(), kRandomChars)))
      continue;
    const int fd = lock_if_abandoned(dirfd, name.c_str());
    if (fd < 0) continue;
    if (::unlinkat(dirfd, name.c_str(), 0) == 0) ++removed;
    ::close(fd);
  }
  if (dirfd >= 0) ::close(dirfd);
  return removed;
}

std::string create_unlocked_file(const std::string& dir, std::string_view prefix, std::string_view suffix,
                                 mode_t mode) {
  for (int attempt = 0;; ++attempt) {
    std::string name(prefix);
    name += random_chars();
    name.append(suffix);
    std::string path = in_dir(dir, name);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) {
      ::close(fd);
      return path;
    }
    if (errno != EEXIST || attempt >= 100) throw std::system_error(errno, std::generic_category());
  }
}

std::string link_unlocked_file(const std::string& target, const std::string& dir, std::string_view prefix,
                               std::string_view suffix) {
  for (int attempt = 0;; ++attempt) {
    std::string name(prefix);
    name += random_chars();
    name.append(suffix);
    std::string path = in_dir(dir, name);
    if (::link(target.c_str(), path.c_str()) == 0) return path;  // link() never follows `target` if it is a link
    if (errno != EEXIST || attempt >= 100) throw std::system_error(errno, std::generic_category());
  }
}

std::string temp_token(std::string_view file_name, std::string_view prefix, std::string_view suffix) {
  const auto slash = file_name.rfind('/');
  const std::string_view n = slash == std::string_view::npos ? file_name : file_name.substr(slash + 1);
  if (n.size() != prefix.size() + kRandomChars + suffix.size() || !starts_with(n, prefix) || !ends_with(n, suffix))
    return {};
  const std::string_view token = n.substr(prefix.size(), kRandomChars);
  return is_random_part(token) ? std::string(token) : std::string();
}

namespace {
// Whether the lock file `name` of `dirfd` is absent or held by nobody (one of this user, a
// regular file, that a try-lock gets). Anything else counts as held: never remove on a doubt.
bool lock_abandoned(int dirfd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) return false;
  {
    std::lock_guard lock(live_mutex);
    if (live_files().count({st.st_dev, st.st_ino})) return false;  // this process's own
  }
  const int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free;
}
}  // namespace

int remove_stale_grouped_temps(const std::string& dir, std::string_view prefix, std::string_view lock_suffix,
                               std::string_view suffix) {
  int dirfd = -1;
  const std::vector<std::string> names = names_in(dir, dirfd);
  if (dirfd < 0) return 0;
  int removed = 0;
  std::map<std::string, bool> abandoned;  // by token: one try-lock per process lock file
  for (const auto& name : names) {
    const std::string_view n = name;
    if (n.size() != prefix.size() + 2 * kRandomChars + 1 + suffix.size() || !starts_with(n, prefix) ||
        !ends_with(n, suffix) || n[prefix.size() + kRandomChars] != '-' ||
        !is_random_part(n.substr(prefix.size(), kRandomChars)) ||
        !is_random_part(n.substr(prefix.size() + kRandomChars + 1, kRandomChars)))
      continue;
    const std::string token(n.substr(prefix.size(), kRandomChars));
    auto it = abandoned.find(token);
    if (it == abandoned.end()) {
      std::string lock_name(prefix);
      lock_name += token;
      lock_name.append(lock_suffix);
      it = abandoned.emplace(token, lock_abandoned(dirfd, lock_name)).first;
    }
    struct stat st {};
    if (!it->second || ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid())
      continue;
    if (::unlinkat(dirfd, name.c_str(), 0) == 0) ++removed;
  }
  ::close(dirfd);
  return removed + remove_stale_temps(dir, prefix, lock_suffix);
}

}  // namespace rocpd
