#include "export/row_pipe.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "members/member_columns.h"

namespace rocpd::exporter {

void RowBatch::reset(size_t width) {
  width_ = width;
  rows_ = 0;
  text_.clear();
}

void RowBatch::add(const members::MemberColumns& rows) {
  // Grown by doubling and kept: a batch is reused for the whole export, and a small export
  // touches little memory.
  if ((rows_ + 1) * width_ > values_.size()) values_.resize(std::max<size_t>(2 * values_.size(), 64 * width_));
  StoredValue* out = values_.data() + rows_ * width_;
  for (size_t i = 0; i < width_; ++i) {
    StoredValue& v = out[i];
    rows.get(i, v);
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
      // The offset for now; seal() makes it a pointer.
      const size_t at = text_.size();
      const auto* p = static_cast<const char*>(v.bytes);
      if (v.length > 0) text_.insert(text_.end(), p, p + v.length);
      v.bytes = reinterpret_cast<const void*>(at);
    }
  }
  ++rows_;
}

void RowBatch::seal() {
  for (StoredValue& v : std::span<StoredValue>(values_.data(), rows_ * width_))
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) v.bytes = text_.data() + reinterpret_cast<size_t>(v.bytes);
}

RowPipe::~RowPipe() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  to_worker_.notify_all();
  thread_.join();
}

std::unique_ptr<RowBatch> RowPipe::take(size_t width) {
  std::unique_ptr<RowBatch> b;
  {
    std::lock_guard lock(mu_);
    if (!spare_.empty()) {
      b = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!b) b = std::make_unique<RowBatch>();
  b->reset(width);
  return b;
}

void RowPipe::rethrow_locked(std::unique_lock<std::mutex>& lock) {
  if (!error_) return;
  std::exception_ptr e = std::exchange(error_, nullptr);
  queue_.clear();
  lock.unlock();
  std::rethrow_exception(e);
}

void RowPipe::send(std::unique_ptr<RowBatch> batch, const Handler& handle) {
  if (batch->empty()) return;
  batch->seal();
  if (!threaded_) {
    handle(*batch);
    std::lock_guard lock(mu_);
    if (spare_.size() < kMaxQueued + 1) spare_.push_back(std::move(batch));
    return;
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { work(); });
  std::unique_lock lock(mu_);
  to_reader_.wait(lock, [&] { return queue_.size() < kMaxQueued || error_; });
  rethrow_locked(lock);
  queue_.push_back({std::move(batch), &handle});
  lock.unlock();
  to_worker_.notify_one();
}

void RowPipe::drain() {
  std::unique_lock lock(mu_);
  to_reader_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
  rethrow_locked(lock);
}

void RowPipe::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    to_worker_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    std::exception_ptr failed;
    try {
      (*item.handle)(*item.batch);
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    if (failed) {
      // The rest of the stream is of no use: the reader gets the error at its next send or drain.
      error_ = failed;
      queue_.clear();
    }
    if (spare_.size() < kMaxQueued + 1) spare_.push_back(std::move(item.batch));
    to_reader_.notify_all();
  }
}

}  // namespace rocpd::exporter
