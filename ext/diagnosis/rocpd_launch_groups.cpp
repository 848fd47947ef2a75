// rocpd_launch_groups: eponymous-only virtual table under the views rocpd_launch_latency(_full)
// (docs/views.md): per kernel name over the whole job, the latency from the start of each kernel's
// launch call to the kernel's start: launches, mean, exact median, 95th percentile, extremes and the
// launching API names. Each member's kernels and launch calls are read straight from the member on
// every core (the launch is the one docs/diagnosis.md defines: of the calls with the kernel's
// correlation id, the earliest start, then the smallest api_id; calls without a start are no
// launches), their latencies kept per name; the members' lists are merged and the figures computed
// once per name (median and percentile as median() and percentile(x, 95): stats/percentile_select.h).
// Replaces a join of rocpd_ops with rocpd_apis probed once per kernel.
//
// Columns: name (NULL for kernels without one), launches (kernels with a launch), avg_ns, med_ns,
// p95_ns, min_ns, max_ns (of the latencies; a kernel whose start is NULL counts as a launch without
// a latency), api_names (the distinct launching API names in BINARY order, comma-separated).
// No constraint is pushed down (the figures are job-wide); rowids number the rows.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "analysis/job_table.h"
#include "analysis/member_read.h"
#include "diagnosis/launch_stacks.h"
#include "diagnosis/register.h"
#include "members/interrupt.h"
#include "members/member_pool.h"
#include "members/progress.h"
#include "stats/percentile_select.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_launch_groups";

enum Column { kName, kLaunches, kAvg, kMedian, kP95, kMin, kMax, kApiNames };

// One kernel name's launches in one member, then in the job.
struct Latencies {
  int64_t launches = 0;
  std::vector<int64_t> values;  // the latencies that are not NULL
  std::set<std::string> api_names;
};

// One member's: by kernel name (nullopt: a NULL name).
using MemberLatencies = std::map<std::optional<std::string>, Latencies>;

struct NamedCall {
  bool found = false;
  int64_t start = 0, api_id = 0;
  uint32_t name = kNoName;  // id in the member's API names (kNoName: NULL)
};

MemberLatencies member_latencies(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                                 members::PoolProgress& progress) {
  using namespace canonical;
  using namespace members;
  struct Kernel {
    uint32_t name;  // id in names (kNoName: NULL)
    int64_t start;
    bool has_start;
    int64_t corr;
  };
  BigVector<Kernel> kernels;
  BigVector<int64_t> corrs;
  Strings names;
  TokenNames op_names;
  uint64_t read = 0;
  {
    MemberColumns ops(m, conn, TableKind::Ops, {kOpsKind, kOpsName, kOpsStart, kOpsCorrelationId}, nullptr,
                      std::pair<int, std::string>{kOpsKind, "kernel"});
    while (ops.next()) {
      if ((++read & 0xffff) == 0) {
        if (watch.stopped()) InterruptWatch::raise();
        progress.rows.fetch_add(0x10000, std::memory_order_relaxed);
      }
      const StoredValue kind = ops[0];
      if (kind.type != SQLITE_TEXT ||
          std::string_view(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length)) != "kernel")
        continue;
      const StoredValue corr = ops[3];
      if (corr.type != SQLITE_INTEGER) continue;  // no launch
      Kernel k{op_names.id(ops, ops[1], names), 0, false, corr.i};
      if (const auto start = time_value(ops[2], kTable, m.alias, "start")) {
        k.start = *start;
        k.has_start = true;
      }
      kernels.push_back(k);
      corrs.push_back(corr.i);
    }
  }
  CorrSlots wanted;
  wanted.assign(corrs);
  corrs = {};
  BigVector<NamedCall> calls(wanted.size());
  Strings api_names;
  TokenNames call_names;
  if (wanted.size() > 0) {
    // scan_best_launches reads the correlation id, start and api_id at 0, 1 and 3; the end is not needed.
    MemberColumns apis(m, conn, TableKind::Apis, {kApisCorrelationId, kApisStart, kApisName, kApisApiId}, nullptr,
                       std::nullopt, {}, nullptr, true);
    scan_best_launches(
        apis, wanted, calls, kTable, m.alias,
        [&](NamedCall& c, int64_t) { c.name = call_names.id(apis, apis[2], api_names); },
        &watch);
  }
  // Per kernel name id, then by name text.
  std::vector<Latencies> by_id(names.size());
  Latencies unnamed;
  // Per kernel name id (the last: unnamed), the API name inserted last: most kernels are launched by
  // one API, so its text is inserted once, not once per launch.
  std::vector<uint32_t> last_api(names.size() + 1, kNoName);
  for (const Kernel& k : kernels) {
    const NamedCall& c = calls[static_cast<size_t>(wanted.find(k.corr))];
    if (!c.found) continue;
    Latencies& l = k.name == kNoName ? unnamed : by_id[k.name];
    uint32_t& last = last_api[k.name == kNoName ? names.size() : k.name];
    ++l.launches;
    if (k.has_start) {
      int64_t latency = 0;
      if (__builtin_sub_overflow(k.start, c.start, &latency)) throw Error("integer overflow");
      l.values.push_back(latency);
    }
    if (c.name != kNoName && c.name != last) {
      l.api_names.insert(api_names[c.name]);
      last = c.name;
    }
  }
  progress.rows.fetch_add(static_cast<int64_t>(read & 0xffff), std::memory_order_relaxed);
  MemberLatencies out;
  for (uint32_t id = 0; id < by_id.size(); ++id)
    if (by_id[id].launches > 0) out.emplace(names[id], std::move(by_id[id]));
  if (unnamed.launches > 0) out.emplace(std::nullopt, std::move(unnamed));
  return out;
}


