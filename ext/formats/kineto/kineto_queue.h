// The hand-over between the import's two threads: a parsing thread fills batches of items (events
// and top-level values, in file order) and the host thread stores them. A few batches circulate
// (filled, stored, reused), so memory stays bounded and strings keep their capacity.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "formats/kineto/kineto_rows.h"

namespace rocpd::formats::kineto {

struct Item {
  enum Kind : uint8_t { EventRow, Metadata } kind = EventRow;
  Event event;          // EventRow
  int64_t base_ns = 0;  // EventRow: baseTimeNanoseconds as known when the event was read
  std::string tag;      // Metadata: the top-level key
  Scalar value;         // Metadata
};

struct Batch {
  std::vector<Item> items;
  size_t used = 0;
  size_t bytes = 0;  // args and metadata text held, to close a batch of large items early
};

class ItemQueue {
 public:
  static constexpr size_t kItemsPerBatch = 2048;
  static constexpr size_t kBytesPerBatch = size_t{8} << 20;
  static constexpr size_t kRetainedBytes = size_t{16} << 20;  // string capacity a batch may keep

  explicit ItemQueue(size_t batches = 4);
  ItemQueue(const ItemQueue&) = delete;
  ItemQueue& operator=(const ItemQueue&) = delete;

  // Parsing thread: an empty batch (blocks while every batch is queued or being stored);
  // nullptr once cancelled.
  Batch* take_empty();
  void push_full(Batch* b);
  void finish();  // no batch follows

  enum class Pop { Batch, End, Timeout };
  // Host thread: the next filled batch, waiting at most `wait`.
  Pop pop_full(std::chrono::milliseconds wait, Batch*& out);
  void give_back(Batch* b);

  void cancel();
  bool cancelled() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Batch> storage_;
  std::deque<Batch*> empty_, full_;
  bool finished_ = false, cancelled_ = false;
};

}  // namespace rocpd::formats::kineto
