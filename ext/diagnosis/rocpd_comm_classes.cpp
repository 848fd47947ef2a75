// rocpd_comm_classes: eponymous-only virtual table holding, per member and gpu of rocpd_ops, the
// op counts and interval unions the rocpd_comm_overlap view derives its columns from
// (sql/views/60_rocpd_comm_overlap.sql, docs/diagnosis.md): compute_ops, comm_ops, and the union
// lengths compute_ns, comm_ns and both_ns (compute and comm together). Computed per member on
// every core from direct member reads, each distinct kernel name classified once.
// Pushdown: db = (members read); everything else is filtered by SQLite. Rowid: member ordinal in
// the high bits, the gpu's index within the member (gpu order) in the low 40.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/vtab_util.h"
#include "diagnosis/comm_class.h"
#include "diagnosis/diag_read.h"
#include "diagnosis/member_batches.h"
#include "diagnosis/sql_names.h"
#include "federation/member_columns.h"
#include "intervals/interval_math.h"

namespace rocpd::diagnosis {
namespace {

constexpr const char* kTable = "rocpd_comm_classes";
constexpr int kIndexBits = 40;

enum Column { kDb, kGpu, kComputeOps, kCommOps, kComputeNs, kCommNs, kBothNs };

struct GpuRow {
  GpuKey gpu;
  int64_t compute_ops = 0, comm_ops = 0;
  int64_t compute_ns = 0, comm_ns = 0, both_ns = 0;
};

// interval_union's reading of a start or end (intervals/sql_args.h int64_arg), with its errors:
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
    throw Error(fmt::format("interval_union: {} must be an integer (ns), got text '{:.40}'", what,
                            bytes.substr(0, bytes.find('\0'))));
  throw Error(fmt::format("interval_union: {} must be an integer (ns), got a blob", what));
}

int64_t union_ns(std::vector<intervals::Interval>& ivs) {
  const uint64_t length = intervals::union_length(ivs);
  if (length > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw Error(fmt::format("interval_union: the union is {} ns long, more than an integer holds (INT64_MAX = {})",
                            length, std::numeric_limits<int64_t>::max()));
  return static_cast<int64_t>(length);
}

std::vector<GpuRow> member_rows(const federation::Member& m, sqlite3* conn, const federation::InterruptWatch& watch) {
  using namespace federation;
  struct PerGpu {
    int64_t compute_ops = 0, comm_ops = 0;
    std::vector<intervals::Interval> compute, comm;
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
    std::vector<intervals::Interval> both = std::move(g.compute);
    both.insert(both.end(), g.comm.begin(), g.comm.end());
    g.comm = {};
    r.both_ns = union_ns(both);
    out.push_back(std::move(r));
  }
  return out;
}

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  std::unique_ptr<MemberBatches<std::vector<GpuRow>>> batches;
  size_t member = 0, row = 0;
  bool eof = true;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  void settle() {
    for (;;) {
      while (member < batches->size() && row >= batches->rows(member).size()) {
        ++member;
        row = 0;
      }
      if (member < batches->size()) {
        eof = false;
        return;
      }
      member = row = 0;
      if (!batches->next_batch()) {
        eof = true;
        return;
      }
    }
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(db,
                                  "CREATE TABLE x(db TEXT, gpu INTEGER, compute_ops INTEGER, comm_ops INTEGER, "
                                  "compute_ns INTEGER, comm_ns INTEGER, both_ns INTEGER)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return plan(info, PlanColumns{.db = kDb}, 1e6); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const Selection sel = decode(kTable, idx_str, argc, argv);
    c->batches = std::make_unique<MemberBatches<std::vector<GpuRow>>>(c->table().conn, kTable, member_rows);
    c->batches->start(sel.nothing ? std::vector<MemberRef>{} : intervals::member_dbs(c->table().conn, sel.db));
    c->member = c->row = 0;
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
  const GpuRow& r = c->batches->rows(c->member)[c->row];
  switch (col) {
    case kDb: {
      const std::string& db = c->batches->member(c->member).db;
      sqlite3_result_text(ctx, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
      break;
    }
    case kGpu: r.gpu.result(ctx); break;
    case kComputeOps: sqlite3_result_int64(ctx, r.compute_ops); break;
    case kCommOps: sqlite3_result_int64(ctx, r.comm_ops); break;
    case kComputeNs: sqlite3_result_int64(ctx, r.compute_ns); break;
    case kCommNs: sqlite3_result_int64(ctx, r.comm_ns); break;
    case kBothNs: sqlite3_result_int64(ctx, r.both_ns); break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const int64_t ordinal = c->batches->member(c->member).ordinal;
    if (ordinal < 0 || ordinal >= (int64_t{1} << (62 - kIndexBits)))
      throw Error(fmt::format("{}: member ordinal {} cannot be numbered in rowids", kTable, ordinal));
    *out = (ordinal << kIndexBits) | static_cast<int64_t>(c->row);
    return SQLITE_OK;
  });
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xConnect = connect;
  m.xBestIndex = best_index;
  m.xDisconnect = vtab_disconnect<Table>;
  m.xOpen = vtab_open<Cursor>;
  m.xClose = vtab_close<Cursor>;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  return m;
}
const sqlite3_module kModule = make_module();

}  // namespace

void register_comm_classes(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
