// rocpd_sequence_groups: eponymous-only virtual table under the view rocpd_kernel_sequences (HTA's
// frequent kernel sequences, docs/diagnosis.md): per member, every (operator, pattern) with its
// occurrences. An occurrence is one bottom-level range of rocpd_kernel_stacks: the ops (kernels
// and copies) whose innermost enclosing range on their launching thread it is; its pattern is the
// JSON array of their names by GPU start, then op_id. Computed per member on every core from the
// member's launch stacks (diagnosis/launch_stacks.h), grouped in memory: the former SQL's window
// over every op row of the job is gone. Pushdown and module: analysis/member_rows_table.h.
// Rowids: the member's ordinal above the group's index.
//
// It reproduces that SQL exactly: ops whose launch call has no pid or tid are in no occurrence; an
// occurrence is keyed by (pid, tid, the range's api_id) and takes its operator and range times from
// its first op; names are JSON strings as json_group_array writes them (NULL as null); sums of
// durations are NULL when no op has both times, and an overflow is SQLite's "integer overflow".
#include <algorithm>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "diagnosis/launch_stacks.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/register.h"
#include "diagnosis/sql_order.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_sequence_groups";

enum Column { kDb, kOperator, kKernels, kPattern, kCount, kGpuNs, kRangeNs };

struct Group {
  uint32_t op = kNoName;  // the operator: a range name id of the member (kNoName: NULL)
  uint32_t first = 0, kernels = 0;  // the pattern: MemberRows::ids[first, first + kernels)
  int64_t count = 0;
  std::optional<int64_t> gpu_ns;
  int64_t range_ns = 0;
};

struct MemberRows {
  std::vector<std::string> operators;  // by range name id (empty for a NULL name)
  std::vector<std::string> name_json;  // by op name id: its JSON text (made for the names in patterns)
  std::vector<uint32_t> ids;           // the groups' patterns as op name ids (kNoName: null)
  std::vector<Group> groups;           // in the view's order: count, gpu_ns descending, operator, pattern
  size_t size() const { return groups.size(); }
  std::span<const uint32_t> pattern(const Group& g) const { return {ids.data() + g.first, g.kernels}; }
  const std::string& json(uint32_t name) const {
    static const std::string null = "null";
    return name == kNoName ? null : name_json[name];
  }
  // The pattern's text (a JSON array) as json_group_array writes it.
  size_t pattern_length(const Group& g) const {
    size_t n = 1 + g.kernels;  // brackets and commas
    for (uint32_t name : pattern(g)) n += json(name).size();
    return n;
  }
  void write_pattern(const Group& g, char* out) const {
    *out++ = '[';
    bool first = true;
    for (uint32_t name : pattern(g)) {
      if (!first) *out++ = ',';
      first = false;
      const std::string& j = json(name);
      out = std::copy(j.begin(), j.end(), out);
    }
    *out = ']';
  }
  // The patterns' texts in byte order (ORDER BY pattern), without making them: the names' JSON texts
  // are prefix-free (a string ends at its first unescaped quote; null is no string), so the texts
  // differ first where the names do; when one pattern is the other's prefix, the longer text has ','
  // where the shorter has ']', and ',' sorts first.
  int compare_patterns(const Group& a, const Group& b) const {
    const auto pa = pattern(a), pb = pattern(b);
    for (size_t k = 0; k < pa.size() && k < pb.size(); ++k) {
      if (pa[k] == pb[k]) continue;
      const int c = json(pa[k]).compare(json(pb[k]));
      return c < 0 ? -1 : 1;
    }
    return pa.size() == pb.size() ? 0 : pa.size() > pb.size() ? -1 : 1;
  }
};

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error("integer overflow");
  return r;
}

// One op of an occurrence with its sort key: the occurrence (thread and range), then GPU start (NULL
// first), then op_id in SQLite's order, then rocpd_ops order (`index`). It also carries what the
// grouping reads of the op (name, duration, launch call): the grouping visits ops in occurrence
// order, and looking them up in the member's rows there cost a cache miss per op.
struct OccurrenceOp {
  int64_t pid = 0, tid = 0, range = 0;  // pid, tid: integers (a thread); range: the bottom range's api_id
  int64_t start = 0;
  int64_t op_id = 0;     // when int_id
  int64_t duration = 0;  // end - start, when has_duration
  uint32_t index = 0;
  uint32_t name = kNoName;  // MemberStacks::names id
  uint32_t call = 0;        // MemberStacks::calls index of its launch
  bool has_start = false, int_id = false, has_duration = false;
  bool same_occurrence(const OccurrenceOp& o) const { return pid == o.pid && tid == o.tid && range == o.range; }
};

