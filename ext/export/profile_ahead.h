// A member's profile computed on a thread of its own while the export thread reads the member's
// API calls, which need no profile: for a one-file export the profile pass is the largest serial
// step before the ops can be read (rpd ops take their pid from it) and the utilization grid laid.
// An attached member is computed on a shadow connection of its file (Registry::shadow), or not
// ahead at all when it has none.
#pragma once
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "members/interrupt.h"
#include "members/registry.h"

namespace rocpd::exporter {

class ProfileAhead {
 public:
  // Starts the pass when `m`'s profile is missing or stale (and, for an attached member, it has a
  // shadow connection); else does nothing. Host thread.
  // `wanted` false: does nothing (the caller's profile() computes it when needed).
  ProfileAhead(members::Registry& registry, const canonical::MemberPtr& m, members::InterruptWatch& watch,
               bool wanted = true);
  // A pass still running is stopped (the export failed): its statements end at the watch's stop.
  ~ProfileAhead();
  ProfileAhead(const ProfileAhead&) = delete;
  ProfileAhead& operator=(const ProfileAhead&) = delete;

  // Host thread: waits for the pass, still answering the user's interrupt; throws the pass's error.
  void wait();

 private:
  members::InterruptWatch& watch_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = true;
  std::exception_ptr error_;
  Db shadow_;  // an attached member's connection for the pass
  std::thread thread_;
};

}  // namespace rocpd::exporter
