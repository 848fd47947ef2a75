// One member's pass of the summary engine: compact rows in, groups out (op_groups.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "common/affinity.h"
#include "members/member_query.h"
#include "members/member_sql.h"
#include "members/member_files.h"
#include "analysis/op_groups.h"

namespace rocpd::analysis {

using canonical::kOpsKind;
using canonical::SourceSql;
using canonical::TableKind;

namespace {

constexpr uint64_t bit(int c) { return uint64_t{1} << c; }

// A name key: up to two parts, each an integer, NULL, or (for any other value) the row itself.
struct NameKey {
  std::array<int64_t, 2> value{};
  std::array<uint8_t, 2> tag{};  // 0 NULL, 1 integer, 2 unique to the row (value = rowid)
  bool operator==(const NameKey&) const = default;
};
struct NameKeyHash {
  size_t operator()(const NameKey& k) const noexcept {
    uint64_t h = static_cast<uint64_t>(k.value[0]) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<uint64_t>(k.value[1]) + (uint64_t{k.tag[0]} << 8 | k.tag[1])) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// Where the grouping columns of the scanned table are: two integer slots (ops: gpu; apis: pid,
// tid), a small-text slot (ops: kind; apis: domain) and the name.
struct Layout {
  TableKind kind;
  const char* table;  // for messages
  const char* row;
  int start, end, name, count;
  std::array<int, 2> ints;
  int text;
  std::array<bool, 2> by_int;
  bool by_text;
};

Layout layout_of(const GroupSpec& spec) {
  if (spec.table == TableKind::Apis) {
    using namespace canonical;
    return {TableKind::Apis, "rocpd_apis", "an API call", kApisStart, kApisEnd, kApisName, kApisColumnCount,
            {kApisPid, kApisTid}, kApisDomain, {spec.by_pid, spec.by_tid}, spec.by_domain};
  }
  using namespace canonical;
  return {TableKind::Ops, "rocpd_ops", "an op", kOpsStart, kOpsEnd, kOpsName, kOpsColumnCount,
          {kOpsGpu, -1}, kOpsKind, {spec.by_gpu, false}, spec.by_kind || spec.kind.has_value()};
}

// A group inside one member before names are resolved.
struct LocalKey {
  std::array<int64_t, 2> ints{};
  uint32_t name_slot = 0;
  uint16_t text = 0;
  uint8_t ints_null = 0;  // bit i: slot i is NULL
  bool operator==(const LocalKey&) const = default;
};
struct LocalKeyHash {
  size_t operator()(const LocalKey& k) const noexcept {
    uint64_t h = static_cast<uint64_t>(k.ints[0]) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<uint64_t>(k.ints[1]) + (uint64_t{k.name_slot} << 18 | uint64_t{k.text} << 2 | k.ints_null)) *
         0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

struct LocalGroup {
  GroupFigures figures;
  std::vector<Interval> raw;  // this member's non-empty op intervals
};

constexpr uint16_t kNullText = 0xFFFF;
constexpr uint32_t kNullName = 0;  // slot 0 is the NULL name

std::string_view text_of(const StoredValue& v) {
  return {static_cast<const char*>(v.bytes), static_cast<size_t>(v.length)};
}

// Time columns must be integers or NULL for the fast path.
std::optional<int64_t> time_of(sqlite3_stmt* stmt, int col, const Layout& l, const char* what) {
  const StoredValue v = stored_value(stmt, col, Affinity::Integer);
  if (v.type == SQLITE_INTEGER) return v.i;
  if (v.type == SQLITE_NULL) return std::nullopt;
  throw NeedsSql(fmt::format("{}'s {} is not an integer", l.row, what));
}

// The member's sources of rocpd_ops restricted to the spec's kind where the source can say so.
SourceSql restricted(SourceSql src, const canonical::Member& m, const GroupSpec& spec) {
  if (!spec.kind || m.info.loose_types) return src;
  std::string pred;
  if (src.predicate_column == kOpsKind) {
    if (auto it = src.predicates.find(*spec.kind); it != src.predicates.end()) pred = it->second;
  }
  if (pred.empty()) {
    std::string lit = "'";
    for (char ch : *spec.kind) lit += ch == '\'' ? std::string("''") : std::string(1, ch);
    pred = fmt::format("{} = {}", src.expr[kOpsKind], lit + "'");
    src.where_joins |= src.expr_joins[kOpsKind];
  }
  src.where = src.where.empty() ? pred : fmt::format("({}) AND ({})", src.where, pred);
  return src;
}

class MemberScan {
 public:
  MemberScan(const canonical::Member& m, uint32_t index, sqlite3* db, const GroupSpec& spec,
             const std::atomic<bool>* stop)
      : m_(m), index_(index), db_(db), spec_(spec), l_(layout_of(spec)), stop_(stop) {}

