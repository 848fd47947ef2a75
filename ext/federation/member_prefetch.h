// Reads opened members on background threads while SQLite consumes rows on its own thread:
// the member queries (B-tree decoding) and the outer virtual-table loop overlap, which is what
// lets a federated scan approach a native scan of one merged table. Members are dealt to
// workers in turn (all items of a member to the same worker, which reads them into its lane);
// the consumer follows the item order across lanes, so rows keep the order of the items. Rows travel in bounded batches, so memory stays flat whatever the number of rows.
#pragma once
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "federation/canonical_tables.h"
#include "federation/member_sql.h"
#include "federation/registry.h"

namespace rocpd::federation {

// One value copied out of a member row (text and blobs live in the batch's arena).
struct Cell {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  uint32_t offset = 0, length = 0;
};

struct Batch {
  size_t item = 0;                                   // index into the prefetcher's item list
  std::shared_ptr<const std::vector<int>> columns;  // canonical column -> cell index in a row, or -1
  size_t width = 0;                                  // cells per row
  std::vector<Cell> cells;
  std::string arena;
  size_t rows = 0;
  bool last_of_item = false;
};

struct PrefetchItem {
  MemberPtr member;
  int source = 0;
  bool ranged = false;
  int64_t lo = 0, hi = 0;
  std::shared_ptr<const Profile> profile;  // resolved on the host thread (rpd pids need it)
};

class Prefetcher {
 public:
  // `values` are owned by the caller and must outlive the prefetcher.
  Prefetcher(Registry* registry, const CanonicalTable& table, uint64_t used, std::vector<PushedConstraint> pushed,
             const std::vector<sqlite3_value*>& values, std::vector<PrefetchItem> items);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // The next batch in item order; nullptr when every item is done. Rethrows a worker error.
  std::unique_ptr<Batch> next();

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
  bool push(size_t lane, std::unique_ptr<Batch> batch);  // false when stopping

  Registry* registry_;
  const CanonicalTable& table_;
  uint64_t used_;
  std::vector<PushedConstraint> pushed_;
  const std::vector<sqlite3_value*>& values_;
  std::vector<PrefetchItem> items_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<size_t> lane_of_;  // per item: all items of one member go to one lane (one connection)
  size_t consumed_items_ = 0;  // items the consumer has finished
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace rocpd::federation
