// rocpd_utilization(bucket_ns [, lo, hi]): per db, gpu and time bucket, the busy time inside the
// bucket (the clipped union of the ops) and its fraction: Nsight's GPU utilization heatmap as a
// table. `WHERE buckets = N` (or the fourth argument) asks for N equal buckets over the window
// instead of a width (Nsight uses 30): they divide the window exactly, widths differing by at most
// 1 ns, and bucket_ns reads NULL.
//   columns: db, gpu, bucket, bucket_start, bucket_end, busy_ns, utilization,
//            HIDDEN bucket_ns, lo, hi, buckets (the arguments; the values actually used)
// All buckets of a query share one grid: it starts at lo, or at the job's first timestamp
// (min rocpd_members.first_ns), and ends at hi or the job's last timestamp, so the ranks of a job
// compare bucket by bucket. The last bucket is cut at hi. Without an explicit window (lo and hi
// both given), members whose spans (first_ns .. last_ns) overlap, directly or through others, form
// a clock cluster (a job on one clock is one cluster), and each member reports the buckets of the
// grid that overlap its cluster's span: every member of a cluster has the same buckets, while a
// member on another host's unaligned clock adds no empty buckets (nor a grid of billions) to the
// others. With lo and hi, every member reports every bucket of the window. Rows never depend on
// which members a query selects. `db = x` and `gpu = x` are pushed down.
//
// HOW IT WORKS: analysis/member_rows_table.h with the ops window's plan (kWindow). BucketSource lays
// out the query's grid when the scan starts (plan_grid: the arguments checked, the job's span and
// clock clusters read), then reads the members' busy lists a member at a time (BusyReader: a batch
// of members on every core through the summary engine); a member's rows are its gpus' buckets, gpu
// after gpu, each gpu's busy time per bucket summed when its first row is read.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "analysis/member_rows_table.h"
#include "analysis/ops_window.h"
#include "intervals/register.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

constexpr const char* kName = "rocpd_utilization";
// One query may ask for at most this many buckets per gpu; beyond it a typo (bucket_ns = 1)
// would allocate gigabytes.
constexpr uint64_t kMaxBuckets = 10'000'000;

enum Column {
  kDb, kGpu, kBucket, kBucketStart, kBucketEnd, kBusyNs, kUtilization,
  kArgBucketNs, kArgLo, kArgHi, kArgBuckets
};

// A member's rows: each gpu's buckets, gpu after gpu.
struct MemberBuckets {
  std::vector<GpuBusy> gpus;
  BucketGrid grid;      // the buckets of the job's grid this member reports
  BucketGrid job_grid;  // the query's grid
  // Busy time per bucket of gpu `cached` (rows are read in order: each gpu's is summed once).
  mutable size_t cached = SIZE_MAX;
  mutable std::vector<uint64_t> busy;

  size_t size() const { return gpus.size() * grid.count(); }
  size_t gpu_of(size_t row) const { return locate(row).first; }
  size_t bucket_row(size_t row) const { return locate(row).second; }
  uint64_t busy_at(size_t row) const {
    const auto [g, b] = locate(row);
    if (g != cached) {
      busy.assign(grid.count(), 0);
      add_to_buckets(gpus[g].busy, grid, busy);
      cached = g;
    }
    return busy[b];
  }
  void reset_cache() {
    cached = located_row = SIZE_MAX;
    busy.clear();
  }

 private:
  // The gpu and bucket of a row, kept for the row SQLite reads (several columns each).
  mutable size_t located_row = SIZE_MAX;
  mutable std::pair<size_t, size_t> located;
  const std::pair<size_t, size_t>& locate(size_t row) const {
    if (row != located_row) {
      located = {row / grid.count(), row % grid.count()};
      located_row = row;
    }
    return located;
  }
};

