// rocpd_sequence_groups: eponymous-only virtual table under the view rocpd_kernel_sequences (HTA's
// frequent kernel sequences, docs/diagnosis.md): per member, every (operator, pattern) with its
// occurrences. An occurrence is one bottom-level range of rocpd_kernel_stacks: the ops (kernels
// and copies) whose innermost enclosing range on their launching thread it is; its pattern is the
// JSON array of their names by GPU start, then op_id. Computed per member on every core from the
// member's launch stacks (diagnosis/launch_stacks.h), grouped in memory: the former SQL's window
// over every op row of the job is gone. Pushdown and module: diagnosis/member_rows_table.h.
// Rowids: the member's ordinal above the group's index.
//
// It reproduces that SQL exactly: ops whose launch call has no pid or tid are in no occurrence; an
// occurrence is keyed by (pid, tid, the range's api_id) and takes its operator and range times from
// its first op; names are JSON strings as json_group_array writes them (NULL as null); sums of
// durations are NULL when no op has both times, and an overflow is SQLite's "integer overflow".
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "diagnosis/launch_stacks.h"
#include "diagnosis/member_rows_table.h"
#include "diagnosis/sql_names.h"
#include "diagnosis/sql_order.h"

namespace rocpd::diagnosis {
namespace {

constexpr const char* kTable = "rocpd_sequence_groups";

enum Column { kDb, kOperator, kKernels, kPattern, kCount, kGpuNs, kRangeNs };

struct Group {
  uint32_t op = kNoName;  // the operator: a range name id of the member (kNoName: NULL)
  const std::string* key = nullptr;  // the operator id's 4 bytes, then the pattern (a node of `by_key`)
  int64_t kernels = 0, count = 0;
  std::optional<int64_t> gpu_ns;
  int64_t range_ns = 0;
  std::string_view pattern() const { return std::string_view(*key).substr(sizeof(uint32_t)); }
};

struct MemberRows {
  std::vector<std::string> operators;  // by range name id (empty for a NULL name)
  std::unordered_map<std::string, uint32_t> by_key;  // node-based: Group::key stays valid
  std::vector<Group> groups;           // in the view's order: count, gpu_ns descending, operator, pattern
  size_t size() const { return groups.size(); }
};

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw Error("integer overflow");
  return r;
}

MemberRows member_rows(const federation::Member& m, sqlite3* conn, const federation::InterruptWatch& watch) {
  MemberStacks ms = member_stacks(m, conn, StackOptions{}, watch, kTable);
  // The ops of some occurrence, in occurrence order: thread and range, then GPU start (NULL first),
  // then op_id in SQLite's order, then rocpd_ops order.
  std::vector<uint32_t> ops;
  ops.reserve(ms.rows.size());
  for (uint32_t i = 0; i < ms.rows.size(); ++i) {
    const OpRow& r = ms.rows[i];
    if (r.call < 0) continue;
    const CallRow& c = ms.calls[static_cast<size_t>(r.call)];
    if (c.info.depth == 0 || c.pid.type == SQLITE_NULL || c.tid.type == SQLITE_NULL) continue;
    ops.push_back(i);
  }
  auto key = [&](uint32_t i) {
    const CallRow& c = ms.calls[static_cast<size_t>(ms.rows[i].call)];
    return std::tuple{c.pid.bits, c.tid.bits, c.info.bottom_id};  // pid, tid: integers (a thread)
  };
  std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
    const auto ka = key(a), kb = key(b);
    if (ka != kb) return ka < kb;
    const OpRow &ra = ms.rows[a], &rb = ms.rows[b];
    if (ra.has_start != rb.has_start) return !ra.has_start;
    if (ra.has_start && ra.start != rb.start) return ra.start < rb.start;
    return sql_compare(ms.stored(ra.op_id), ms.stored(rb.op_id)) < 0;
  });

  // Each op name's JSON text, made once.
  std::vector<std::string> name_json;
  auto json_of = [&](uint32_t name) -> const std::string& {
    static const std::string null = "null";
    if (name == kNoName) return null;
    if (name >= name_json.size()) name_json.resize(name + 1);
    if (name_json[name].empty()) append_json_string(name_json[name], ms.names[name]);
    return name_json[name];
  };

  // Occurrences, then groups by (operator, pattern).
  MemberRows out;
  std::string key_text;
  for (size_t begin = 0; begin < ops.size();) {
    if ((begin & 0xfff) == 0 && watch.stopped()) federation::InterruptWatch::raise();
    size_t end = begin + 1;
    while (end < ops.size() && key(ops[end]) == key(ops[begin])) ++end;
    const StackInfo& first = ms.info(ms.rows[ops[begin]]);
    const uint32_t op = first.bottom == ms.null_range_name ? kNoName : first.bottom;
    key_text.assign(reinterpret_cast<const char*>(&op), sizeof op);
    key_text.push_back('[');
    std::optional<int64_t> gpu_ns;
    for (size_t k = begin; k < end; ++k) {
      const OpRow& r = ms.rows[ops[k]];
      if (k > begin) key_text.push_back(',');
      key_text += json_of(r.name);
      if (r.has_start && r.has_end) {
        int64_t d = 0;
        if (__builtin_sub_overflow(r.end, r.start, &d)) throw Error("integer overflow");
        gpu_ns = gpu_ns ? checked_add(*gpu_ns, d) : d;
      }
    }
    key_text.push_back(']');
    int64_t range = 0;
    if (__builtin_sub_overflow(first.bottom_end, first.bottom_start, &range)) throw Error("integer overflow");
    auto [it, added] = out.by_key.try_emplace(key_text, static_cast<uint32_t>(out.groups.size()));
    if (added) {
      Group g;
      g.op = op;
      g.key = &it->first;
      g.kernels = static_cast<int64_t>(end - begin);
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
    return a.pattern() < b.pattern();
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
  static Rows compute(const federation::Member& m, sqlite3* conn, const federation::InterruptWatch& watch) {
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
        const std::string_view p = g.pattern();
        sqlite3_result_text(ctx, p.data(), static_cast<int>(p.size()), SQLITE_TRANSIENT);
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
