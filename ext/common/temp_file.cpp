#include "common/temp_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <system_error>
#include <utility>

namespace rocpd {

namespace {
constexpr int kRandomChars = 8;

std::string random_chars() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[kRandomChars] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    // No entropy source: time and address make a name that O_EXCL still checks.
    unsigned long long seed = static_cast<unsigned long long>(::getpid()) * 0x9E3779B97F4A7C15ull ^
                              reinterpret_cast<unsigned long long>(&bytes) ^ static_cast<unsigned long long>(clock());
    for (auto& b : bytes) b = static_cast<unsigned char>(seed >>= 7);
  }
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % (sizeof kAlphabet - 1)];
  return out;
}
}  // namespace

TempFile TempFile::create(const std::string& dir, std::string_view prefix, std::string_view suffix, mode_t mode) {
  const std::string base = dir.empty() ? std::string() : (dir.back() == '/' ? dir : dir + "/");
  for (int attempt = 0;; ++attempt) {
    TempFile t;
    t.path_ = base;
    t.path_.append(prefix);
    t.path_ += random_chars();
    t.path_.append(suffix);
    t.fd_ = ::open(t.path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (t.fd_ >= 0) return t;
    const int err = errno;
    t.path_.clear();  // not ours
    if (err != EEXIST || attempt >= 100) throw std::system_error(err, std::generic_category());
  }
}

TempFile& TempFile::operator=(TempFile&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::exchange(o.path_, {});
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

int TempFile::close_fd() {
  const int rc = fd_ >= 0 ? ::close(fd_) : 0;
  fd_ = -1;
  return rc;
}

void TempFile::remove() {
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
  close_fd();
}

}  // namespace rocpd
