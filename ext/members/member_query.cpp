#include "members/member_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "members/member_files.h"

namespace rocpd::members {

void OpenMemberQuery::rebind(std::span<const PushedConstraint> pushed, int64_t lo, int64_t hi) {
  sqlite3_reset(stmt.get());
  for (size_t i = 0; i < bound.size(); ++i)
    if (const auto* v = pushed[bound[i]].value) sqlite3_bind_value(stmt.get(), static_cast<int>(i + 1), v);
  if (query.rowid_param) {
    sqlite3_bind_int64(stmt.get(), query.rowid_param, lo);
    sqlite3_bind_int64(stmt.get(), query.rowid_param + 1, hi);
  }
}

std::string member_label(const canonical::Member& m) {
  return fmt::format("member {} ({})", m.alias, m.path.empty() ? "in memory" : m.path);
}

OpenMemberQuery open_member_query(const canonical::CanonicalTable& t, const canonical::Member& m, const canonical::Profile* profile, sqlite3* db,
                                  int source, uint64_t used, std::span<const PushedConstraint> pushed, bool ranged,
                                  int64_t lo, int64_t hi, bool duration_by_parts) {
  auto fail = [&](const Error& e) {
    return Error(fmt::format("{}: {}: {}{}", t.name, member_label(m), e.what(), zstd_reason(m.path)), e.code());
  };
  try {
    OpenMemberQuery q;
    std::vector<PushedConstraint> effective;
    if (!m.info.loose_types) {
      const uint64_t unpushable = shapes_of(t.kind, m).at(static_cast<size_t>(source)).unpushable;
      for (size_t i = 0; i < pushed.size(); ++i) {
        if (unpushable & (uint64_t{1} << pushed[i].column)) continue;
        effective.push_back(pushed[i]);
        q.bound.push_back(i);
      }
    }
    auto sources = sources_for(t.kind, m, profile, wants_string_id_lists(t.kind, used, effective) ? db : nullptr);
    canonical::SourceSql& src = sources.at(static_cast<size_t>(source));
    // The duration selected as its difference; constraints on it still compare the whole
    // expression, as build_member_query writes them from the same text: kept aside.
    int duration = -1;
    for (size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].name == std::string_view("duration")) duration = static_cast<int>(c);
    std::optional<std::string> difference;
    if (duration_by_parts && duration >= 0 && (used & (uint64_t{1} << duration)))
      difference = canonical::duration_difference(src.expr[static_cast<size_t>(duration)]);
    const bool filtered = std::any_of(effective.begin(), effective.end(),
                                      [&](const PushedConstraint& c) { return c.column == duration; });
    if (difference && !filtered) src.expr[static_cast<size_t>(duration)] = *difference;
    else difference.reset();
    q.query = build_member_query(src, used, effective, ranged, time_columns(t), m.clock_offset.load());
    if (difference) q.duration_difference = q.query.select_index[static_cast<size_t>(duration)];
    q.stmt = prepare(db, q.query.sql);
    q.rebind(pushed, lo, hi);
    q.affinity.assign(static_cast<size_t>(sqlite3_column_count(q.stmt.get())), Affinity::Blob);
    q.affinity[static_cast<size_t>(q.query.rowid_index)] = Affinity::Integer;
    for (size_t c = 0; c < q.query.select_index.size(); ++c)
      if (q.query.select_index[c] >= 0)
        q.affinity[static_cast<size_t>(q.query.select_index[c])] = t.columns[c].affinity();
    return q;
  } catch (const Error& e) {
    throw fail(e);
  }
}

}  // namespace rocpd::members
