#include "members/parallel_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "members/fault_injection.h"
#include "members/member_file_probe.h"
#include "members/member_files.h"
#include "members/member_open.h"

namespace rocpd::members {

namespace {
// How often the waiting host thread looks at the host's interrupt flag (the 0.5 s promise).
constexpr auto kInterruptPoll = std::chrono::milliseconds(5);
constexpr size_t kMaxThreads = 64;

}  // namespace

size_t open_threads() {
  const char* v = std::getenv("ROCPD_OPEN_THREADS");
  if (!v || !*v) return 1;  // measured slower on two cores: see open_threads() in parallel_probe.h
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*v == '-' || errno != 0 || !end || *end != 0 || n < 1 || n > kMaxThreads)
    throw Error(fmt::format("rocpd_open: ROCPD_OPEN_THREADS must be a count of probing threads from 1 to {}, not '{}'",
                            kMaxThreads, v));
  return static_cast<size_t>(n);
}

ParallelProbe::ParallelProbe(const std::vector<std::string>& files, size_t threads, size_t window)
    : files_(files), window_(std::max<size_t>(window, 1)) {
  const size_t workers = std::min(threads - 1, files.size());  // the host thread probes too
  for (size_t t = 0; t < workers; ++t) {
    try {
      // ROCPD_FAULT=thread_start (tests): every probing thread fails to start, as under a thread limit.
      if (fault_injected("thread_start")) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      workers_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      break;  // the threads started probe alone (none: the host probes as before)
    }
  }
}

ParallelProbe::~ParallelProbe() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopping_.stop();  // a probe stuck in a hostile file's endless view ends at its next progress call
  may_take_.notify_all();
  for (auto& t : workers_) t.join();
}

ProbedFile ParallelProbe::take(size_t index, InterruptWatch* watch) {
  std::map<size_t, ProbedFile> passed;  // closed outside the lock
  std::unique_lock lock(mutex_);
  reached_ = index;
  may_take_.notify_all();
  auto first_kept = done_.lower_bound(index);
  passed.insert(std::make_move_iterator(done_.begin()), std::make_move_iterator(first_kept));
  done_.erase(done_.begin(), first_kept);
  for (;;) {
    if (auto it = done_.find(index); it != done_.end()) {
      ProbedFile r = std::move(it->second);
      done_.erase(it);
      return r;
    }
    if (next_ <= index) {  // no worker took it yet: probed here rather than waited for
      next_ = index + 1;   // the files passed over before it are not probed at all
      lock.unlock();
      return probe(files_[index], watch, /*host_thread=*/true);
    }
    probed_.wait_for(lock, kInterruptPoll);
    if (watch) {
      lock.unlock();
      watch->check();  // throws once the host is interrupted; the destructor then stops the workers
      lock.lock();
    }
  }
}

void ParallelProbe::work() noexcept {
  for (;;) {
    size_t index;
    {
      std::unique_lock lock(mutex_);
      may_take_.wait(lock, [&] { return stop_ || next_ >= files_.size() || next_ < reached_ + window_; });
      if (stop_ || next_ >= files_.size()) return;
      index = next_++;
    }
    ProbedFile r = probe(files_[index], &stopping_, /*host_thread=*/false);
    if (r.member && !keep_connections_.load(std::memory_order_relaxed)) r.member->conn.reset();
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;  // `r` closes its connection outside the lock
      done_.emplace(index, std::move(r));
    }
    probed_.notify_one();
  }
}

ProbedFile ParallelProbe::probe(const std::string& path, InterruptWatch* watch, bool host_thread) {
  ProbedFile r;
  try {
    const std::string who = fmt::format("rocpd_open: '{}'", path);
    r.stamp = file_stamp(path);  // before the file is read, as Registry::open_file takes it
    if (converted_first(path)) {
      r.on_host = true;
      return r;
    }
    canonical::MemberPtr m = new_opened_member(path);
    read_in_place(*m, who);
    // Without Registry::connect's retry: a worker must not close the registry's pooled
    // connections, so running out of descriptors goes back to the host (OutOfDescriptors).
    Db db = open_member_db(m->db_file(), m->vfs, who);
    limit_page_cache(db.get());
    r.member = probe_member(std::move(m), std::move(db), r.stamp, watch, host_thread, who);
  } catch (...) {
    r.error = std::current_exception();
  }
  return r;
}

}  // namespace rocpd::members
