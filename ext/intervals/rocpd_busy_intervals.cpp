// rocpd_busy_intervals([lo, hi [, kind]]) and rocpd_gaps([lo, hi [, kind]]): eponymous-only virtual
// tables listing, per db and gpu, the merged busy intervals of the ops in rocpd_ops and the idle
// gaps between them.
//   columns: db, gpu, start, "end", duration, HIDDEN lo, hi (the clipping window), kind
// With lo/hi, busy time is clipped to [lo, hi) first (an interval crossing an edge is cut there).
// With kind ('kernel', 'kernel,CopyDeviceToDevice': comma-separated kinds or op names), only the
// ops whose kind or name is listed are busy time (raptor's idle time without host copies is
// rocpd_gaps(NULL, NULL, 'kernel,CopyDeviceToDevice')).
// Constraints on start/end filter like on a plain table; `db =`, `gpu =` and the bounds of
// ops_window.h are pushed into the rocpd_ops query (idxNum/idxStr: see ops_window.h).
// Rowids: the member's ordinal, the gpu's slot and the row's index (ops_window.h RowNumbering).
//
// HOW IT WORKS: analysis/member_rows_table.h with the ops window's plan (kWindow); the rows of a
// member are its gpus' lists one after the other, read a member at a time by IntervalSource from
// the members' busy lists (BusyReader: a batch of members on every core through the summary engine).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "analysis/member_rows_table.h"
#include "analysis/ops_window.h"
#include "intervals/register.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

enum Column { kDb, kGpu, kStart, kEnd, kDuration, kArgLo, kArgHi, kArgKind };

// A member's rows: each gpu's busy intervals (or the gaps between them), gpu after gpu.
struct MemberIntervals {
  std::vector<GpuBusy> gpus;  // for rocpd_gaps, each list replaced by its gaps
  std::vector<size_t> ends;   // rows up to the end of each gpu's list
  size_t size() const { return ends.empty() ? 0 : ends.back(); }
  // The gpu of row r and the row's index within that gpu's list.
  std::pair<size_t, size_t> at(size_t r) const {
    const auto g = static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), r) - ends.begin());
    return {g, r - (g ? ends[g - 1] : 0)};
  }
};

// The members' rows one member at a time (MemberRowsTable's Source).
template <bool kGaps>
class IntervalSource {
 public:
  static constexpr const char* kName = kGaps ? "rocpd_gaps" : "rocpd_busy_intervals";

  IntervalSource(sqlite3* conn, OpsWindow& window) : conn_(conn), window_(window) {}
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
    rows_.gpus = reader_.load(conn_, dbs_[current_].db, window_, kName);
    rows_.ends.clear();
    size_t n = 0;
    for (GpuBusy& g : rows_.gpus) {
      if constexpr (kGaps) g.busy = gaps(g.busy);
      n += g.busy.size();
      rows_.ends.push_back(n);
    }
    return true;
  }
  size_t size() const { return loaded_ ? 1 : 0; }
  MemberIntervals& rows(size_t) { return rows_; }
  const MemberRef& member(size_t) const { return dbs_[current_]; }

 private:
  sqlite3* conn_;
  const OpsWindow& window_;
  std::vector<MemberRef> dbs_;
  BusyReader reader_;  // members' busy lists a batch at a time, on every core
  MemberIntervals rows_;
  size_t next_ = 0, current_ = 0;
  bool loaded_ = false;
};

template <bool kGaps>
struct Def {
  static constexpr const char* kTableName = IntervalSource<kGaps>::kName;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, start INTEGER, \"end\" INTEGER, duration INTEGER, lo HIDDEN, hi HIDDEN, "
      "kind HIDDEN)";
  static constexpr WindowColumns kWindow{.db = kDb, .gpu = kGpu, .lo = kArgLo, .hi = kArgHi, .kind = kArgKind};
  using Rows = MemberIntervals;
  using Source = IntervalSource<kGaps>;
  using RowState = RowNumbering;

  static void check(const OpsWindow& w) {
    if (w.arg_lo && w.arg_hi && *w.arg_hi <= *w.arg_lo)
      throw Error(fmt::format("{}: hi ({}) must be greater than lo ({})", kTableName, *w.arg_hi, *w.arg_lo));
  }

  static void column(const Rows& rows, size_t row, const MemberRef&, const OpsWindow& w, sqlite3_context* ctx,
                     int col) {
    const auto [g, index] = rows.at(row);
    const Interval& iv = rows.gpus[g].busy[index];
    switch (col) {
      case kGpu: rows.gpus[g].gpu.result(ctx); break;
      case kStart: sqlite3_result_int64(ctx, iv.start); break;
      case kEnd: sqlite3_result_int64(ctx, iv.end); break;
      case kDuration:
        // A single interval longer than INT64_MAX needs values near both int64 limits: report it as real.
        if (iv.length() > static_cast<uint64_t>(kNoHi)) sqlite3_result_double(ctx, static_cast<double>(iv.length()));
        else sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(iv.length()));
        break;
      case kArgLo:
        if (w.arg_lo) sqlite3_result_int64(ctx, *w.arg_lo);
        break;
      case kArgHi:
        if (w.arg_hi) sqlite3_result_int64(ctx, *w.arg_hi);
        break;
      case kArgKind:
        if (w.kind) sqlite3_result_text(ctx, w.kind->data(), static_cast<int>(w.kind->size()), SQLITE_TRANSIENT);
        break;
    }
  }

  static int64_t rowid(const Rows& rows, size_t row, const MemberRef& m, RowNumbering& numbering) {
    const auto [g, index] = rows.at(row);
    return numbering.rowid(m.ordinal, rows.gpus[g].gpu, index, kTableName);
  }
};

}  // namespace

void register_busy_interval_tables(sqlite3* db) {
  MemberRowsTable<Def<false>>::register_module(db);
  MemberRowsTable<Def<true>>::register_module(db);
}

}  // namespace rocpd::intervals
