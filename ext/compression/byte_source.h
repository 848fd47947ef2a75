// Random-access input for the zstd readers, independent of SQLite so the parsers can be unit-tested
// and fuzzed on memory buffers. The VFS adapts a raw sqlite3_file to it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rocpd::zstd {

// Bad compressed input (truncated, corrupt, inconsistent). Messages name what was wrong but not
// the file: callers prefix the path.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The storage under the compressed file failed (not the data's fault). `sys_errno`: the errno of
// the failed system call, 0 if none (the VFS reports it to SQLite, e.g. EMFILE).
class IoError : public std::runtime_error {
 public:
  explicit IoError(const std::string& what, int sys_errno = 0) : std::runtime_error(what), sys_errno_(sys_errno) {}
  int sys_errno() const { return sys_errno_; }

 private:
  int sys_errno_;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Reads exactly n bytes at offset; FormatError when the range passes the end of the file.
  virtual void read(std::uint64_t offset, void* dst, std::size_t n) const = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const void* data, std::size_t size) : data_(static_cast<const unsigned char*>(data)), size_(size) {}
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, void* dst, std::size_t n) const override;

 private:
  const unsigned char* data_;
  std::size_t size_;
};

// A file read with pread(2): the rocpd_zstd VFS, rocpd_zstd_verify and the tests. Only regular
// files open: a FIFO, directory, device or socket is refused without blocking (IoError "not a
// regular file (a FIFO)"), checked before opening and again on the opened descriptor.
class PosixFileSource final : public ByteSource {
 public:
  explicit PosixFileSource(const std::string& path);
  ~PosixFileSource() override;
  PosixFileSource(const PosixFileSource&) = delete;
  PosixFileSource& operator=(const PosixFileSource&) = delete;
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, void* dst, std::size_t n) const override;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// Throws IoError "not a regular file (a FIFO)" (or directory, device, socket) when `path` exists
// and is not a regular file, without opening it; anything else (a missing file) passes.
void require_regular_file(const std::string& path);

// The message every short read produces, so all sources report truncation alike.
std::string truncated_message(std::uint64_t offset, std::size_t n, std::uint64_t file_size);

}  // namespace rocpd::zstd
