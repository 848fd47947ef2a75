// The per-member aggregation engine behind the job-wide summaries (docs/summaries.md): every
// member's GPU ops (or API calls) are read as compact rows (a name key instead of the name's text, integer times)
// on all cores, folded into per-member groups, and the groups merged into job-wide ones. Exact:
// counts, sums, extremes, medians (the durations are kept when asked for) and interval unions are
// the figures SQL gives over rocpd_ops; values SQL would treat otherwise (text or real times, a
// duration that overflows, a name that is not text) make the scan report NeedsSql and the caller
// answers with SQL instead.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "canonical/canonical_tables.h"
#include "members/registry.h"
#include "common/interval_math.h"
#include "stats/moments.h"

namespace rocpd::analysis {

using canonical::MemberPtr;

// What a query groups by and computes.
struct GroupSpec {
  canonical::TableKind table = canonical::TableKind::Ops;  // rocpd_ops or rocpd_apis
  bool by_db = false, by_name = false;
  bool by_gpu = false, by_kind = false;                   // rocpd_ops
  bool by_pid = false, by_tid = false, by_domain = false;  // rocpd_apis
  std::optional<std::string> kind;  // rocpd_ops: only ops of this kind (BINARY equality), else every op
  std::optional<std::string> db;    // only this member (pruning when grouping by db)
  std::optional<int64_t> of_gpu;    // rocpd_ops: only ops whose gpu is this integer (rocpd_op_groups' of_gpu)
  bool want_median = false;         // keep every duration (exact median)
  bool want_values = false;         // keep every duration (the durations column)
  bool want_busy = false;           // interval unions (rocpd_ops)
  // Busy lists (rocpd_utilization): keep each group's merged busy intervals, clipped to
  // [clip_lo, clip_hi), for the groups of ops with end > clip_lo and start < clip_hi (a bound at
  // its extreme is no constraint), of gpu `gpu` when given.
  bool busy_lists = false;
  int64_t clip_lo = INT64_MIN, clip_hi = INT64_MAX;
  std::optional<int64_t> gpu;
};

// A member holds a value the fast path cannot fold exactly as SQL would.
class NeedsSql : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The engine keeps every group in memory (about a kilobyte each, with its name); past this many
// distinct groups in one member's scan (or in the job's merged groups, or 4x as many distinct name
// keys) it stops with TooManyGroups, and callers answer with SQL's GROUP BY instead, streamed:
// SQLite sorts in bounded memory (spilling to temporary files), so memory no longer grows with the
// number of names (docs/summaries.md, bench/bench_many_names.py).
inline constexpr size_t kMaxEngineGroups = size_t{1} << 15;
class TooManyGroups : public NeedsSql {
 public:
  using NeedsSql::NeedsSql;
};

// The figures of one group, mergeable across members.
struct GroupFigures {
  int64_t rows = 0;                      // count(*)
  stats::IntegerMoments durations;       // count, sum and spread of the non-NULL durations
  int64_t min = INT64_MAX, max = INT64_MIN;
  std::vector<int64_t> values;           // every duration, when the median is wanted
  // Busy time: a member's own union is final when grouping by db (busy_length); across members the
  // disjoint busy intervals are merged at the end.
  uint64_t busy_length = 0;
  std::vector<Interval> busy;  // disjoint, sorted (only when not grouping by db)
  std::optional<int64_t> first_start, last_end;  // over ops with end >= start
  // count, min and max of start and of end over every row (each non-NULL on its own), as SQL's
  // count(start), min(start), max("end") ... give them.
  struct Extremes {
    int64_t n = 0, min = INT64_MAX, max = INT64_MIN;
    void add(int64_t v) {
      ++n;
      min = std::min(min, v);
      max = std::max(max, v);
    }
    void merge(const Extremes& o) {
      n += o.n;
      min = std::min(min, o.min);
      max = std::max(max, o.max);
    }
  };
  Extremes starts, ends;

  void merge(GroupFigures&& other, bool keep_intervals);
};

struct GroupKey {
  uint32_t member = UINT32_MAX;  // index in the query's member list; UINT32_MAX when not by db
  std::optional<int64_t> gpu, pid, tid;
  std::optional<std::string> kind, domain, name;
  auto operator<=>(const GroupKey&) const = default;
};

using JobGroups = std::map<GroupKey, GroupFigures>;

// Scans member `m` (index `index` in the query's member list) and merges its groups into `out`.
// `lease_db` is a connection of the member (Registry::acquire). Throws NeedsSql, Error.
JobGroups scan_member(const canonical::Member& m, uint32_t index, sqlite3* lease_db, const GroupSpec& spec,
                      const std::atomic<bool>* stop);

// Adds a member's groups to the job's.
void merge_into(JobGroups& job, JobGroups&& member, const GroupSpec& spec);

// After every member: the busy length of groups merged across members.
void finish(JobGroups& job, const GroupSpec& spec);

}  // namespace rocpd::analysis
