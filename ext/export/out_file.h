// The file an export writes: a buffered writer to a temporary file beside the target, gzipped
// or plain, renamed over the target only when the export succeeded (an interrupted or failed
// export leaves no partial file behind). Full buffers are compressed and written by a thread of
// its own while the caller fills the other buffer (two buffers: memory stays bounded).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_file.h"

namespace rocpd::exporter {

class OutFile {
 public:
  enum class Compression { none, gzip };
  // Creates the temporary file; throws Error naming `path` when it cannot.
  OutFile(std::string path, Compression compression, const char* fn);
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile();  // removes the temporary file unless commit() succeeded

  void write(const char* p, size_t n) {
    if (n > buf_.size - len_) {
      flush();
      if (n > buf_.size) return write_through(p, n);
    }
    std::memcpy(buf_.data() + len_, p, n);
    len_ += n;
  }
  void write(std::string_view s) { write(s.data(), s.size()); }
  void put(char c) {
    if (len_ == buf_.size) flush();
    buf_.data()[len_++] = c;
  }
  // Room for `n` bytes written directly by the caller, then advance(k <= n).
  char* reserve(size_t n) {
    if (n > buf_.size - len_) flush();
    return buf_.data() + len_;
  }
  void advance(size_t n) { len_ += n; }

  // Flushes, closes and renames the temporary file over the target.
  void commit();
  // Bytes handed to the file so far (uncompressed).
  uint64_t bytes() const { return written_ + len_; }

 private:
  // Hands the filled buffer to the writer thread (after it finished the previous one).
  void flush();
  void write_through(const char* p, size_t n);
  // Compresses and writes; throws Error. Only one thread at a time (the writer thread, or the
  // caller while the writer thread is idle).
  void raw_write(const char* p, size_t n);
  void background();
  // Waits until the writer thread has written what it was handed; throws its failure, if any.
  void wait_idle();
  void stop_thread();
  void fail(const std::string& what, int err) const;

  std::string path_;
  TempFile temp_;
  const char* fn_;
  Compression compression_;
  int fd_ = -1;
  void* gz_ = nullptr;  // gzFile
  // Left uninitialised: zeroing a megabyte costs more than a small export.
  struct Buffer {
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
    char* data() { return bytes.get(); }
    void allocate(size_t n) {
      bytes.reset(new char[n]);
      size = n;
    }
  };
  Buffer buf_;
  size_t len_ = 0;
  // The writer thread and what it shares with the caller (under mu_).
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  Buffer pending_;
  size_t pending_len_ = 0;
  bool has_pending_ = false, stop_ = false;
  std::string error_;  // the writer thread's failure, reported by the next flush or commit
  int error_code_ = 0;
  uint64_t written_ = 0;
  bool committed_ = false;
};

}  // namespace rocpd::exporter
