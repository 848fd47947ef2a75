#include "compression/decode_pool.h"

#include <algorithm>
#include <deque>
#include <thread>

namespace rocpd::zstd {

bool PendingFrame::claim() {
  std::lock_guard lock(mutex);
  if (state != State::queued) return false;
  state = State::running;
  return true;
}

void PendingFrame::finish(const Frame& frame, std::exception_ptr err) {
  {
    std::lock_guard lock(mutex);
    result = frame;
    error = err;
    state = State::done;
  }
  done_cv.notify_all();
}

bool PendingFrame::done() {
  std::lock_guard lock(mutex);
  return state == State::done;
}

Frame PendingFrame::wait() {
  std::unique_lock lock(mutex);
  done_cv.wait(lock, [&] { return state == State::done; });
  if (error) std::rethrow_exception(error);
  return result.lock();
}

namespace {

class DecodePool {
 public:
  explicit DecodePool(unsigned threads) {
    for (unsigned i = 0; i < threads; ++i) std::thread([this] { run(); }).detach();
  }
  void submit(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return !jobs_.empty(); });
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();  // jobs catch their own errors (PendingFrame::finish)
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
};

unsigned pool_threads() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::min(2u, cores - 1);
}

}  // namespace

bool submit_decode(std::function<void()> job) {
  static const unsigned threads = pool_threads();
  if (threads == 0) return false;
  // Never destroyed: its detached threads may outlive static destruction at process exit.
  static DecodePool* pool = new DecodePool(threads);
  pool->submit(std::move(job));
  return true;
}

}  // namespace rocpd::zstd
