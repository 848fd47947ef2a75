#include "export/utilization_counter.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/ops_window.h"

namespace rocpd::exporter {


void UtilizationCounter::plan(sqlite3* db, std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t buckets) {
  if (buckets <= 0) return;
  // The grid rocpd_utilization lays (its plan_grid): [lo, hi) or the job's span, N equal buckets.
  explicit_window_ = lo && hi;
  int64_t from, to;
  if (explicit_window_) {
    from = *lo;
    to = *hi;
  } else {
    const auto job = analysis::job_range(db);
    if (!job) return;
    from = lo.value_or(job->start);
    to = hi.value_or(job->end);
  }
  if (to <= from) return;
  const uint64_t span = Interval{from, to}.length();
  grid_.origin = from;
  grid_.first = 0;
  grid_.limit = to;
  // At least one ns per bucket: a window narrower than N ns gets one bucket per ns.
  grid_.divisions = std::min<uint64_t>(static_cast<uint64_t>(buckets), span);
  grid_.last = static_cast<int64_t>(grid_.divisions) - 1;
  if (!explicit_window_) clusters_ = analysis::clock_clusters(db);
  enabled_ = true;
}

void UtilizationCounter::clear() {
  ops_.clear();
  last_ = nullptr;
  last_gpu_.reset();
}

uint64_t UtilizationCounter::write(TraceWriter& w, const std::string& db, int64_t pid) {
  if (!enabled_) return 0;
  BucketGrid grid = grid_;
  if (!explicit_window_) {
    // Only the buckets overlapping the member's clock cluster (rocpd_utilization's clip_to_cluster):
    // a member on another host's clock adds no empty stretch.
    const auto span = clusters_.find(db);
    if (span == clusters_.end()) {
      clear();
      return 0;
    }
    const Interval bounds{grid_.bucket(grid_.first).start, grid_.bucket(grid_.last).end};
    const Interval c = span->second;
    if (c.end < bounds.start || c.start >= bounds.end) {
      clear();
      return 0;
    }
    const int64_t last_time = c.end > c.start ? c.end - 1 : c.start;
    grid.first = std::max(grid_.first, grid_.index_of(c.start));
    grid.last = std::min(grid_.last, grid_.index_of(last_time));
  }
  uint64_t samples = 0;
  std::vector<uint64_t> busy;
  for (auto& [gpu, ivs] : ops_) {
    const std::vector<Interval> merged = merge(ivs);
    std::vector<Interval>().swap(ivs);
    busy.assign(grid.count(), 0);
    add_to_buckets(merged, grid, busy);
    const std::string name = gpu ? fmt::format("GPU {} utilization", *gpu) : std::string("GPU ? utilization");
    int64_t last_end = 0;
    for (uint64_t k = 0; k < busy.size(); ++k) {
      const Interval b = grid.bucket(grid.first + static_cast<int64_t>(k));
      w.counter(pid, name, "utilization", b.start, static_cast<double>(busy[k]) / static_cast<double>(b.length()));
      last_end = b.end;
      ++samples;
    }
    if (!busy.empty()) {
      w.counter(pid, name, "utilization", last_end, 0.0);
      ++samples;
    }
  }
  clear();
  return samples;
}

}  // namespace rocpd::exporter
