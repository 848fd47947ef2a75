// Runs one task per member on every core: opened members (private connections) on worker threads
// and on the host thread, attached members (schemas of the host connection) on the host thread
// only, since the host connection serves one thread. The host thread also watches for
// sqlite3_interrupt() while it waits, and the first error stops the others.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "members/interrupt.h"
#include "members/registry.h"

namespace rocpd::members {

struct PoolProgress {
  std::atomic<size_t> members_done{0};
  std::atomic<int64_t> rows{0};
};

// `task(index, db, lane)` runs for members[index] with a leased connection `db`; `lane` numbers the
// thread (0 = host, 1.. = workers: lanes() of them in all), so a task can write to per-lane
// state without locks. Rethrows the first task error (any type) after every thread is joined.
class MemberPool {
 public:
  using Task = std::function<void(size_t index, sqlite3* db, size_t lane)>;
  MemberPool(Registry& registry, InterruptWatch& watch);
  size_t lanes() const { return lanes_; }
  void run(const std::vector<canonical::MemberPtr>& members, const Task& task, PoolProgress* progress = nullptr);

 private:
  Registry& registry_;
  InterruptWatch& watch_;
  size_t lanes_;
};

}  // namespace rocpd::members
