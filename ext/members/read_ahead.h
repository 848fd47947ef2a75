// Read-ahead of the files rocpd_open is about to probe. A probe reads a handful of pages at the
// head of each file (the header, the schema, the metadata table), one after the other: with the
// page cache cold, each costs a disk round trip, and 10,000 members took 10.5-19.7 s to open
// where the CPU work is 5.5 s. A background thread asks the kernel for the head of the next files
// (posix_fadvise WILLNEED, which queues the reads and returns), a window ahead of the probes, so
// that the disk serves many requests at once and the probes find their pages in memory.
// Advice only: nothing is read into our memory, no file is changed, errors are ignored.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rocpd::members {

class FileReadAhead {
 public:
  // `files` must outlive this object. `head_bytes`: how much of each file's head to ask for;
  // `window`: how many files ahead of the probes.
  FileReadAhead(const std::vector<std::string>& files, size_t head_bytes = size_t{128} << 10, size_t window = 128);
  ~FileReadAhead();
  FileReadAhead(const FileReadAhead&) = delete;
  FileReadAhead& operator=(const FileReadAhead&) = delete;

  // The prober reached file `index`: the thread may advise up to index + window.
  void reached(size_t index);

 private:
  void run() noexcept;

  const std::vector<std::string>& files_;
  size_t head_bytes_, window_;
  std::mutex mutex_;
  std::condition_variable moved_;
  size_t reached_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rocpd::members
