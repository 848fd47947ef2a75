// Computes a table's rows member by member on every core (members/member_pool.h), a batch of
// members at a time, so that memory holds the rows of one batch while SQLite reads them.
#pragma once
#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "common/big_alloc.h"
#include "analysis/member_read.h"
#include "members/interrupt.h"
#include "members/member_pool.h"
#include "members/progress.h"

namespace rocpd::analysis {

template <class Rows>
class MemberBatches {
 public:
  using Compute = std::function<Rows(const canonical::Member&, sqlite3*, const members::InterruptWatch&)>;
  // A computation that also uses the registry in its visit (members::Registry::stash, profile_on).
  using ComputeVisit = std::function<Rows(members::Registry&, const canonical::MemberPtr&, sqlite3*,
                                          members::InterruptWatch&)>;
  // Runs on the connection's thread before a batch's members are computed on every core (to make
  // sure of what the computation reads from the registry, such as the members' profiles).
  using Prepare = std::function<void(members::Registry&, const std::vector<canonical::MemberPtr>&,
                                     members::InterruptWatch&)>;
  // `per_core`: members per core in every batch after the first (fewer barriers, where a core waits
  // for the batch's last member, against more rows in memory at once).
  MemberBatches(sqlite3* conn, const char* table, Compute compute, Prepare prepare = nullptr, size_t per_core = 2)
      : MemberBatches(conn, table,
                      ComputeVisit([compute](members::Registry&, const canonical::MemberPtr& m, sqlite3* db,
                                             members::InterruptWatch& watch) { return compute(*m, db, watch); }),
                      prepare, per_core) {}
  MemberBatches(sqlite3* conn, const char* table, ComputeVisit compute, Prepare prepare = nullptr, size_t per_core = 2)
      : conn_(conn), table_(table), compute_(std::move(compute)), prepare_(prepare), per_core_(std::max<size_t>(1, per_core)) {}

  // Starts over with `dbs` (query_members order).
  void start(std::vector<MemberRef> dbs) {
    dbs_ = std::move(dbs);
    next_ = 0;
    batch_.clear();
    first_ = 0;
    rows_before_ = 0;
    started_ = std::chrono::steady_clock::now();
  }
  // Computes the next batch; false when every member was done. Rows of earlier batches are freed.
  bool next_batch() {
    batch_.clear();
    if (next_ >= dbs_.size()) return false;
    members::InterruptWatch watch(conn_);
    const size_t cores = std::max<size_t>(1, std::thread::hardware_concurrency());
    // The first batch is one member per core: a LIMIT query gets its first rows without waiting for
    // more members than the cores can compute at once.
    const size_t end = std::min(dbs_.size(), next_ + (next_ == 0 ? cores : per_core_ * cores));
    const std::vector<MemberRef> part(dbs_.begin() + static_cast<std::ptrdiff_t>(next_),
                                      dbs_.begin() + static_cast<std::ptrdiff_t>(end));
    const MemberSet set = open_members(conn_, part, table_);
    batch_.resize(part.size());
    members::PoolProgress progress;
    if (set.registry && set.registry->progress)
      watch.report_progress(
          [&] {
            members::ProgressCounts c;
            c.what = table_;
            c.members_done = next_ + progress.members_done.load();
            c.members_total = dbs_.size();
            c.rows = rows_before_ + progress.rows.load();
            return members::progress_line(c);
          },
          started_);
    try {
      if (prepare_ && set.registry) prepare_(*set.registry, set.members, watch);
      members::MemberPool(*set.registry, watch).run(set.members, [&](size_t i, sqlite3* db, size_t) {
        batch_[i] = compute_(*set.registry, set.members[i], db, watch);
        progress.rows.fetch_add(static_cast<int64_t>(batch_[i].size()), std::memory_order_relaxed);
      }, &progress);
    } catch (...) {
      // A member read stopped by the interrupt reports it in its own words; the query ends with
      // SQLite's "interrupted", as every other statement. (watch.stopped() is no proof: the pool
      // also stops the others after the first member error.)
      members::InterruptWatch host(conn_);
      if (host.poll()) members::InterruptWatch::raise();
      throw;
    }
    first_ = next_;
    next_ = end;
    rows_before_ += progress.rows.load();
    return true;
  }
  // The batch's members: rows(i) are those of member(i), i < size().
  size_t size() const { return batch_.size(); }
  Rows& rows(size_t i) { return batch_[i]; }
  const MemberRef& member(size_t i) const { return dbs_[first_ + i]; }

 private:
  sqlite3* conn_;
  const char* table_;
  ComputeVisit compute_;
  Prepare prepare_;
  size_t per_core_;
  // Member after member builds arrays of the same sizes: freed ones are reused, not mapped anew.
  BigAllocReuse reuse_;
  std::vector<MemberRef> dbs_;
  std::vector<Rows> batch_;
  size_t next_ = 0, first_ = 0;
  int64_t rows_before_ = 0;  // rows of the batches before this one (progress lines)
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace rocpd::analysis
