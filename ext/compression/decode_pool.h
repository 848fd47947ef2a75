// A small process-wide pool of threads that decompress frames ahead of a sequential reader, so
// a scan overlaps SQLite's work with decompression. Jobs own everything they touch (their
// compressed bytes and the frame's entry): a reader may close while its jobs are still queued.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "compression/frame_cache.h"

namespace rocpd::zstd {

// One frame handed to the pool. Whoever claims it first (a pool thread, or the reader that needs
// it now and will not wait behind other jobs) decodes it. The pool puts the frame in the cache
// (where it counts against the budget); this keeps only a weak reference to it.
struct PendingFrame {
  std::mutex mutex;
  std::condition_variable done_cv;
  enum class State { queued, running, done } state = State::queued;
  std::weak_ptr<const DecodedFrame> result;
  std::exception_ptr error;
  // Claims a queued frame; false when another thread already has it.
  bool claim();
  void finish(const Frame& frame, std::exception_ptr err);
  bool done();
  // Blocks until done; returns the frame (null if the cache already evicted it) or rethrows the
  // decoder's error.
  Frame wait();
};

// Runs `job` on a pool thread (started on first use; 1..2 threads, never more than the machine
// has cores minus one). Returns false when the machine has a single core: the caller decodes.
bool submit_decode(std::function<void()> job);

}  // namespace rocpd::zstd