// The query's grid and the members' rows one member at a time (MemberRowsTable's Source).
class BucketSource {
 public:
  BucketSource(sqlite3* conn, OpsWindow& window) : conn_(conn), window_(window) {
    if (!plan_grid()) window.nothing = true;
  }
  void start(std::vector<MemberRef> dbs) {
    dbs_ = std::move(dbs);
    reader_.start(dbs_);
    next_ = 0;
    loaded_ = false;
  }
  bool next_batch() {
    loaded_ = next_ < dbs_.size();
    if (!loaded_) return false;
    current_ = next_++;
    const std::string& db = dbs_[current_].db;
    rows_.job_grid = job_grid_;
    rows_.grid = job_grid_;
    rows_.reset_cache();
    if (explicit_window_) {
      rows_.gpus = busy_of(db);
    } else {
      const auto span = clusters_.find(db);
      if (span != clusters_.end()) clip_to_cluster(db, span->second);
      rows_.gpus = span != clusters_.end() && rows_.grid.count() ? busy_of(db) : std::vector<GpuBusy>{};
    }
    return true;
  }
  size_t size() const { return loaded_ ? 1 : 0; }
  MemberBuckets& rows(size_t) { return rows_; }
  const MemberRef& member(size_t) const { return dbs_[current_]; }

 private:
  std::vector<GpuBusy> busy_of(const std::string& db) { return reader_.load(conn_, db, window_, kName); }

  // The buckets of the job's grid that overlap the cluster's span [first, last) (its events'
  // first start and last end; a span of instants only is the bucket holding them).
  void clip_to_cluster(const std::string& db, Interval span) {
    const BucketGrid& job_grid = job_grid_;
    BucketGrid& grid = rows_.grid;
    const Interval window_bounds{job_grid.bucket(job_grid.first).start, job_grid.bucket(job_grid.last).end};
    if (span.end < window_bounds.start || span.start >= window_bounds.end) {
      grid.last = grid.first - 1;  // no bucket
      return;
    }
    const int64_t last_time = span.end > span.start ? span.end - 1 : span.start;
    grid.first = std::max(job_grid.first, job_grid.index_of(span.start));
    grid.last = std::min(job_grid.last, job_grid.index_of(last_time));
    if (grid.count() > kMaxBuckets)
      throw Error(fmt::format("{}: member {}: {} buckets per gpu are too many (at most {}); use a wider bucket_ns",
                              kName, db, grid.count(), kMaxBuckets));
  }

  // Validates the arguments and lays out the grid; false when there is nothing to report.
  bool plan_grid() {
    OpsWindow& w = window_;
    if (w.bucket_ns && w.buckets)
      throw Error(fmt::format("{}: give either bucket_ns or buckets, not both", kName));
    if (!w.bucket_ns && !w.buckets)
      throw Error(fmt::format("{}: give the bucket width, rocpd_utilization(bucket_ns [, lo, hi]), "
                              "or the number of buckets, WHERE buckets = N",
                              kName));
    if (w.bucket_ns && *w.bucket_ns <= 0)
      throw Error(fmt::format("{}: bucket_ns must be a positive number of ns, got {}", kName, *w.bucket_ns));
    if (w.buckets && *w.buckets <= 0)
      throw Error(fmt::format("{}: buckets must be a positive count, got {}", kName, *w.buckets));
    if (w.arg_lo && w.arg_hi && *w.arg_hi <= *w.arg_lo)
      throw Error(fmt::format("{}: hi ({}) must be greater than lo ({})", kName, *w.arg_hi, *w.arg_lo));
    if (w.nothing) return false;
    int64_t lo = 0, hi = 0;
    explicit_window_ = w.arg_lo && w.arg_hi;
    if (!explicit_window_) {
      const auto job = job_range(conn_);
      if (!job) return false;  // no member has any event
      lo = w.arg_lo.value_or(job->start);
      hi = w.arg_hi.value_or(job->end);
    } else {
      lo = *w.arg_lo;
      hi = *w.arg_hi;
    }
    if (hi <= lo) return false;  // an empty job, or a lo after the job's end
    const uint64_t span = Interval{lo, hi}.length();
    BucketGrid& grid = job_grid_;
    grid = BucketGrid{};
    grid.origin = lo;
    grid.first = 0;
    grid.limit = hi;
    if (w.buckets) {
      const auto n = static_cast<uint64_t>(*w.buckets);
      if (n > kMaxBuckets)
        throw Error(fmt::format("{}: {} buckets per gpu are too many (at most {})", kName, n, kMaxBuckets));
      if (n > span)
        throw Error(fmt::format("{}: {} buckets cannot divide a window of {} ns (one ns at least per bucket)", kName,
                                n, span));
      grid.divisions = n;
      grid.last = static_cast<int64_t>(n) - 1;
    } else {
      const auto width = static_cast<uint64_t>(*w.bucket_ns);
      // Without a window, members' cluster spans are checked against kMaxBuckets
      // (clip_to_cluster): the job's span may be wide when members are on different hosts' clocks.
      const uint64_t count = span / width + (span % width != 0);
      if (explicit_window_ && count > kMaxBuckets)
        throw Error(fmt::format("{}: {} buckets per gpu are too many (at most {}); use a wider bucket_ns", kName,
                                count, kMaxBuckets));
      grid.width = width;
      grid.last = static_cast<int64_t>(std::min<uint64_t>(count, INT64_MAX)) - 1;
    }
    w.lo = lo;
    w.hi = hi;
    if (!explicit_window_) clusters_ = clock_clusters(conn_);
    return true;
  }

