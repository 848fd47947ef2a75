// rocpd_comm_classes: eponymous-only virtual table holding, per member and gpu of rocpd_ops, the
// op counts and interval unions the rocpd_comm_overlap view derives its columns from
// (sql/views/60_rocpd_comm_overlap.sql, docs/diagnosis.md): compute_ops, comm_ops, and the union
// lengths compute_ns, comm_ns and both_ns (compute and comm together). Computed per member on
// every core from direct member reads, each distinct kernel name classified once.
// Pushdown and module: analysis/member_rows_table.h. Rowid: member_row_id (the gpu's index within
// the member, in gpu order).
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <vector>

#include "analysis/comm_class.h"
#include "common/terminal_text.h"
#include "analysis/member_read.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/register.h"
#include "members/member_columns.h"
#include "common/interval_math.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_comm_classes";

enum Column { kDb, kGpu, kComputeOps, kCommOps, kComputeNs, kCommNs, kBothNs };

struct GpuRow {
  GpuKey gpu;
  int64_t compute_ops = 0, comm_ops = 0;
  int64_t compute_ns = 0, comm_ns = 0, both_ns = 0;
};

// interval_union's reading of a start or end (analysis/sql_args.h int64_arg), with its errors:
// the view passed the values to interval_union.
std::optional<int64_t> union_time(const StoredValue& v, const char* what) {
  if (v.type == SQLITE_INTEGER) return v.i;
  if (v.type == SQLITE_NULL) return std::nullopt;
  if (v.type == SQLITE_FLOAT) {
    if (std::isfinite(v.d) && v.d == std::floor(v.d) && v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0)
      return static_cast<int64_t>(v.d);
    throw Error(fmt::format("interval_union: {} must be an integer (ns), got real {}", what, v.d));
  }
  const std::string bytes(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
  if (v.type == SQLITE_TEXT)
    throw Error(fmt::format("interval_union: {} must be an integer (ns), got text {}", what, quoted_text(bytes)));
  throw Error(fmt::format("interval_union: {} must be an integer (ns), got a blob", what));
}

int64_t union_ns(std::vector<Interval>& ivs) {
  const uint64_t length = union_length(ivs);
  if (length > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw Error(fmt::format("interval_union: the union is {} ns long, more than an integer holds (INT64_MAX = {})",
                            length, std::numeric_limits<int64_t>::max()));
  return static_cast<int64_t>(length);
}

std::vector<GpuRow> member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  using namespace canonical;
  using namespace members;
  struct PerGpu {
    int64_t compute_ops = 0, comm_ops = 0;
    std::vector<Interval> compute, comm;
  };
  std::map<GpuKey, PerGpu> gpus;
  std::unordered_map<int64_t, CommClass> by_token;  // kernel names read by key: classified once each
  MemberColumns ops(m, conn, TableKind::Ops, {kOpsGpu, kOpsKind, kOpsName, kOpsStart, kOpsEnd});
  uint64_t read = 0;
  PerGpu* last = nullptr;  // ops of one gpu come in runs: skip the map lookup for integer gpus
  int64_t last_gpu = 0;
  while (ops.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
    const StoredValue gpu = ops[0];
    PerGpu* g = nullptr;
    if (last && gpu.type == SQLITE_INTEGER && gpu.i == last_gpu) {
      g = last;
    } else {
      g = &gpus[value_key(gpu)];
      last = gpu.type == SQLITE_INTEGER ? g : nullptr;
      last_gpu = gpu.i;
    }
    CommClass cls = kind_class(ops[1]);
    if (cls == CommClass::None) continue;
    if (cls == CommClass::Compute) {  // a kernel: its name decides
      const StoredValue name = ops[2];
      const int64_t token = ops.name_token();
      if (token < 0) {
        cls = kernel_class(name);
      } else {
        auto [it, added] = by_token.try_emplace(token, CommClass::None);
        if (added) it->second = kernel_class(name);
        cls = it->second;
      }
    }
    (cls == CommClass::Comm ? g->comm_ops : g->compute_ops)++;
    const auto start = union_time(ops[3], "start");
    const auto end = union_time(ops[4], "end");
    if (!start || !end || *end <= *start) continue;  // covers nothing, as in interval_union
    (cls == CommClass::Comm ? g->comm : g->compute).push_back({*start, *end});
  }
  std::vector<GpuRow> out;
  for (auto& [key, g] : gpus) {
    if (watch.stopped()) InterruptWatch::raise();
    GpuRow r;
    r.gpu = key;
    r.compute_ops = g.compute_ops;
    r.comm_ops = g.comm_ops;
    r.compute_ns = union_ns(g.compute);
    r.comm_ns = union_ns(g.comm);
    std::vector<Interval> both = std::move(g.compute);
    both.insert(both.end(), g.comm.begin(), g.comm.end());
    g.comm = {};
    r.both_ns = union_ns(both);
    out.push_back(std::move(r));
  }
  return out;
}

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, compute_ops INTEGER, comm_ops INTEGER, compute_ns INTEGER, "
      "comm_ns INTEGER, both_ns INTEGER)";
  using Rows = std::vector<GpuRow>;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const GpuRow& r = rows[row];
    switch (col) {
      case kGpu: r.gpu.result(ctx); break;
      case kComputeOps: sqlite3_result_int64(ctx, r.compute_ops); break;
      case kCommOps: sqlite3_result_int64(ctx, r.comm_ops); break;
      case kComputeNs: sqlite3_result_int64(ctx, r.compute_ns); break;
      case kCommNs: sqlite3_result_int64(ctx, r.comm_ns); break;
      case kBothNs: sqlite3_result_int64(ctx, r.both_ns); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_comm_classes(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
