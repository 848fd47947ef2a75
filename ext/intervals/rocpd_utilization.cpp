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
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>

#include "common/vtab_util.h"
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
constexpr WindowColumns kColumns{
    .db = kDb, .gpu = kGpu, .bucket_ns = kArgBucketNs, .lo = kArgLo, .hi = kArgHi, .buckets = kArgBuckets};

using Table = ConnVtab;

struct Cursor : sqlite3_vtab_cursor {
  OpsWindow window;
  BucketGrid job_grid;  // the query's grid
  BucketGrid grid;      // its buckets within the current member's cluster
  std::map<std::string, Interval> clusters;  // member -> span of its clock cluster
  bool explicit_window = false;              // lo and hi given: no clusters
  std::vector<MemberRef> dbs;
  RowNumbering numbering;
  size_t next_db = 0;
  std::vector<GpuBusy> gpus;
  size_t next_gpu = 0;
  std::vector<uint64_t> busy;  // per bucket of gpus[next_gpu - 1]
  BusyReader reader;  // members' busy lists a batch at a time, on every core
  size_t row = 0;
  bool eof = true;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  const std::string& db() const { return dbs[next_db - 1].db; }
  const GpuBusy& gpu() const { return gpus[next_gpu - 1]; }
  int64_t bucket_index() const { return grid.first + static_cast<int64_t>(row); }

  void settle() {
    while (row >= busy.size()) {
      if (next_gpu < gpus.size()) {
        busy.assign(grid.count(), 0);
        add_to_buckets(gpus[next_gpu].busy, grid, busy);
        ++next_gpu;
        row = 0;
        continue;
      }
      if (next_db >= dbs.size()) {
        eof = true;
        return;
      }
      const std::string& db = dbs[next_db].db;
      const auto span = clusters.find(db);
      grid = job_grid;
      if (explicit_window) {
        gpus = busy_of(db);
      } else {
        if (span != clusters.end()) clip_to_cluster(db, span->second);
        gpus = span != clusters.end() && grid.count() ? busy_of(db) : std::vector<GpuBusy>{};
      }
      ++next_db;
      next_gpu = 0;
      busy.clear();
      row = 0;
    }
  }

  std::vector<GpuBusy> busy_of(const std::string& db) { return reader.load(table().conn, db, window, kName); }

  // The buckets of the job's grid that overlap the cluster's span [first, last) (its events'
  // first start and last end; a span of instants only is the bucket holding them).
  void clip_to_cluster(const std::string& db, Interval span) {
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
    auto& w = window;
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
    explicit_window = w.arg_lo && w.arg_hi;
    if (!explicit_window) {
      const auto job = job_range(table().conn);
      if (!job) return false;  // no member has any event
      lo = w.arg_lo.value_or(job->start);
      hi = w.arg_hi.value_or(job->end);
    } else {
      lo = *w.arg_lo;
      hi = *w.arg_hi;
    }
    if (hi <= lo) return false;  // an empty job, or a lo after the job's end
    const uint64_t span = Interval{lo, hi}.length();
    BucketGrid& grid = job_grid;
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
      if (explicit_window && count > kMaxBuckets)
        throw Error(fmt::format("{}: {} buckets per gpu are too many (at most {}); use a wider bucket_ns", kName,
                                count, kMaxBuckets));
      grid.width = width;
      grid.last = static_cast<int64_t>(std::min<uint64_t>(count, INT64_MAX)) - 1;
    }
    w.lo = lo;
    w.hi = hi;
    if (!explicit_window) clusters = clock_clusters(table().conn);
    return true;
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return connect_direct_only(
      db,
      "CREATE TABLE x(db TEXT, gpu INTEGER, bucket INTEGER, bucket_start INTEGER, bucket_end INTEGER, "
      "busy_ns INTEGER, utilization REAL, bucket_ns HIDDEN, lo HIDDEN, hi HIDDEN, buckets HIDDEN)",
      out, err);
}

int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return plan_constraints(info, kColumns); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    c->window = decode_constraints(kName, idx_str, argc, argv);
    c->next_db = c->next_gpu = c->row = 0;
    c->gpus.clear();
    c->busy.clear();
    c->eof = false;
    c->dbs = c->plan_grid() ? query_members(c->table().conn, c->window.db) : std::vector<MemberRef>{};
    c->reader.start(c->dbs);
    c->settle();
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    ++c->row;
    c->settle();
    return SQLITE_OK;
  });
}

int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const Interval b = c->grid.bucket(c->bucket_index());
  const uint64_t busy = c->busy[c->row];
  switch (col) {
    case kDb: sqlite3_result_text(ctx, c->db().data(), static_cast<int>(c->db().size()), SQLITE_TRANSIENT); break;
    case kGpu:
      c->gpu().gpu.result(ctx);
      break;
    case kBucket: sqlite3_result_int64(ctx, c->bucket_index()); break;
    case kBucketStart: sqlite3_result_int64(ctx, b.start); break;
    case kBucketEnd: sqlite3_result_int64(ctx, b.end); break;
    // Busy time in one bucket is at most its width, which came from an int64 (or from a span
    // divided into >= 1 buckets; a span over INT64_MAX ns needs > 1 bucket to fit).
    case kBusyNs: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(busy)); break;
    case kUtilization:
      sqlite3_result_double(ctx, static_cast<double>(busy) / static_cast<double>(b.length()));
      break;
    case kArgBucketNs:
      if (!c->grid.divisions) sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(c->grid.width));
      break;
    case kArgLo: sqlite3_result_int64(ctx, c->window.lo); break;
    case kArgHi: sqlite3_result_int64(ctx, c->window.hi); break;
    case kArgBuckets: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(c->job_grid.count())); break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    *out = c->numbering.rowid(c->dbs[c->next_db - 1].ordinal, c->gpu().gpu, c->row, kName);
    return SQLITE_OK;
  });
}

sqlite3_module make_module() { return read_only_module<Cursor>(connect, best_index, filter, next, eof, column, rowid); }
const sqlite3_module kModule = make_module();

}  // namespace

void register_utilization(sqlite3* db) {
  int rc = sqlite3_create_module(db, kName, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kName, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::intervals
