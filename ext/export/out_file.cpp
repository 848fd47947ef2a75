#include "export/out_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <system_error>
#include <cerrno>

#include "common/sqlite_util.h"

namespace rocpd::exporter {

namespace {
constexpr size_t kBufferBytes = 1 << 20;
}  // namespace

OutFile::OutFile(std::string path, Compression compression, const char* fn)
    : path_(std::move(path)), fn_(fn), compression_(compression) {
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(fmt::format("{}: cannot write '{}': {}", fn_, path_,
                            S_ISDIR(st.st_mode) ? "it is a directory" : "it exists and is not a regular file"));
  }
  // A fresh name beside the target (same file system, so the final rename moves no data); O_EXCL
  // never follows a planted link, and the mode 0666 is cut by the umask as for any new file. Short
  // and hidden, so that any target name that fits the directory fits it too.
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string() : path_.substr(0, slash + 1);
  // A target name the directory cannot hold fails now, not after the export's work.
  const long name_max = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && path_.size() - (slash == std::string::npos ? 0 : slash + 1) > static_cast<size_t>(name_max))
    fail("cannot create", ENAMETOOLONG);
  try {
    // Partial files of processes that died writing here go first (common/temp_file.h).
    remove_stale_temps(dir, kPartialPrefix, kPartialSuffix);
    temp_ = TempFile::create(dir, kPartialPrefix, kPartialSuffix, 0666);
  } catch (const std::system_error& e) {
    fail("cannot create", e.code().value());  // names the target: the temporary file is ours, not the user's
  }
  // Written through a descriptor of its own (closed, with its errors, at commit); the temporary
  // file's own keeps its lock until the name is gone.
  fd_ = ::dup(temp_.fd());
  if (fd_ < 0) fail("cannot create", errno);
  if (compression_ == Compression::gzip) {
    // Level 1: JSON still shrinks about tenfold, at several times the speed of the default level.
    gzFile gz = gzdopen(fd_, "wb1");
    if (!gz) {
      ::close(fd_);
      fd_ = -1;
      throw std::bad_alloc();
    }
    gzbuffer(gz, 256 * 1024);
    gz_ = gz;
  }
  buf_.allocate(kBufferBytes);
}

OutFile::~OutFile() {
  stop_thread();
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  else if (fd_ >= 0) ::close(fd_);
  // temp_ removes the temporary file unless commit() renamed it.
}

void OutFile::fail(const std::string& what, int err) const {
  throw Error(fmt::format("{}: {} '{}': {}", fn_, what, path_, std::strerror(err)));
}

void OutFile::stop_thread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();  // the thread only waits on cv_ or in a write: it ends
}

void OutFile::background() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return has_pending_ || stop_; });
    if (!has_pending_) return;
    lock.unlock();
    std::string error;
    int code = 0;
    try {
      raw_write(pending_.data(), pending_len_);
    } catch (const Error& e) {
      error = e.what();
      code = e.code();
    } catch (const std::exception& e) {  // nothing may escape a thread
      error = fmt::format("{}: cannot write '{}': {}", fn_, path_, e.what());
    }
    lock.lock();
    has_pending_ = false;
    if (!error.empty() && error_.empty()) {
      error_ = std::move(error);
      error_code_ = code;
    }
    cv_.notify_all();
  }
}

void OutFile::wait_idle() {
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !has_pending_; });
  if (!error_.empty()) throw Error(error_, error_code_);
}

void OutFile::write_through(const char* p, size_t n) {
  wait_idle();  // after the buffers already handed over, in order
  written_ += n;
  raw_write(p, n);
}

void OutFile::raw_write(const char* p, size_t n) {
  if (gz_) {
    while (n > 0) {
      const unsigned chunk = n > (1u << 30) ? (1u << 30) : static_cast<unsigned>(n);
      if (gzwrite(static_cast<gzFile>(gz_), p, chunk) != static_cast<int>(chunk)) {
        int zerr = 0;
        const char* msg = gzerror(static_cast<gzFile>(gz_), &zerr);
        if (zerr == Z_ERRNO) fail("cannot write", errno);
        throw Error(fmt::format("{}: cannot write '{}': {}", fn_, path_, msg ? msg : "zlib error"));
      }
      p += chunk;
      n -= chunk;
    }
    return;
  }
  while (n > 0) {
    const ssize_t k = ::write(fd_, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

void OutFile::flush() {
  if (len_ == 0) return;
  wait_idle();
  if (!thread_.joinable()) {
    pending_.allocate(kBufferBytes);
    thread_ = std::thread([this] { background(); });
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(buf_, pending_);
    pending_len_ = len_;
    has_pending_ = true;
  }
  cv_.notify_all();
  written_ += len_;
  len_ = 0;
}

void OutFile::commit() {
  flush();
  wait_idle();
  stop_thread();
  if (gz_) {
    gzFile gz = static_cast<gzFile>(gz_);
    gz_ = nullptr;
    fd_ = -1;  // gzclose closes it
    const int rc = gzclose(gz);
    if (rc == Z_ERRNO) fail("cannot write", errno);
    if (rc != Z_OK) throw Error(fmt::format("{}: cannot write '{}': zlib error {}", fn_, path_, rc));
  } else {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("cannot write", errno);
  }
  // The previous file goes first: ext4 (auto_da_alloc) writes out at once a file renamed over
  // another, on this thread (tens of ms per 100 MB); renamed to a free name it is written back
  // later, as any new file. If the unlink fails, the rename reports why.
  ::unlink(path_.c_str());
  if (::rename(temp_.path().c_str(), path_.c_str()) != 0) fail("cannot rename the finished file to", errno);
  temp_.release();
  committed_ = true;
}

}  // namespace rocpd::exporter
