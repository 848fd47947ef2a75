#include "members/member_pool.h"

#include "common/read_transaction.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace rocpd::members {

namespace {
// How often the host thread looks at the interrupt flag while workers run (the 0.5 s promise).
constexpr auto kWaitSlice = std::chrono::milliseconds(5);
}  // namespace

MemberPool::MemberPool(Registry& registry, InterruptWatch& watch)
    : registry_(registry), watch_(watch), lanes_(std::max(1u, std::thread::hardware_concurrency())) {}

void MemberPool::run(const std::vector<canonical::MemberPtr>& members, const Task& task, PoolProgress* progress) {
  std::vector<size_t> attached, opened;
  for (size_t i = 0; i < members.size(); ++i) (members[i]->attached ? attached : opened).push_back(i);

  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  size_t running = 0;
  std::exception_ptr first_error;

  auto record = [&](std::exception_ptr e) {
    std::lock_guard lock(mutex);
    if (!first_error) first_error = e;
    watch_.stop();
  };
  auto one = [&](size_t index, size_t lane, bool host) {
    auto lease = registry_.acquire(members[index], &watch_, host);
    // One file lock for the task's statements (an engine pass runs dozens per member, each of
    // which would take and drop the lock and re-read the header); attached members share the
    // host connection, whose transactions are the user's.
    ReadTransaction snapshot = members[index]->attached ? ReadTransaction() : ReadTransaction(lease.db());
    task(index, lease.db(), lane);
    if (progress) progress->members_done.fetch_add(1, std::memory_order_relaxed);
  };
  auto take_opened = [&]() -> std::optional<size_t> {
    if (watch_.stopped()) return std::nullopt;
    const size_t k = next.fetch_add(1, std::memory_order_relaxed);
    if (k >= opened.size()) return std::nullopt;
    return opened[k];
  };

  std::vector<std::thread> workers;
  const size_t wanted = std::min(lanes_ - 1, opened.size());
  for (size_t w = 0; w < wanted; ++w) {
    {
      std::lock_guard lock(mutex);
      ++running;
    }
    try {
      workers.emplace_back([&, lane = w + 1] {
        try {
          while (auto index = take_opened()) one(*index, lane, false);
        } catch (...) {
          record(std::current_exception());
        }
        std::lock_guard lock(mutex);
        --running;
        finished.notify_all();
      });
    } catch (const std::system_error&) {
      // No more threads from the system: the host thread and the workers started do the work.
      std::lock_guard lock(mutex);
      --running;
      break;
    }
  }

  try {
    for (size_t index : attached) {
      if (watch_.poll()) break;
      one(index, 0, true);
    }
    while (!watch_.poll()) {
      auto index = take_opened();
      if (!index) break;
      one(*index, 0, true);
    }
  } catch (...) {
    record(std::current_exception());
  }
  {
    std::unique_lock lock(mutex);
    while (running > 0) {
      finished.wait_for(lock, kWaitSlice);
      lock.unlock();
      watch_.poll();  // raises the stop flag the workers' member statements check
      lock.lock();
    }
  }
  for (auto& t : workers) t.join();
  // A member statement stopped by the user's interrupt reports it in the member's words; the query
  // ends with SQLite's plain "interrupted", as every other statement does.
  if (first_error && watch_.host_interrupted_now()) InterruptWatch::raise();
  if (first_error) std::rethrow_exception(first_error);
  if (watch_.stopped()) InterruptWatch::raise();
}

}  // namespace rocpd::members