// A member's ops in occurrences (6 MB for 100k ops). As BigVectors (common/big_alloc.h) they were
// no faster in an interleaved A/B: plain vectors.
using OccurrenceOps = std::vector<OccurrenceOp>;

struct OccurrenceHash {
  size_t operator()(const std::tuple<int64_t, int64_t, int64_t>& k) const noexcept {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (const int64_t v : {std::get<0>(k), std::get<1>(k), std::get<2>(k)}) h = (h ^ static_cast<uint64_t>(v)) * 0xbf58476d1ce4e5b9ULL;
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

// `ops` (in rocpd_ops order) sorted by occurrence, then GPU start, op_id and rocpd_ops order. Without
// comparing whole keys n log n times: the occurrences (an order of magnitude fewer than their ops)
// are numbered and sorted, the ops placed by occurrence in their order, and each occurrence's few
// ops sorted.
OccurrenceOps occurrence_order(OccurrenceOps ops, const MemberStacks& ms) {
  using Key = std::tuple<int64_t, int64_t, int64_t>;
  std::unordered_map<Key, uint32_t, OccurrenceHash> number;
  std::vector<Key> keys;
  std::vector<uint32_t> occurrence(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i > 0 && ops[i].same_occurrence(ops[i - 1])) {  // a run of launches under one range
      occurrence[i] = occurrence[i - 1];
      continue;
    }
    const Key k{ops[i].pid, ops[i].tid, ops[i].range};
    const auto [it, added] = number.try_emplace(k, static_cast<uint32_t>(keys.size()));
    if (added) keys.push_back(k);
    occurrence[i] = it->second;
  }
  std::vector<uint32_t> by_key(keys.size());
  std::iota(by_key.begin(), by_key.end(), 0u);
  std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint32_t> first(keys.size() + 1, 0);  // by rank: where its ops begin
  std::vector<uint32_t> rank(keys.size());
  for (uint32_t r = 0; r < by_key.size(); ++r) rank[by_key[r]] = r;
  for (const uint32_t o : occurrence) ++first[rank[o] + 1];
  for (size_t r = 1; r < first.size(); ++r) first[r] += first[r - 1];
  OccurrenceOps sorted(ops.size());
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (size_t i = 0; i < ops.size(); ++i) sorted[fill[rank[occurrence[i]]]++] = ops[i];
  const auto within = [&](const OccurrenceOp& a, const OccurrenceOp& b) {
    if (a.has_start != b.has_start) return !a.has_start;
    if (a.start != b.start) return a.start < b.start;
    if (a.int_id && b.int_id) {
      if (a.op_id != b.op_id) return a.op_id < b.op_id;
    } else if (const int c = sql_compare(ms.stored(ms.rows[a.index].op_id), ms.stored(ms.rows[b.index].op_id))) {
      return c < 0;
    }
    return a.index < b.index;
  };
  for (size_t r = 0; r + 1 < first.size(); ++r) {
    const auto b = sorted.begin() + first[r], e = sorted.begin() + first[r + 1];
    if (!std::is_sorted(b, e, within)) std::sort(b, e, within);
  }
  return sorted;
}

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  StackOptions options;
  options.places = false;  // patterns need no gpu or queue
  options.rowids = false;  // nor the ops' rowids (groups are numbered by the table)
  options.stack_texts = false;  // nor the stacks' texts (only their innermost ranges)
  MemberStacks ms = member_stacks(m, conn, options, watch, kTable);
  OccurrenceOps ops;
  ops.reserve(ms.rows.size());
  for (uint32_t i = 0; i < ms.rows.size(); ++i) {
    const OpRow& r = ms.rows[i];
    if (r.call < 0) continue;
    const CallRow& c = ms.calls[static_cast<size_t>(r.call)];
    if (c.info.depth == 0 || c.pid.type == SQLITE_NULL || c.tid.type == SQLITE_NULL) continue;
    OccurrenceOp o;
    o.pid = c.pid.bits;
    o.tid = c.tid.bits;
    o.range = c.info.bottom_id;
    o.start = r.has_start ? r.start : 0;
    o.has_start = r.has_start;
    o.int_id = r.op_id.is_int();
    o.op_id = r.op_id.bits;
    if (r.has_start && r.has_end) {
      if (__builtin_sub_overflow(r.end, r.start, &o.duration)) throw Error("integer overflow");
      o.has_duration = true;
    }
    o.index = i;
    o.name = r.name;
    o.call = static_cast<uint32_t>(r.call);
    ops.push_back(o);
  }
  ops = occurrence_order(std::move(ops), ms);

