// rocpd_time_breakdown([pattern]): eponymous-only virtual table. Where each gpu's time goes, per
// member and gpu (step NULL: from the gpu's first op start to its last op end) and per step of the
// processes that launched the gpu's ops (rocpd_steps' ranges, ops clipped to the step): unions of
// compute kernels, communication kernels (rocpd_comm_classes' test), copies and fills, other ops,
// their overlaps, busy and idle time, and their shares of the span (docs/diagnosis.md).
// Computed per member on every core from one read of its ops and one of its marker ranges.
// Pushdown and module: analysis/member_rows_table.h (db =, gpu = and the pattern argument).
// Rowids: member ordinal, gpu slot, row index within the gpu (0 for the whole gpu, 1.. for its
// steps), as ops_window.h's RowNumbering: unchanged by a gpu constraint.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/comm_class.h"
#include "analysis/member_read.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/register.h"
#include "analysis/step_ranges.h"
#include "common/interval_math.h"
#include "members/member_columns.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {


constexpr const char* kTable = "rocpd_time_breakdown";

enum Column {
  kDb, kGpu, kPid, kStep, kName, kStart, kEnd, kSpan, kBusy, kCompute, kComm, kCopy, kOther, kOverlap, kCopyOverlap,
  kIdle, kBusyPct, kComputePct, kCommPct, kCopyPct, kOtherPct, kOverlapPct, kIdlePct, kPattern
};

// What an op counts as: kernels by rocpd_comm_classes' name test, copies and fills together, and
// every other kind (barriers, 'other', NULL) as other: busy, but none of the three.
enum Class { kComputeClass, kCommClass, kCopyClass, kOtherClass, kClasses };

Class op_class(const StoredValue& kind) {
  if (kind.type != SQLITE_TEXT) return kOtherClass;
  const std::string_view k(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length));
  if (k == "kernel") return kComputeClass;  // refined by its name
  if (k == "copy" || k == "fill") return kCopyClass;
  return kOtherClass;
}

// The figures of one row: lengths of unions within the row's span.
struct Figures {
  uint64_t busy = 0, cls[kClasses] = {}, overlap = 0, copy_overlap = 0;
};

struct Row {
  GpuKey gpu, pid;  // pid: the step's process (NULL in the whole-gpu row)
  bool whole = true;
  int64_t step = 0;
  std::string name;
  std::optional<int64_t> start, end;  // the span's ends (NULL: no op with a start and an end)
  Figures f;
  uint64_t index = 0;  // within the gpu
};

struct Rows {
  std::vector<Row> rows;
  mutable analysis::RowNumbering numbering;
  size_t size() const { return rows.size(); }
};

// A gpu's merged busy lists, the figures of any window cut from them.
struct GpuLists {
  std::vector<Interval> cls[kClasses], compute_comm, compute_copy, busy;

  Figures within(int64_t lo, int64_t hi) const {
    Figures f;
    for (int c = 0; c < kClasses; ++c) f.cls[c] = clipped_length(cls[c], lo, hi);
    f.busy = clipped_length(busy, lo, hi);
    // |A ∩ B| = |A| - (|A ∪ B| - |B|): no sum that could wrap.
    f.overlap = f.cls[kComputeClass] - (clipped_length(compute_comm, lo, hi) - f.cls[kCommClass]);
    f.copy_overlap = f.cls[kComputeClass] - (clipped_length(compute_copy, lo, hi) - f.cls[kCopyClass]);
    return f;
  }
};

std::vector<Interval> merged_of(std::initializer_list<const std::vector<Interval>*> parts) {
  std::vector<Interval> all;
  for (const auto* p : parts) all.insert(all.end(), p->begin(), p->end());
  return merge(all);
}

