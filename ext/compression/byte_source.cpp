#include "compression/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace rocpd::zstd {

std::string truncated_message(std::uint64_t offset, std::size_t n, std::uint64_t file_size) {
  return fmt::format("truncated: needs bytes {}..{} but the file has {} bytes", offset, offset + n, file_size);
}

void MemorySource::read(std::uint64_t offset, void* dst, std::size_t n) const {
  if (offset > size_ || n > size_ - offset) throw FormatError(truncated_message(offset, n, size_));
  if (n) std::memcpy(dst, data_ + offset, n);
}

namespace {
const char* file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

[[noreturn]] void not_regular(mode_t mode) {
  throw IoError(fmt::format("not a regular file ({})", file_kind(mode)));
}
}  // namespace

void require_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) not_regular(st.st_mode);
}

PosixFileSource::PosixFileSource(const std::string& path) {
  // stat first: opening a FIFO blocks until a writer appears, and opening a device may act on it.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw IoError(fmt::format("cannot open: {}", std::strerror(err)), err);
  }
  if (!S_ISREG(st.st_mode)) not_regular(st.st_mode);
  // O_NONBLOCK in case the path was swapped for a FIFO since: the check below then refuses it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd_ < 0) {
    const int err = errno;
    throw IoError(fmt::format("cannot open: {}", std::strerror(err)), err);
  }
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    const mode_t mode = st.st_mode;
    ::close(fd_);
    fd_ = -1;
    if (S_ISREG(mode)) throw IoError(fmt::format("cannot stat: {}", std::strerror(err)), err);
    not_regular(mode);
  }
  const int fl = ::fcntl(fd_, F_GETFL);
  if (fl >= 0) ::fcntl(fd_, F_SETFL, fl & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(st.st_size);
}

PosixFileSource::~PosixFileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void PosixFileSource::read(std::uint64_t offset, void* dst, std::size_t n) const {
  if (offset > size_ || n > size_ - offset) throw FormatError(truncated_message(offset, n, size_));
  auto* out = static_cast<unsigned char*>(dst);
  while (n > 0) {
    ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      throw IoError(fmt::format("read failed at offset {}: {}", offset, std::strerror(err)), err);
    }
    if (got == 0) throw FormatError(truncated_message(offset, n, size_));
    out += got;
    offset += static_cast<std::uint64_t>(got);
    n -= static_cast<std::size_t>(got);
  }
}

}  // namespace rocpd::zstd
