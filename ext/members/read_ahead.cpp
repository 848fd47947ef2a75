#include "members/read_ahead.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rocpd::members {

FileReadAhead::FileReadAhead(const std::vector<std::string>& files, size_t head_bytes, size_t window)
    : files_(files), head_bytes_(head_bytes), window_(window) {
  if (files_.size() < 2) return;  // nothing to overlap
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // No thread to spare: the probes read as before.
  }
}

FileReadAhead::~FileReadAhead() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  moved_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void FileReadAhead::reached(size_t index) {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    if (index <= reached_) return;
    reached_ = index;
  }
  moved_.notify_one();
}

void FileReadAhead::run() noexcept {
  for (size_t next = 0; next < files_.size(); ++next) {
    {
      std::unique_lock lock(mutex_);
      moved_.wait(lock, [&] { return stop_ || next <= reached_ + window_; });
      if (stop_) return;
    }
    // Regular files only: opening a FIFO or a device may block or act (the prober refuses them).
    struct stat st {};
    if (::stat(files_[next].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const int fd = ::open(files_[next].c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, static_cast<off_t>(head_bytes_), POSIX_FADV_WILLNEED);
    ::close(fd);
  }
}

}  // namespace rocpd::members
