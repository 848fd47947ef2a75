#include "export/profile_ahead.h"

#include <chrono>
#include <utility>

namespace rocpd::exporter {

ProfileAhead::ProfileAhead(members::Registry& registry, const canonical::MemberPtr& m,
                           members::InterruptWatch& watch, bool wanted)
    : watch_(watch) {
  if (!wanted || !registry.profile_stale(m)) return;
  if (m->attached) {
    shadow_ = registry.shadow(*m);
    if (!shadow_) return;
  }
  done_ = false;
  thread_ = std::thread([this, &registry, m] {
    std::exception_ptr error;
    try {
      registry.profile_off_host(m, watch_, shadow_.get());
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mu_);
    error_ = error;
    done_ = true;
    cv_.notify_all();
  });
}

ProfileAhead::~ProfileAhead() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    if (!done_) watch_.stop();
  }
  thread_.join();
}

void ProfileAhead::wait() {
  std::unique_lock lock(mu_);
  while (!done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(5));
    if (done_) break;
    lock.unlock();
    watch_.check();  // the user's interrupt reaches the pass through the watch's stop flag
    lock.lock();
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace rocpd::exporter