  JobGroups run() {
    const bool kinds_needed = l_.kind == TableKind::Ops && l_.by_text;
    const auto sources = members::sources_for(l_.kind, m_, nullptr, kinds_needed ? db_ : nullptr);
    for (size_t s = 0; s < sources.size(); ++s) scan_source(sources[s], s);
    return groups();
  }

 private:
  // `gpu = of_gpu` for the member to apply, as rocpd_ops pushes it (members whose declared types
  // hold, sources that can compare it); the scan still checks every row.
  std::vector<members::PushedConstraint> gpu_constraint(size_t source) {
    if (!spec_.of_gpu || l_.kind != TableKind::Ops || m_.info.loose_types) return {};
    const uint64_t unpushable = members::shapes_of(l_.kind, m_).at(source).unpushable;
    if (unpushable & bit(canonical::kOpsGpu)) return {};
    if (!gpu_value_) {
      Stmt one = prepare(db_, "SELECT ?1", l_.table);
      sqlite3_bind_int64(one.get(), 1, *spec_.of_gpu);
      if (sqlite3_step(one.get()) != SQLITE_ROW) fail(sqlite3_errcode(db_));
      gpu_value_.reset(sqlite3_value_dup(sqlite3_column_value(one.get(), 0)));
      if (!gpu_value_) throw std::bad_alloc();
    }
    return {{canonical::kOpsGpu, SQLITE_INDEX_CONSTRAINT_EQ, members::Collation::Binary, gpu_value_.get()}};
  }

