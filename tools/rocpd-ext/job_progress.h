// --progress over the whole command (docs/cli.md, "Output, errors, exit status"): besides the
// extension's lines for long statements (rocpd_progress(1), whose clock restarts with each
// statement and each file converted), a line about once a second for as long as the command runs:
// the files named and their bytes, the members and events once open, what runs now, and the
// seconds since the command started.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rocpd_cli {

class JobProgress {
 public:
  // Counts the files and bytes `paths` name (a file, a directory's entries, a glob's matches).
  explicit JobProgress(const std::vector<std::string>& paths);
  ~JobProgress();
  JobProgress(const JobProgress&) = delete;
  JobProgress& operator=(const JobProgress&) = delete;

  // What runs now ("opening", "summary: section kernels (6 of 12)"), and, once open, the job's size.
  void phase(std::string what);
  void opened(std::int64_t members, std::int64_t events);

 private:
  void loop();
  std::string line();

  std::mutex mu_;
  std::condition_variable wake_;
  bool done_ = false;
  std::string phase_ = "opening";
  std::int64_t files_ = 0, bytes_ = 0, members_ = -1, events_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration interval_;
  std::thread thread_;
};

// The reporter of the running command, or none: lets the sections name themselves.
void progress_phase(const std::string& what);
void progress_opened(std::int64_t members, std::int64_t events);
void set_job_progress(JobProgress* p);

}  // namespace rocpd_cli