  sqlite3* conn_;
  OpsWindow& window_;
  BucketGrid job_grid_;                       // the query's grid
  std::map<std::string, Interval> clusters_;  // member -> span of its clock cluster
  bool explicit_window_ = false;              // lo and hi given: no clusters
  std::vector<MemberRef> dbs_;
  BusyReader reader_;  // members' busy lists a batch at a time, on every core
  MemberBuckets rows_;
  size_t next_ = 0, current_ = 0;
  bool loaded_ = false;
};

struct Def {
  static constexpr const char* kTableName = kName;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, bucket INTEGER, bucket_start INTEGER, bucket_end INTEGER, "
      "busy_ns INTEGER, utilization REAL, bucket_ns HIDDEN, lo HIDDEN, hi HIDDEN, buckets HIDDEN)";
  static constexpr WindowColumns kWindow{
      .db = kDb, .gpu = kGpu, .bucket_ns = kArgBucketNs, .lo = kArgLo, .hi = kArgHi, .buckets = kArgBuckets};
  using Rows = MemberBuckets;
  using Source = BucketSource;
  using RowState = RowNumbering;

  static void column(const Rows& rows, size_t row, const MemberRef&, const OpsWindow& w, sqlite3_context* ctx,
                     int col) {
    const int64_t bucket = rows.grid.first + static_cast<int64_t>(rows.bucket_row(row));
    const Interval b = rows.grid.bucket(bucket);
    switch (col) {
      case kGpu: rows.gpus[rows.gpu_of(row)].gpu.result(ctx); break;
      case kBucket: sqlite3_result_int64(ctx, bucket); break;
      case kBucketStart: sqlite3_result_int64(ctx, b.start); break;
      case kBucketEnd: sqlite3_result_int64(ctx, b.end); break;
      // Busy time in one bucket is at most its width, which came from an int64 (or from a span
      // divided into >= 1 buckets; a span over INT64_MAX ns needs > 1 bucket to fit).
      case kBusyNs: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(rows.busy_at(row))); break;
      case kUtilization:
        sqlite3_result_double(ctx, static_cast<double>(rows.busy_at(row)) / static_cast<double>(b.length()));
        break;
      case kArgBucketNs:
        if (!rows.grid.divisions) sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(rows.grid.width));
        break;
      case kArgLo: sqlite3_result_int64(ctx, w.lo); break;
      case kArgHi: sqlite3_result_int64(ctx, w.hi); break;
      case kArgBuckets: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(rows.job_grid.count())); break;
    }
  }

  static int64_t rowid(const Rows& rows, size_t row, const MemberRef& m, RowNumbering& numbering) {
    return numbering.rowid(m.ordinal, rows.gpus[rows.gpu_of(row)].gpu, rows.bucket_row(row), kName);
  }
};

}  // namespace

void register_utilization(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::intervals