  void scan_source(const SourceSql& original, size_t source) {
    SourceSql src = restricted(original, m_, spec_);
    const bool keyed = spec_.by_name && !original.name_key.empty() && original.name_key.size() <= 2;
    uint64_t used = bit(l_.start) | bit(l_.end);
    for (size_t i = 0; i < 2; ++i)
      if (l_.by_int[i]) used |= bit(l_.ints[i]);
    if (l_.by_text) used |= bit(l_.text);
    const bool gpu_filter = l_.kind == TableKind::Ops && spec_.of_gpu.has_value();
    if (gpu_filter) used |= bit(canonical::kOpsGpu);
    if (spec_.by_name && !keyed) used |= bit(l_.name);
    if (keyed) {
      for (size_t i = 0; i < original.name_key.size(); ++i) {
        src.expr.push_back(original.name_key[i]);
        src.expr_joins.push_back(0);
        used |= bit(static_cast<int>(l_.count + static_cast<int>(i)));
      }
    }
    const auto pushed = gpu_constraint(source);
    const auto q = members::build_member_query(src, used, pushed, false,
                                                  members::time_columns(canonical::table_of(l_.kind)),
                                                  m_.clock_offset.load());
    Stmt stmt = prepare(db_, q.sql, fmt::format("{}: {}", l_.table, members::member_label(m_)));
    members::bind_constraints(stmt.get(), pushed);
    const int si = q.select_index[l_.start], ei = q.select_index[l_.end];
    std::array<int, 2> int_cols{-1, -1};
    for (size_t i = 0; i < 2; ++i)
      if (l_.by_int[i]) int_cols[i] = q.select_index[l_.ints[i]];
    const int ki = l_.by_text ? q.select_index[l_.text] : -1;
    const int gi = gpu_filter ? q.select_index[canonical::kOpsGpu] : -1;
    const int ni = (spec_.by_name && !keyed) ? q.select_index[l_.name] : -1;
    std::array<int, 2> key_cols{-1, -1};
    if (keyed)
      for (size_t i = 0; i < original.name_key.size(); ++i) key_cols[i] = q.select_index[l_.count + static_cast<int>(i)];
    // Keys name rows of this source only (another source's ids number other strings).
    keyed_slots_.clear();
    const size_t slots_before = slot_rowid_.size();
    sqlite3_stmt* st = stmt.get();
    for (;;) {
      const int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(rc);
      LocalKey key;
      if (gi >= 0) {
        // As rocpd_ops' INTEGER column compares with an integer: only an integer value can equal it.
        const StoredValue g = stored_value(st, gi, Affinity::Integer);
        if (g.type != SQLITE_INTEGER || g.i != *spec_.of_gpu) continue;
      }
      if (ki >= 0) {
        const StoredValue k = stored_value(st, ki, Affinity::Text);
        if (k.type == SQLITE_TEXT) {
          const std::string_view text = text_of(k);
          if (spec_.kind && text != *spec_.kind) continue;
          key.text = spec_.by_kind || spec_.by_domain ? text_id(text) : 0;
        } else if (k.type == SQLITE_NULL) {
          if (spec_.kind) continue;
          key.text = kNullText;
        } else {
          throw NeedsSql(fmt::format("{}'s {} is not text", l_.row, canonical::table_of(l_.kind).columns[l_.text].name));
        }
      }
      for (size_t i = 0; i < 2; ++i) {
        if (int_cols[i] < 0) continue;
        const StoredValue g = stored_value(st, int_cols[i], Affinity::Integer);
        if (g.type == SQLITE_INTEGER) key.ints[i] = g.i;
        else if (g.type == SQLITE_NULL) key.ints_null |= static_cast<uint8_t>(1u << i);
        else throw NeedsSql(fmt::format("{}'s {} is not an integer", l_.row,
                                        canonical::table_of(l_.kind).columns[l_.ints[i]].name));
      }
      if (keyed) {
        NameKey nk;
        for (size_t i = 0; i < 2 && key_cols[i] >= 0; ++i) {
          const int type = sqlite3_column_type(st, key_cols[i]);
          if (type == SQLITE_INTEGER) {
            nk.tag[i] = 1;
            nk.value[i] = sqlite3_column_int64(st, key_cols[i]);
          } else if (type != SQLITE_NULL) {
            nk.tag[i] = 2;  // resolved for this row alone
            nk.value[i] = sqlite3_column_int64(st, q.rowid_index);
          }
        }
        auto [it, inserted] = keyed_slots_.try_emplace(nk, 0);
        if (inserted) {
          if (slot_rowid_.size() > 4 * kMaxEngineGroups) throw TooManyGroups("too many distinct names");
          it->second = static_cast<uint32_t>(slot_rowid_.size());
          slot_rowid_.push_back(sqlite3_column_int64(st, q.rowid_index));
          slot_name_.emplace_back();
        }
        key.name_slot = it->second;
      } else if (ni >= 0) {
        const StoredValue n = stored_value(st, ni, Affinity::Text);
        if (n.type == SQLITE_TEXT) key.name_slot = text_slot(text_of(n));
        else if (n.type == SQLITE_NULL) key.name_slot = kNullName;
        else throw NeedsSql(fmt::format("{}'s name is not text", l_.row));
      }
      const auto start = time_of(st, si, l_, "start");
      const auto end = time_of(st, ei, l_, "end");
      add(key, start, end);
    }
    if (keyed) resolve_names(original, slots_before);
    if (stop_ && stop_->load(std::memory_order_relaxed)) InterruptWatch_raise();
  }

  Value gpu_value_;

  [[noreturn]] static void InterruptWatch_raise() { throw Error("interrupted", SQLITE_INTERRUPT); }

  [[noreturn]] void fail(int rc) {
    if (rc == SQLITE_INTERRUPT || (stop_ && stop_->load())) InterruptWatch_raise();
    throw Error(fmt::format("{}: {}: {}{}", l_.table, members::member_label(m_), sqlite3_errmsg(db_),
                            members::zstd_reason(m_.path)),
                rc);
  }

