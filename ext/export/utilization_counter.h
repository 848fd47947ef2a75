// The GPU utilization counter of the export, computed from the ops the export reads anyway (no
// second pass over the members): the same rows rocpd_utilization returns for `buckets` = N over
// the window (or the job's span), i.e. per bucket the clipped union of the ops' busy time over its
// width, and the same grid (clipped to the member's clock cluster without an explicit window).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_util.h"
#include "export/trace_writer.h"
#include "common/interval_math.h"

namespace rocpd::exporter {

class UtilizationCounter {
 public:
  // Disabled until plan().
  UtilizationCounter() = default;
  // Lays the grid. `buckets` = 0 (or an empty job) disables it; reads the members' spans from
  // temp.rocpd_members (the members' profiles: computed there when missing).
  void plan(sqlite3* db, std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t buckets);

  bool enabled() const { return enabled_; }
  // Each op row of the member being written (any order). Memory: 16 bytes per op in the grid.
  void add(std::optional<int64_t> gpu, std::optional<int64_t> start, std::optional<int64_t> end) {
    if (!enabled_ || !start || !end || *end <= grid_.origin || *start >= grid_.limit) return;
    if (!last_ || last_gpu_ != gpu) {
      last_ = &ops_[gpu];
      last_gpu_ = gpu;
    }
    const Interval iv = clip({*start, *end}, grid_.origin, grid_.limit);
    if (!iv.empty()) last_->push_back(iv);
  }
  // Writes the member's counters (a track per gpu, in the member's process `pid`, a 0 after the
  // last bucket) and forgets its ops. Returns the number of samples written.
  uint64_t write(TraceWriter& w, const std::string& db, int64_t pid);
  void clear();

 private:
  bool enabled_ = false, explicit_window_ = false;
  BucketGrid grid_;
  std::map<std::string, Interval> clusters_;  // without an explicit window
  std::map<std::optional<int64_t>, std::vector<Interval>> ops_;  // of the member, by gpu
  std::vector<Interval>* last_ = nullptr;  // rows of one gpu come in runs
  std::optional<int64_t> last_gpu_;
};

}  // namespace rocpd::exporter
