// Rows read on one thread and handled on another: the export steps the members' statements on
// the calling thread (an attached member can only be read on the host connection, whose mutex
// that thread holds) while a worker thread turns the rows into trace events. Rows travel in
// batches of copied values; at most kMaxQueued batches wait, so memory stays bounded.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "common/affinity.h"

namespace rocpd::members {
class MemberColumns;
}

namespace rocpd::exporter {

// Rows of `width` values; text and blobs are copied into the batch's own storage.
class RowBatch {
 public:
  static constexpr size_t kMaxRows = 2048;
  static constexpr size_t kMaxBytes = size_t{1} << 20;

  void reset(size_t width);
  // Copies the current row of `rows` (its first width() columns).
  void add(const members::MemberColumns& rows);
  bool full() const { return rows_ >= kMaxRows || text_.size() >= kMaxBytes; }
  bool empty() const { return rows_ == 0; }
  // Points the copied text values at the storage (it moves while rows are added).
  void seal();

  size_t size() const { return rows_; }
  std::span<const StoredValue> row(size_t r) const { return {values_.data() + r * width_, width_}; }

 private:
  size_t width_ = 0, rows_ = 0;
  std::vector<StoredValue> values_;
  std::vector<char> text_;
};

class RowPipe {
 public:
  using Handler = std::function<void(const RowBatch&)>;
  static constexpr size_t kMaxQueued = 4;

  RowPipe() = default;
  // Stops the worker; batches still queued are dropped (the export failed or was interrupted).
  ~RowPipe();
  RowPipe(const RowPipe&) = delete;
  RowPipe& operator=(const RowPipe&) = delete;

  // An empty batch of `width` values per row (reused from handled ones).
  std::unique_ptr<RowBatch> take(size_t width);
  // Queues `batch` for `handle`, called on the worker in the order sent. Waits while the queue is
  // full; throws what a handler threw, once.
  void send(std::unique_ptr<RowBatch> batch, const Handler& handle);
  // Waits until every batch sent was handled; throws what a handler threw. After it, the caller
  // may touch what handlers touch.
  void drain();
  // Whether send() hands batches to the worker (started at the first such send) or runs the
  // handler itself: a small member is written faster than the worker wakes. Call when drained.
  void set_threaded(bool threaded) { threaded_ = threaded; }

 private:
  struct Item {
    std::unique_ptr<RowBatch> batch;
    const Handler* handle;
  };
  void work();
  void rethrow_locked(std::unique_lock<std::mutex>& lock);

  std::mutex mu_;
  std::condition_variable to_worker_, to_reader_;
  std::deque<Item> queue_;
  std::vector<std::unique_ptr<RowBatch>> spare_;
  bool busy_ = false, stop_ = false;
  bool threaded_ = true;
  std::exception_ptr error_;
  std::thread thread_;  // started by the first threaded send
};

}  // namespace rocpd::exporter
