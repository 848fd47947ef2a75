#include "job_progress.h"

#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "display.h"

namespace rocpd_cli {

namespace {
std::mutex g_mu;
JobProgress* g_progress = nullptr;

// ROCPD_PROGRESS_INTERVAL as the extension reads it (seconds, a number >= 0), default 1 s.
std::chrono::steady_clock::duration interval() {
  const char* v = std::getenv("ROCPD_PROGRESS_INTERVAL");
  double s = 1.0;
  if (v && *v) {
    char* end = nullptr;
    double x = std::strtod(v, &end);
    if (end && *end == '\0' && x >= 0) s = x;
  }
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(std::max(s, 0.01)));
}

void count(const std::filesystem::path& p, std::int64_t& files, std::int64_t& bytes) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(p, ec)) {
    ++files;
    bytes += static_cast<std::int64_t>(std::filesystem::file_size(p, ec));
    return;
  }
  if (std::filesystem::is_directory(p, ec)) {
    for (const auto& e : std::filesystem::directory_iterator(p, ec)) {
      if (!e.is_regular_file(ec)) continue;
      ++files;
      bytes += static_cast<std::int64_t>(e.file_size(ec));
    }
  }
}
}  // namespace

JobProgress::JobProgress(const std::vector<std::string>& paths) : interval_(interval()) {
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) {
      count(p, files_, bytes_);
      continue;
    }
    glob_t g{};
    if (::glob(p.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) count(g.gl_pathv[i], files_, bytes_);
    globfree(&g);
  }
  thread_ = std::thread([this] { loop(); });
  set_job_progress(this);
}

JobProgress::~JobProgress() {
  set_job_progress(nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void JobProgress::phase(std::string what) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = std::move(what);
}

void JobProgress::opened(std::int64_t members, std::int64_t events) {
  std::lock_guard<std::mutex> lock(mu_);
  members_ = members;
  events_ = events;
}

std::string JobProgress::line() {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string s = fmt::format("rocpd-ext: progress: {}; {} file{} named ({})", phase_, with_separators(files_),
                              files_ == 1 ? "" : "s", format_bytes(static_cast<double>(bytes_)));
  if (members_ >= 0)
    s += fmt::format(", {} member{} open, {} events", with_separators(members_), members_ == 1 ? "" : "s",
                     with_separators(events_));
  return s + fmt::format("; {:.1f} s", secs);
}

void JobProgress::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  auto next = start_ + interval_;
  while (!done_) {
    if (wake_.wait_until(lock, next, [this] { return done_; })) break;
    // One write per line, so that it never splits another writer's line on stderr.
    std::string l = line() + '\n';
    std::cerr.write(l.data(), static_cast<std::streamsize>(l.size()));
    std::cerr.flush();
    next += interval_;
    if (next < std::chrono::steady_clock::now()) next = std::chrono::steady_clock::now() + interval_;
  }
}

void progress_phase(const std::string& what) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_progress) g_progress->phase(what);
}

void progress_opened(std::int64_t members, std::int64_t events) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_progress) g_progress->opened(members, events);
}

void set_job_progress(JobProgress* p) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_progress = p;
}

}  // namespace rocpd_cli
