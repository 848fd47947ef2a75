// Reads opened members on background threads while SQLite consumes rows on its own thread:
// the member queries (B-tree decoding) and the outer virtual-table loop overlap, which is what
// lets a federated scan approach a native scan of one merged table. Members are dealt to
// workers in turn (all items of a member to the same worker, which reads them into its lane);
// the consumer follows the item order across lanes, so rows keep the order of the items. Rows
// travel in bounded batches, so memory stays flat whatever the number of rows.
//
// Lifetime: the prefetcher owns copies of the constraint values it binds, and its destructor
// stops and joins every worker, so a cursor may re-filter or close at any moment.
#pragma once
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "canonical/canonical_tables.h"
#include "members/interrupt.h"
#include "members/member_sql.h"
#include "members/registry.h"
#include "members/row_block.h"

namespace rocpd::members {

struct Batch {
  size_t item = 0;                                   // index into the prefetcher's item list
  std::shared_ptr<const std::vector<int>> columns;  // canonical column -> cell index in a row, or -1
  RowBlock block;
  bool last_of_item = false;
};

struct PrefetchItem {
  canonical::MemberPtr member;
  int source = 0;
  bool ranged = false;
  int64_t lo = 0, hi = 0;
  std::shared_ptr<const canonical::Profile> profile;  // resolved on the host thread (rpd pids need it)
};

// The system refused to start a reader thread (thread limit): the caller reads inline instead.
class ThreadStartFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Prefetcher {
 public:
  // `pushed` values are copied. `watch` (owned by the caller, outliving the prefetcher) stops the
  // workers' member statements when the user interrupts. Throws ThreadStartFailure after joining
  // any worker already started.
  // `by_columns`: read each whole-source item through MemberColumns (members/member_columns.h)
  // instead of the canonical member query: op names by their key (no string join per row), a
  // column fixed by a source predicate (rpd's kind) not selected, texts read by key numbered in
  // Cell::i. Only the pushed constraints it takes as hints filter there (text equality, integer
  // bounds), so the rows are a superset: for plans whose every constraint SQLite checks again
  // (grouped scans: every constraint but db's, which picks the items).
  Prefetcher(Registry* registry, const canonical::CanonicalTable& table, uint64_t used, std::span<const PushedConstraint> pushed,
             std::vector<PrefetchItem> items, InterruptWatch* watch, bool by_columns = false);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next batch in item order; nullptr when every item is done. Rethrows a worker error.
  // While waiting, polls the host's interrupt flag (host thread) and throws "interrupted".
  std::unique_ptr<Batch> next();
  // Gives a consumed batch back: its arrays are refilled by a worker instead of allocated anew.
  // A fresh process's allocator hands freed blocks back to the kernel, so each new batch was
  // faulted in page by page (a fresh process's first full scans were 1.5x slower than later ones).
  void recycle(std::unique_ptr<Batch> batch);

  size_t threads() const { return workers_.size(); }

 private:
  struct Lane {
    std::deque<std::unique_ptr<Batch>> queue;
    size_t queued_bytes = 0;
    bool done = false;
    std::string error;
    int error_code = SQLITE_OK;
  };
  void run(size_t lane) noexcept;
  void read_item(size_t index, size_t lane);
  void read_item_by_columns(size_t index, size_t lane);
  bool push(size_t lane, std::unique_ptr<Batch> batch);  // false when stopping
  void stop_and_join() noexcept;
  std::unique_ptr<Batch> spare_or_new();
  // An empty batch of `item`'s rows, `width` cells each (a spare when there is one).
  std::unique_ptr<Batch> new_batch(size_t item, std::shared_ptr<const std::vector<int>> columns, size_t width);

  Registry* registry_;
  const canonical::CanonicalTable& table_;
  uint64_t used_;
  std::vector<Value> values_;
  std::vector<PushedConstraint> pushed_;  // value pointers into values_
  std::vector<PrefetchItem> items_;
  InterruptWatch* watch_;
  bool by_columns_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<size_t> lane_of_;  // per item: all items of one member go to one lane (one connection)
  size_t consumed_items_ = 0;    // items the consumer has finished
  std::vector<std::unique_ptr<Batch>> spares_;  // recycled batches, emptied (capacity kept)
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace rocpd::members
