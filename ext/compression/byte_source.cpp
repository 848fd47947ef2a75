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

PosixFileSource::PosixFileSource(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError(fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    throw IoError(fmt::format("cannot stat: {}", std::strerror(err)));
  }
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
      throw IoError(fmt::format("read failed at offset {}: {}", offset, std::strerror(errno)));
    }
    if (got == 0) throw FormatError(truncated_message(offset, n, size_));
    out += got;
    offset += static_cast<std::uint64_t>(got);
    n -= static_cast<std::size_t>(got);
  }
}

}  // namespace rocpd::zstd