  // Kinds and domains are few: a linear search beats hashing.
  uint16_t text_id(std::string_view text) {
    for (size_t i = 0; i < texts_.size(); ++i)
      if (texts_[i] == text) return static_cast<uint16_t>(i);
    if (texts_.size() >= kNullText) throw NeedsSql(fmt::format("too many distinct values of {}'s {}", l_.table,
                                                               canonical::table_of(l_.kind).columns[l_.text].name));
    texts_.emplace_back(text);
    return static_cast<uint16_t>(texts_.size() - 1);
  }

  uint32_t text_slot(std::string_view name) {
    auto it = text_slots_.find(name);
    if (it != text_slots_.end()) return it->second;
    const auto slot = static_cast<uint32_t>(slot_name_.size());
    if (slot > 4 * kMaxEngineGroups) throw TooManyGroups("too many distinct names");
    slot_name_.emplace_back(std::string(name));
    slot_rowid_.push_back(0);
    text_slots_.emplace(std::string(name), slot);
    return slot;
  }

  void add(const LocalKey& key, std::optional<int64_t> start, std::optional<int64_t> end) {
    if (spec_.busy_lists) {
      // As rocpd_utilization's own SQL selects ops: end > lo, start < hi, gpu =.
      if (spec_.clip_lo != INT64_MIN && !(end && *end > spec_.clip_lo)) return;
      if (spec_.clip_hi != INT64_MAX && !(start && *start < spec_.clip_hi)) return;
      if (spec_.gpu && ((key.ints_null & 1) || key.ints[0] != *spec_.gpu)) return;
    }
    auto [it, inserted] = local_.try_emplace(key, 0);
    if (inserted) {
      if (groups_.size() >= kMaxEngineGroups) throw TooManyGroups("too many groups");
      it->second = static_cast<uint32_t>(groups_.size());
      groups_.emplace_back();
    }
    LocalGroup& g = groups_[it->second];
    GroupFigures& f = g.figures;
    ++f.rows;
    if (start) f.starts.add(*start);
    if (end) f.ends.add(*end);
    if (!start || !end) return;
    int64_t d = 0;
    if (*end > *start && __builtin_sub_overflow(*end, *start, &d))
      throw NeedsSql(fmt::format("{}'s duration overflows", l_.row));
    f.durations.add(d);
    f.min = std::min(f.min, d);
    f.max = std::max(f.max, d);
    if (spec_.want_median || spec_.want_values) f.values.push_back(d);
    if (*end >= *start) {
      f.first_start = f.first_start ? std::min(*f.first_start, *start) : *start;
      f.last_end = f.last_end ? std::max(*f.last_end, *end) : *end;
    }
    if (spec_.want_busy) {
      const Interval iv = clip({*start, *end}, spec_.clip_lo, spec_.clip_hi);
      if (!iv.empty()) g.raw.push_back(iv);
    }
  }

  // Each new name key's name, read once from its first row.
  void resolve_names(const SourceSql& original, size_t first_slot) {
    if (first_slot >= slot_rowid_.size()) return;
    const auto q = members::build_member_query(original, bit(l_.name), {}, true);
    Stmt stmt = prepare(db_, q.sql, fmt::format("{}: {}", l_.table, members::member_label(m_)));
    const int ni = q.select_index[l_.name];
    for (size_t slot = first_slot; slot < slot_rowid_.size(); ++slot) {
      sqlite3_reset(stmt.get());
      sqlite3_bind_int64(stmt.get(), q.rowid_param, slot_rowid_[slot]);
      sqlite3_bind_int64(stmt.get(), q.rowid_param + 1, slot_rowid_[slot]);
      const int rc = sqlite3_step(stmt.get());
      if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE) throw NeedsSql(fmt::format("{}'s row vanished while its name was read", l_.row));
        fail(rc);
      }
      const StoredValue n = stored_value(stmt.get(), ni, Affinity::Text);
      if (n.type == SQLITE_TEXT) slot_name_[slot] = std::string(text_of(n));
      else if (n.type != SQLITE_NULL) throw NeedsSql(fmt::format("{}'s name is not text", l_.row));
    }
  }

