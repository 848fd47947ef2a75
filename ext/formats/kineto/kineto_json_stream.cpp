#include "formats/kineto/kineto_json_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace rocpd::formats::kineto {

namespace {
constexpr size_t kOutBytes = 256 * 1024;
constexpr size_t kInBytes = 64 * 1024;
}  // namespace

JsonByteStream::JsonByteStream(const std::string& path, std::function<bool()> keep_going)
    : in_(kInBytes), out_(kOutBytes + 1), keep_going_(std::move(keep_going)) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot be read: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw std::runtime_error(fmt::format("cannot be read: {}", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw std::runtime_error("not a regular file");
  }
  file_size_ = static_cast<int64_t>(st.st_size);
  // The gzip magic decides; anything else is read as plain JSON text.
  unsigned char magic[2] = {0, 0};
  size_t got = 0;
  while (got < 2) {
    const ssize_t n = ::pread(fd_, magic + got, 2 - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  gzip_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  out_[0] = '\0';
  cur_ = last_ = out_.data();
  // Empty buffer: the first Peek must see the first byte.
  refill();
}

JsonByteStream::~JsonByteStream() {
  if (z_ready_) inflateEnd(&z_);
  if (fd_ >= 0) ::close(fd_);
}

size_t JsonByteStream::read_file(unsigned char* dst, size_t capacity) {
  while (true) {
    const ssize_t n = ::read(fd_, dst, capacity);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = fmt::format("read failed: {}", std::strerror(errno));
      return 0;
    }
    if (n == 0) file_eof_ = true;
    file_read_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    return static_cast<size_t>(n);
  }
}

size_t JsonByteStream::produce(char* dst, size_t capacity) {
  if (!error_.empty()) return 0;
  if (!gzip_) return file_eof_ ? 0 : read_file(reinterpret_cast<unsigned char*>(dst), capacity);
  z_.next_out = reinterpret_cast<Bytef*>(dst);
  z_.avail_out = static_cast<uInt>(capacity);
  while (z_.avail_out == capacity) {
    if (z_.avail_in == 0) {
      if (file_eof_) break;
      const size_t n = read_file(in_.data(), in_.size());
      if (!error_.empty()) return 0;
      if (n == 0) break;
      z_.next_in = in_.data();
      z_.avail_in = static_cast<uInt>(n);
    }
    if (gzip_member_done_) {
      // A new gzip member (files may hold several, concatenated).
      if (z_ready_) inflateReset(&z_);
      else if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
        error_ = "zlib cannot start inflating";
        return 0;
      } else {
        z_ready_ = true;
      }
      gzip_member_done_ = false;
    }
    const int rc = inflate(&z_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      gzip_member_done_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error_ = fmt::format("corrupt gzip data: {}", z_.msg ? z_.msg : zError(rc));
      return capacity - z_.avail_out;  // what came before the damage is read; the stream ends after it
    }
  }
  if (z_.avail_out == capacity && file_eof_ && z_.avail_in == 0 && !gzip_member_done_)
    error_ = "truncated gzip data (the compressed stream ends before its last member does)";
  return capacity - z_.avail_out;
}

void JsonByteStream::refill() {
  consumed_ += filled_;
  filled_ = 0;
  size_t n = 0;
  if (keep_going_ && !keep_going_()) stopped_ = true;
  else n = produce(out_.data(), kOutBytes);
  cur_ = out_.data();
  if (n == 0) {
    out_[0] = '\0';
    last_ = out_.data();
    eof_ = true;
    return;
  }
  filled_ = n;
  last_ = out_.data() + n - 1;
  out_[n] = '\0';
}

}  // namespace rocpd::formats::kineto
