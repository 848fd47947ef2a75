// rocpd_launch_delay_groups: eponymous-only virtual table, per member and gpu, the launch delays of
// its kernels as rocpd_op_launches gives them (start - launch_end of the kernels with a launch, a
// start and a launch end): how many, their median, 99th percentile (as percentile(x, 50) and
// percentile(x, 99)) and largest. Each member's kernels and launch calls are read straight from
// the member on every core (the launch rule of docs/diagnosis.md), without the op and call columns
// rocpd_op_launches also carries, so that rocpd_anomalies can tell which members can hold a
// launch-delay outlier before it reads their rows (docs/anomalies.md).
// `inexact` counts the kernels whose delay is not the difference of two integers (a gpu, start or
// end of another type, or an overflow): their member's figures are not those of the SQL, and
// rocpd_anomalies reads that member's rows. Pushdown: db = (analysis/member_rows_table.h).
#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/member_read.h"
#include "analysis/member_rows_table.h"
#include "analysis/ops_window.h"
#include "common/big_alloc.h"
#include "diagnosis/register.h"
#include "members/member_columns.h"
#include "stats/percentile_select.h"
#include "stats/stats_args.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_launch_delay_groups";

enum Column { kDb, kGpu, kDelays, kMed, kP99, kMax, kInexact };

struct Group {
  GpuKey gpu;
  int64_t delays = 0, max = 0, inexact = 0;
  std::optional<stats::Number> med, p99;
};

struct MemberRows {
  std::vector<Group> groups;
  size_t size() const { return groups.size(); }
};

struct EndCall {
  bool found = false;
  int64_t start = 0, api_id = 0;
  int end_type = SQLITE_NULL;
  int64_t end = 0;
};

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  using namespace canonical;
  using namespace members;
  struct Kernel {
    int64_t corr, start;
    int start_type;
    uint32_t gpu;  // index into keys
  };
  BigVector<Kernel> kernels;
  BigVector<int64_t> corrs;
  std::vector<GpuKey> keys;
  std::map<GpuKey, uint32_t> key_index;
  uint64_t read = 0;
  {
    MemberColumns ops(m, conn, TableKind::Ops, {kOpsKind, kOpsGpu, kOpsStart, kOpsCorrelationId}, nullptr,
                      std::pair<int, std::string>{kOpsKind, "kernel"});
    std::optional<int64_t> last_gpu;  // the key of the previous row's integer gpu, most rows repeat it
    uint32_t last_index = 0;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue kind = ops[0];
      if (kind.type != SQLITE_TEXT ||
          std::string_view(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length)) != "kernel")
        continue;
      const StoredValue corr = ops[3], start = ops[2], gpu = ops[1];
      if (corr.type != SQLITE_INTEGER || start.type == SQLITE_NULL) continue;  // no launch, or no delay
      uint32_t index;
      if (gpu.type == SQLITE_INTEGER && last_gpu == gpu.i) {
        index = last_index;
      } else {
        GpuKey key = value_key(gpu);
        auto [it, added] = key_index.try_emplace(key, static_cast<uint32_t>(keys.size()));
        if (added) keys.push_back(std::move(key));
        index = it->second;
        if (gpu.type == SQLITE_INTEGER) {
          last_gpu = gpu.i;
          last_index = index;
        }
      }
      kernels.push_back({corr.i, start.type == SQLITE_INTEGER ? start.i : 0, start.type, index});
      corrs.push_back(corr.i);
    }
  }
  CorrSlots wanted;
  wanted.assign(corrs);
  corrs = {};
  BigVector<EndCall> calls(wanted.size());
  if (wanted.size() > 0) {
    MemberColumns apis(m, conn, TableKind::Apis, {kApisCorrelationId, kApisStart, kApisEnd, kApisApiId}, nullptr,
                       std::nullopt, {}, nullptr, true);
    scan_best_launches(
        apis, wanted, calls, kTable, m.alias,
        [&](EndCall& c, int64_t) {
          const StoredValue end = apis[2];
          c.end_type = end.type;
          c.end = end.type == SQLITE_INTEGER ? end.i : 0;
        },
        &watch);
  }
  std::vector<std::vector<int64_t>> values(keys.size());
  MemberRows out;
  out.groups.resize(keys.size());
  for (const Kernel& k : kernels) {
    const EndCall& c = calls[static_cast<size_t>(wanted.find(k.corr))];
    if (!c.found || c.end_type == SQLITE_NULL) continue;
    Group& g = out.groups[k.gpu];
    int64_t delay = 0;
    const GpuKey& gpu = keys[k.gpu];
    if (k.start_type != SQLITE_INTEGER || c.end_type != SQLITE_INTEGER || !(gpu.is_null() || gpu.type == SQLITE_INTEGER) ||
        __builtin_sub_overflow(k.start, c.end, &delay)) {
      ++g.inexact;
      continue;
    }
    values[k.gpu].push_back(delay);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    Group& g = out.groups[i];
    g.gpu = std::move(keys[i]);
    std::vector<int64_t>& v = values[i];
    g.delays = static_cast<int64_t>(v.size());
    if (v.empty()) continue;
    g.max = *std::max_element(v.begin(), v.end());
    g.med = stats::percentile_select(v, 50.0);
    g.p99 = stats::percentile_select(v, 99.0);
    v = {};
  }
  std::erase_if(out.groups, [](const Group& g) { return g.delays == 0 && g.inexact == 0; });
  std::sort(out.groups.begin(), out.groups.end(), [](const Group& a, const Group& b) { return a.gpu < b.gpu; });
  return out;
}

struct Def {
  static constexpr const char* kTableName = kTable;
  // The percentiles are declared without a type: they hold exactly what percentile() gives (a real
  // when interpolated, however whole), as rocpd_op_groups' med_ns; NUMERIC would make a plain
  // table's copy store a whole real as an integer.
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, delays INTEGER, med_ns, p99_ns, max_ns INTEGER, "
      "inexact INTEGER)";
  using Rows = MemberRows;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const Group& g = rows.groups[row];
    switch (col) {
      case kGpu: g.gpu.result(ctx); break;
      case kDelays: sqlite3_result_int64(ctx, g.delays); break;
      case kMed: stats::result_number(ctx, g.med); break;
      case kP99: stats::result_number(ctx, g.p99); break;
      case kMax:
        if (g.delays > 0) sqlite3_result_int64(ctx, g.max);
        else sqlite3_result_null(ctx);
        break;
      case kInexact: sqlite3_result_int64(ctx, g.inexact); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_launch_delay_groups(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