  // The member's groups under their resolved keys; groups whose keys resolve alike merge here,
  // so a member's busy time is one union per group.
  JobGroups groups() {
    std::map<GroupKey, LocalGroup> merged;
    for (const auto& entry : local_) {
      const LocalKey& key = entry.first;
      GroupKey out;
      if (spec_.by_db) out.member = index_;
      auto int_of = [&](size_t i) { return key.ints_null & (1u << i) ? std::nullopt : std::optional(key.ints[i]); };
      auto text = [&] { return key.text == kNullText ? std::nullopt : std::optional(texts_[key.text]); };
      if (spec_.by_gpu) out.gpu = int_of(0);
      if (spec_.by_kind) out.kind = text();
      if (spec_.by_pid) out.pid = int_of(0);
      if (spec_.by_tid) out.tid = int_of(1);
      if (spec_.by_domain) out.domain = text();
      if (spec_.by_name) out.name = slot_name_[key.name_slot];
      LocalGroup& g = groups_[entry.second];
      auto [it, inserted] = merged.try_emplace(std::move(out));
      if (inserted) {
        it->second = std::move(g);
        continue;
      }
      it->second.figures.merge(std::move(g.figures), false);
      it->second.raw.insert(it->second.raw.end(), g.raw.begin(), g.raw.end());
    }
    JobGroups out;
    for (auto& [key, g] : merged) {
      if (spec_.want_busy) {
        auto busy = merge(g.raw);
        if (spec_.by_db && !spec_.busy_lists) {
          for (const auto& iv : busy) g.figures.busy_length += iv.length();
        } else {
          g.figures.busy = std::move(busy);
        }
      }
      out.emplace(key, std::move(g.figures));
    }
    return out;
  }

  const canonical::Member& m_;
  uint32_t index_;
  sqlite3* db_;
  const GroupSpec& spec_;
  const Layout l_;
  const std::atomic<bool>* stop_;
  std::vector<std::string> texts_;  // kinds or domains
  // Name slots: slot 0 is NULL; keyed slots remember a row to read their name from.
  std::vector<std::optional<std::string>> slot_name_{std::nullopt};
  std::vector<int64_t> slot_rowid_{0};
  std::unordered_map<NameKey, uint32_t, NameKeyHash> keyed_slots_;
  std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>> text_slots_;
  std::unordered_map<LocalKey, uint32_t, LocalKeyHash> local_;
  std::vector<LocalGroup> groups_;
};

}  // namespace

void GroupFigures::merge(GroupFigures&& o, bool keep_intervals) {
  rows += o.rows;
  durations.merge(o.durations);
  min = std::min(min, o.min);
  max = std::max(max, o.max);
  if (values.empty()) values = std::move(o.values);
  else values.insert(values.end(), o.values.begin(), o.values.end());
  busy_length += o.busy_length;
  if (keep_intervals) busy.insert(busy.end(), o.busy.begin(), o.busy.end());
  starts.merge(o.starts);
  ends.merge(o.ends);
  if (o.first_start) first_start = first_start ? std::min(*first_start, *o.first_start) : *o.first_start;
  if (o.last_end) last_end = last_end ? std::max(*last_end, *o.last_end) : *o.last_end;
}

JobGroups scan_member(const canonical::Member& m, uint32_t index, sqlite3* lease_db, const GroupSpec& spec,
                      const std::atomic<bool>* stop) {
  return MemberScan(m, index, lease_db, spec, stop).run();
}

void merge_into(JobGroups& job, JobGroups&& member, const GroupSpec& spec) {
  for (auto& [key, figures] : member) {
    auto it = job.find(key);
    if (it == job.end()) {
      if (job.size() >= kMaxEngineGroups) throw TooManyGroups("too many groups");
      job.emplace(key, std::move(figures));
      continue;
    }
    it->second.merge(std::move(figures), !spec.by_db);
    // Keep merged interval lists disjoint as they grow, so memory follows the busy intervals,
    // not the members.
    if (!spec.by_db && spec.want_busy) it->second.busy = merge(it->second.busy);
  }
}

void finish(JobGroups& job, const GroupSpec& spec) {
  if (spec.by_db || !spec.want_busy) return;
  for (auto& [key, f] : job) {
    f.busy_length = 0;
    for (const auto& iv : f.busy) f.busy_length += iv.length();
    f.busy.clear();
    f.busy.shrink_to_fit();
  }
}

}  // namespace rocpd::analysis