// A row of the table: one kernel name over the job.
struct Row {
  std::optional<std::string> name;
  int64_t launches = 0;
  std::optional<double> avg, p95;
  std::optional<stats::Number> median;
  std::optional<int64_t> min, max;
  std::string api_names;  // empty: NULL
};

std::vector<Row> job_rows(sqlite3* conn, const char* progress_name) {
  const auto dbs = analysis::query_members(conn, std::nullopt);
  const MemberSet set = open_members(conn, dbs, kTable);
  std::vector<Row> rows;
  if (set.members.empty()) return rows;
  members::InterruptWatch watch(conn);
  members::PoolProgress progress;
  if (set.registry->progress)
    watch.report_progress([&] { return members::progress_line(progress_name, progress, set.members.size()); });
  std::vector<MemberLatencies> parts(set.members.size());
  try {
    members::MemberPool(*set.registry, watch).run(
        set.members,
        [&](size_t i, sqlite3* db, size_t) { parts[i] = member_latencies(*set.members[i], db, watch, progress); },
        &progress);
  } catch (...) {
    members::InterruptWatch host(conn);
    if (host.poll()) members::InterruptWatch::raise();
    throw;
  }
  MemberLatencies job;
  for (MemberLatencies& part : parts) {
    for (auto& [name, l] : part) {
      Latencies& into = job[name];
      into.launches += l.launches;
      if (into.values.empty()) into.values = std::move(l.values);
      else into.values.insert(into.values.end(), l.values.begin(), l.values.end());
      into.api_names.merge(l.api_names);
    }
    part.clear();
  }
  rows.reserve(job.size());
  for (auto& [name, l] : job) {
    Row r;
    r.name = name;
    r.launches = l.launches;
    if (!l.values.empty()) {
      __int128 sum = 0;
      for (int64_t v : l.values) sum += v;
      r.avg = static_cast<double>(sum) / static_cast<double>(l.values.size());
      const auto [lo, hi] = std::minmax_element(l.values.begin(), l.values.end());
      r.min = *lo;
      r.max = *hi;
      r.median = stats::percentile_select(l.values, 50.0);
      const stats::Number p95 = stats::percentile_select(l.values, 95.0);
      r.p95 = std::holds_alternative<double>(p95) ? std::get<double>(p95)
                                                   : static_cast<double>(std::get<int64_t>(p95));
    }
    for (const std::string& api : l.api_names) {
      if (!r.api_names.empty()) r.api_names.push_back(',');
      r.api_names += api;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void result_row(const Row& r, sqlite3_context* ctx, int col) {
  switch (col) {
    case kName:
      if (r.name) sqlite3_result_text(ctx, r.name->data(), static_cast<int>(r.name->size()), SQLITE_TRANSIENT);
      break;
    case kLaunches: sqlite3_result_int64(ctx, r.launches); break;
    case kAvg:
      if (r.avg) sqlite3_result_double(ctx, *r.avg);
      break;
    case kMedian:
      if (r.median) {
        if (const auto* i = std::get_if<int64_t>(&*r.median)) sqlite3_result_int64(ctx, *i);
        else sqlite3_result_double(ctx, std::get<double>(*r.median));
      }
      break;
    case kP95:
      if (r.p95) sqlite3_result_double(ctx, *r.p95);
      break;
    case kMin:
      if (r.min) sqlite3_result_int64(ctx, *r.min);
      break;
    case kMax:
      if (r.max) sqlite3_result_int64(ctx, *r.max);
      break;
    case kApiNames:
      if (!r.api_names.empty())
        sqlite3_result_text(ctx, r.api_names.data(), static_cast<int>(r.api_names.size()), SQLITE_TRANSIENT);
      break;
  }
}

// No hidden arguments: every row is computed at xFilter (analysis/job_table.h).
struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(name TEXT, launches INTEGER, avg_ns REAL, med_ns NUMERIC, p95_ns REAL, "
      "min_ns INTEGER, max_ns INTEGER, api_names TEXT)";
  static constexpr int kFirstArg = 0, kArgCount = 0;
  static constexpr double kCost = 1e7, kRows = 1000;
  using Scan = std::vector<Row>;

  static void compute(sqlite3* conn, std::span<sqlite3_value* const>, Scan& scan) { scan = job_rows(conn, kTable); }
  static size_t size(const Scan& scan) { return scan.size(); }
  static int64_t rowid(const Scan&, size_t row) { return static_cast<int64_t>(row); }
  static void column(const Scan& scan, size_t row, sqlite3_context* ctx, int col) { result_row(scan[row], ctx, col); }
};

}  // namespace

void register_launch_groups(sqlite3* db) { analysis::JobTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