Rows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                 const Selection& sel) {
  using namespace canonical;
  using namespace members;
  struct PerGpu {
    std::vector<Interval> raw[kClasses];
    std::vector<GpuKey> pids;  // distinct, of the gpu's ops
    std::optional<int64_t> first_start, last_end;
  };
  std::map<GpuKey, PerGpu> gpus;
  std::unordered_map<int64_t, Class> by_token;  // kernel names read by key: classified once each
  MemberColumns ops(m, conn, TableKind::Ops, {kOpsGpu, kOpsKind, kOpsName, kOpsPid, kOpsStart, kOpsEnd});
  uint64_t read = 0;
  PerGpu* last = nullptr;  // ops of one gpu come in runs: skip the map lookup for integer gpus
  int64_t last_gpu = 0;
  while (ops.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
    const StoredValue gpu = ops[0];
    if (sel.gpu && !equals_int(gpu, *sel.gpu)) continue;  // SQLite re-checks gpu =
    PerGpu* g = nullptr;
    if (last && gpu.type == SQLITE_INTEGER && gpu.i == last_gpu) {
      g = last;
    } else {
      g = &gpus[value_key(gpu)];
      last = gpu.type == SQLITE_INTEGER ? g : nullptr;
      last_gpu = gpu.i;
    }
    const StoredValue pid = ops[3];
    const bool known_pid = !g->pids.empty() && pid.type == SQLITE_INTEGER && g->pids.back().type == SQLITE_INTEGER &&
                           g->pids.back().i == pid.i;
    if (!known_pid && pid.type != SQLITE_NULL) {
      GpuKey key = value_key(pid);
      if (std::find(g->pids.begin(), g->pids.end(), key) == g->pids.end()) g->pids.push_back(std::move(key));
    }
    Class cls = op_class(ops[1]);
    if (cls == kComputeClass) {  // a kernel: its name decides
      const StoredValue name = ops[2];
      const int64_t token = ops.name_token();  // valid after the name's read
      const auto of_name = [&] { return kernel_class(name) == CommClass::Comm ? kCommClass : kComputeClass; };
      if (token < 0) {
        cls = of_name();
      } else {
        auto [it, added] = by_token.try_emplace(token, kComputeClass);
        if (added) it->second = of_name();
        cls = it->second;
      }
    }
    const auto start = time_value(ops[4], kTable, m.alias, "start");
    const auto end = time_value(ops[5], kTable, m.alias, "end");
    if (!start || !end || *end < *start) continue;  // no span, as rocpd_busy
    g->first_start = g->first_start ? std::min(*g->first_start, *start) : *start;
    g->last_end = g->last_end ? std::max(*g->last_end, *end) : *end;
    if (*end > *start) g->raw[cls].push_back({*start, *end});
  }
  Rows out;
  if (gpus.empty()) return out;
  const auto steps = read_step_ranges(m, conn, watch, sel.pattern.value_or(kDefaultStepPattern), kTable);  // set in filter
  for (auto& [key, g] : gpus) {
    if (watch.stopped()) InterruptWatch::raise();
    GpuLists lists;
    for (int c = 0; c < kClasses; ++c) lists.cls[c] = merge(g.raw[c]);
    for (auto& raw : g.raw) raw = {};
    lists.compute_comm = merged_of({&lists.cls[kComputeClass], &lists.cls[kCommClass]});
    lists.compute_copy = merged_of({&lists.cls[kComputeClass], &lists.cls[kCopyClass]});
    lists.busy = merged_of({&lists.compute_comm, &lists.cls[kCopyClass], &lists.cls[kOtherClass]});
    Row whole;
    whole.gpu = key;
    whole.start = g.first_start;
    whole.end = g.last_end;
    whole.f = lists.within(kNoLo, kNoHi);
    out.rows.push_back(std::move(whole));
    uint64_t index = 0;
    std::sort(g.pids.begin(), g.pids.end());
    for (const GpuKey& pid : g.pids) {
      auto it = steps.find(pid);
      if (it == steps.end()) continue;
      for (size_t k = 0; k < it->second.size(); ++k) {
        const StepRange& s = it->second[k];
        Row r;
        r.gpu = key;
        r.pid = pid;
        r.whole = false;
        r.step = static_cast<int64_t>(k);
        r.name = s.name;
        r.start = s.start;
        r.end = s.end;
        r.f = lists.within(s.start, s.end);
        r.index = ++index;
        out.rows.push_back(std::move(r));
      }
    }
  }
  return out;
}

// A length as an integer; only a span over both halves of the int64 range is longer than one
// holds, and is reported as a real (as SQL's last_end - first_start would be).
void result_length(sqlite3_context* ctx, uint64_t length) {
  if (length > static_cast<uint64_t>(INT64_MAX)) sqlite3_result_double(ctx, static_cast<double>(length));
  else sqlite3_result_int64(ctx, static_cast<int64_t>(length));
}

