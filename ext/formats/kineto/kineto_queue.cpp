#include "formats/kineto/kineto_queue.h"

namespace rocpd::formats::kineto {

ItemQueue::ItemQueue(size_t batches) : storage_(batches) {
  for (auto& b : storage_) {
    b.items.resize(kItemsPerBatch);
    empty_.push_back(&b);
  }
}

Batch* ItemQueue::take_empty() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return cancelled_ || !empty_.empty(); });
  if (cancelled_) return nullptr;
  Batch* b = empty_.front();
  empty_.pop_front();
  b->used = 0;
  b->bytes = 0;
  return b;
}

void ItemQueue::push_full(Batch* b) {
  {
    std::lock_guard lock(mutex_);
    full_.push_back(b);
  }
  changed_.notify_all();
}

void ItemQueue::finish() {
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  changed_.notify_all();
}

ItemQueue::Pop ItemQueue::pop_full(std::chrono::milliseconds wait, Batch*& out) {
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, wait, [&] { return !full_.empty() || finished_; })) return Pop::Timeout;
  if (full_.empty()) return Pop::End;
  out = full_.front();
  full_.pop_front();
  return Pop::Batch;
}

void ItemQueue::give_back(Batch* b) {
  // Slots keep their strings' capacity between uses (no allocation per event), but a batch whose
  // slots came to hold more than 16 MB (large args or names, however spread over its uses) lets
  // the large ones go: memory stays bounded whatever the file holds.
  size_t retained = 0;
  for (const Item& it : b->items)
    retained += it.event.args.capacity() + it.event.name.capacity() + it.value.text.capacity();
  if (retained > kRetainedBytes) {
    for (Item& it : b->items) {
      if (it.event.args.capacity() > 4096) std::string().swap(it.event.args);
      if (it.event.name.capacity() > 4096) std::string().swap(it.event.name);
      if (it.value.text.capacity() > 4096) std::string().swap(it.value.text);
    }
  }
  {
    std::lock_guard lock(mutex_);
    empty_.push_back(b);
  }
  changed_.notify_all();
}

void ItemQueue::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  changed_.notify_all();
}

bool ItemQueue::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

}  // namespace rocpd::formats::kineto
