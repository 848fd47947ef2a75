// The bytes of a JSON trace file, plain or gzip-compressed (zlib), as a RapidJSON input stream
// with bounded buffers: memory stays the same whatever the file's size.
#pragma once
#include <zlib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rocpd::formats::kineto {

class JsonByteStream {
 public:
  using Ch = char;  // RapidJSON's stream concept

  // Opens `path` (never blocking on a FIFO; only regular files). Throws std::runtime_error with
  // the system's reason. `keep_going` is asked before each buffer is filled (about every 256 KiB
  // of JSON): returning false ends the stream early (the parse then fails; see stopped()).
  JsonByteStream(const std::string& path, std::function<bool()> keep_going);
  ~JsonByteStream();
  JsonByteStream(const JsonByteStream&) = delete;
  JsonByteStream& operator=(const JsonByteStream&) = delete;

  Ch Peek() const { return *cur_; }
  Ch Take() {
    const Ch c = *cur_;
    advance();
    return c;
  }
  size_t Tell() const { return static_cast<size_t>(consumed_ + static_cast<uint64_t>(cur_ - out_.data())); }
  // Not used for reading (RapidJSON's non-in-situ parse never writes to its input stream).
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

  bool gzip() const { return gzip_; }
  int64_t file_size() const { return file_size_; }
  // Bytes of the file read so far: read by another thread than the parser's (progress lines).
  uint64_t compressed_read() const { return file_read_.load(std::memory_order_relaxed); }
  // Why the stream ended before the file did: "" (it did not), or the I/O or zlib error. A stop
  // requested by keep_going leaves this empty and sets stopped().
  const std::string& error() const { return error_; }
  bool stopped() const { return stopped_; }
  // Whether every byte of the file was delivered (and, for gzip, every member ended properly).
  bool complete() const { return eof_ && error_.empty() && !stopped_; }

 private:
  void advance() {
    if (cur_ < last_) ++cur_;
    else if (!eof_) refill();
  }
  void refill();
  size_t produce(char* dst, size_t capacity);  // 0 at end (or error)
  size_t read_file(unsigned char* dst, size_t capacity);

  int fd_ = -1;
  bool gzip_ = false;
  bool gzip_member_done_ = true;  // between gzip members (or before the first)
  z_stream z_{};
  bool z_ready_ = false;
  std::vector<unsigned char> in_;
  std::vector<char> out_;
  char* cur_ = nullptr;
  char* last_ = nullptr;  // the last valid byte; at end, the '\0' sentinel after the data
  uint64_t consumed_ = 0;  // bytes delivered before out_'s current contents
  size_t filled_ = 0;      // bytes in out_
  std::atomic<uint64_t> file_read_{0};
  int64_t file_size_ = -1;
  bool file_eof_ = false;
  bool eof_ = false;
  bool stopped_ = false;
  std::string error_;
  std::function<bool()> keep_going_;
};

}  // namespace rocpd::formats::kineto