  // Occurrences, then groups by (operator, pattern): keyed by the operator id and the op name ids
  // (equal ids, equal texts), not by the texts, which are made only when a row asks for them.
  MemberRows out;
  std::unordered_map<std::string, uint32_t> by_key;
  std::string key;
  for (size_t begin = 0; begin < ops.size();) {
    if ((begin & 0xfff) == 0 && watch.stopped()) members::InterruptWatch::raise();
    size_t end = begin + 1;
    while (end < ops.size() && ops[end].same_occurrence(ops[begin])) ++end;
    const StackInfo& first = ms.calls[ops[begin].call].info;
    const uint32_t op = first.bottom == ms.null_range_name ? kNoName : first.bottom;
    key.assign(reinterpret_cast<const char*>(&op), sizeof op);
    std::optional<int64_t> gpu_ns;
    for (size_t k = begin; k < end; ++k) {
      key.append(reinterpret_cast<const char*>(&ops[k].name), sizeof ops[k].name);
      if (ops[k].has_duration) gpu_ns = gpu_ns ? checked_add(*gpu_ns, ops[k].duration) : ops[k].duration;
    }
    int64_t range = 0;
    if (__builtin_sub_overflow(first.bottom_end, first.bottom_start, &range)) throw Error("integer overflow");
    auto [it, added] = by_key.try_emplace(key, static_cast<uint32_t>(out.groups.size()));
    if (added) {
      Group g;
      g.op = op;
      g.first = static_cast<uint32_t>(out.ids.size());
      g.kernels = static_cast<uint32_t>(end - begin);
      for (size_t k = begin; k < end; ++k) {
        const uint32_t name = ops[k].name;
        out.ids.push_back(name);
        if (name == kNoName) continue;
        if (name >= out.name_json.size()) out.name_json.resize(name + 1);
        if (out.name_json[name].empty()) append_json_string(out.name_json[name], ms.names[name]);
      }
      out.groups.push_back(g);
    }
    Group& g = out.groups[it->second];
    ++g.count;
    if (gpu_ns) g.gpu_ns = g.gpu_ns ? checked_add(*g.gpu_ns, *gpu_ns) : *gpu_ns;
    g.range_ns = checked_add(g.range_ns, range);
    begin = end;
  }
  // Operator names outlive the member's stacks.
  for (Group& g : out.groups) {
    if (g.op == kNoName) continue;
    if (g.op >= out.operators.size()) out.operators.resize(g.op + 1);
    if (out.operators[g.op].empty()) out.operators[g.op] = ms.range_names[g.op];
  }
  // The view's order within a member (ORDER BY count DESC, gpu_ns DESC, operator, pattern; NULL is
  // the smallest value), so that SQLite need not sort the patterns (the table consumes that ORDER BY).
  std::sort(out.groups.begin(), out.groups.end(), [&](const Group& a, const Group& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.gpu_ns.has_value() != b.gpu_ns.has_value()) return a.gpu_ns.has_value();
    if (a.gpu_ns && *a.gpu_ns != *b.gpu_ns) return *a.gpu_ns > *b.gpu_ns;
    if ((a.op == kNoName) != (b.op == kNoName)) return a.op == kNoName;
    if (a.op != b.op) return out.operators[a.op] < out.operators[b.op];
    return out.compare_patterns(a, b) < 0;
  });
  return out;
}

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT COLLATE rocpd_natural, operator TEXT, kernels INTEGER, pattern TEXT, count INTEGER, "
      "gpu_ns INTEGER, range_ns INTEGER)";
  static constexpr OrderColumn kOrder[] = {
      {kDb, false}, {kCount, true}, {kGpuNs, true}, {kOperator, false}, {kPattern, false}};
  using Rows = MemberRows;
  // A member's groups take far less memory than its stacks (freed once grouped): larger batches, so
  // that cores seldom wait for a batch's last member.
  static constexpr size_t kBatchPerCore = 16;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const Group& g = rows.groups[row];
    switch (col) {
      case kOperator:
        if (g.op != kNoName) {
          const std::string& name = rows.operators[g.op];
          sqlite3_result_text(ctx, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
        }
        break;
      case kKernels: sqlite3_result_int64(ctx, g.kernels); break;
      case kPattern: {
        const size_t n = rows.pattern_length(g);
        char* text = static_cast<char*>(sqlite3_malloc64(n));
        if (!text) {
          sqlite3_result_error_nomem(ctx);
          break;
        }
        rows.write_pattern(g, text);
        sqlite3_result_text64(ctx, text, n, sqlite3_free, SQLITE_UTF8);
        break;
      }
      case kCount: sqlite3_result_int64(ctx, g.count); break;
      case kGpuNs:
        if (g.gpu_ns) sqlite3_result_int64(ctx, *g.gpu_ns);
        break;
      case kRangeNs: sqlite3_result_int64(ctx, g.range_ns); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& member) { return member_row_id(member, row, kTable); }
};

}  // namespace

void register_sequence_groups(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