// 100.0 * part / span as SQL computes it, at full precision (tables do not round: docs/views.md);
// NULL without a span.
void result_pct(sqlite3_context* ctx, uint64_t part, std::optional<uint64_t> span) {
  if (!span || *span == 0) return;
  sqlite3_result_double(ctx, 100.0 * static_cast<double>(part) / static_cast<double>(*span));
}

struct Def {
  using Rows = diagnosis::Rows;
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, pid INTEGER, step INTEGER, name TEXT, start INTEGER, \"end\" INTEGER, "
      "span_ns INTEGER, busy_ns INTEGER, compute_ns INTEGER, comm_ns INTEGER, copy_ns INTEGER, other_ns INTEGER, "
      "overlap_ns INTEGER, copy_overlap_ns INTEGER, idle_ns INTEGER, busy_pct REAL, compute_pct REAL, comm_pct REAL, "
      "copy_pct REAL, other_pct REAL, overlap_pct REAL, idle_pct REAL, pattern HIDDEN)";
  static constexpr PlanColumns kPlan{.db = kDb, .gpu = kGpu, .pattern = kPattern};
  // Rows are a few per gpu and step: more members per batch, fewer barriers.
  static constexpr size_t kBatchPerCore = 8;

  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                      const Selection& sel) {
    return member_rows(m, conn, watch, sel);
  }

  static void column(const Rows& rows, size_t row, const MemberRef&, const Selection& sel, sqlite3_context* ctx,
                     int col) {
    const Row& r = rows.rows[row];
    std::optional<uint64_t> span;
    if (r.start && r.end) span = static_cast<uint64_t>(*r.end) - static_cast<uint64_t>(*r.start);
    const Figures& f = r.f;
    switch (col) {
      case kGpu: r.gpu.result(ctx); break;
      case kPid:
        if (!r.whole) r.pid.result(ctx);
        break;
      case kStep:
        if (!r.whole) sqlite3_result_int64(ctx, r.step);
        break;
      case kName:
        if (!r.whole) sqlite3_result_text(ctx, r.name.data(), static_cast<int>(r.name.size()), SQLITE_TRANSIENT);
        break;
      case kStart:
        if (r.start) sqlite3_result_int64(ctx, *r.start);
        break;
      case kEnd:
        if (r.end) sqlite3_result_int64(ctx, *r.end);
        break;
      case kSpan:
        if (span) result_length(ctx, *span);
        break;
      case kBusy: result_length(ctx, f.busy); break;
      case kCompute: result_length(ctx, f.cls[kComputeClass]); break;
      case kComm: result_length(ctx, f.cls[kCommClass]); break;
      case kCopy: result_length(ctx, f.cls[kCopyClass]); break;
      case kOther: result_length(ctx, f.cls[kOtherClass]); break;
      case kOverlap: result_length(ctx, f.overlap); break;
      case kCopyOverlap: result_length(ctx, f.copy_overlap); break;
      case kIdle:
        if (span) result_length(ctx, *span - f.busy);
        break;
      case kBusyPct: result_pct(ctx, f.busy, span); break;
      case kComputePct: result_pct(ctx, f.cls[kComputeClass], span); break;
      case kCommPct: result_pct(ctx, f.cls[kCommClass], span); break;
      case kCopyPct: result_pct(ctx, f.cls[kCopyClass], span); break;
      case kOtherPct: result_pct(ctx, f.cls[kOtherClass], span); break;
      case kOverlapPct: result_pct(ctx, f.overlap, span); break;
      case kIdlePct:
        if (span) result_pct(ctx, *span - f.busy, span);
        break;
      case kPattern:
        if (sel.pattern) sqlite3_result_text(ctx, sel.pattern->data(), static_cast<int>(sel.pattern->size()), SQLITE_TRANSIENT);
        else sqlite3_result_text(ctx, kDefaultStepPattern, -1, SQLITE_STATIC);
        break;
    }
  }

  static int64_t rowid(const Rows& rows, size_t row, const MemberRef& m) {
    const Row& r = rows.rows[row];
    return rows.numbering.rowid(m.ordinal, r.gpu, r.index, kTable);
  }
};

}  // namespace

void register_time_breakdown(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
