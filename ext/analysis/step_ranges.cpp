#include "analysis/step_ranges.h"

#include <algorithm>

#include "common/like_pattern.h"
#include "members/member_columns.h"

namespace rocpd::analysis {

std::string default_step_pattern(sqlite3* conn) {
  Stmt s = prepare(conn, "SELECT rocpd_step_pattern()", "reading rocpd_step_pattern()");
  if (!step(s.get(), "reading rocpd_step_pattern()") || sqlite3_column_type(s.get(), 0) != SQLITE_TEXT)
    return kDefaultStepPattern;
  return std::string(column_text(s.get(), 0));
}

bool step_pattern_arg(sqlite3_value* v, const char* table, std::string& pattern) {
  auto given = like_pattern_arg(v, table, "step_pattern", kDefaultStepPattern);
  if (!given) return false;
  pattern = std::move(*given);
  return true;
}

std::map<GpuKey, std::vector<StepRange>> read_step_ranges(const canonical::Member& m, sqlite3* conn,
                                                          const members::InterruptWatch& watch,
                                                          const std::string& pattern, const char* table) {
  using namespace canonical;
  using namespace members;
  std::map<GpuKey, std::vector<StepRange>> ranges;  // by pid
  MemberColumns apis(m, conn, TableKind::Apis, {kApisPid, kApisTid, kApisDomain, kApisName, kApisStart, kApisEnd},
                     nullptr, std::pair<int, std::string>{kApisDomain, "marker"});
  uint64_t read = 0;
  while (apis.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
    const StoredValue domain = apis[2], name = apis[3];
    if (domain.type != SQLITE_TEXT || std::string_view(static_cast<const char*>(domain.bytes), domain.length) != "marker")
      continue;
    if (name.type != SQLITE_TEXT) continue;  // LIKE is never true for NULL; numbers are not step names
    const std::string text(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length));
    if (sqlite3_strlike(pattern.c_str(), text.c_str(), 0) != 0) continue;
    const auto start = time_value(apis[4], table, m.alias, "start");
    const auto end = time_value(apis[5], table, m.alias, "end");
    if (!start || !end || *end <= *start) continue;  // a range encloses time (docs/diagnosis.md)
    ranges[value_key(apis[0])].push_back({value_key(apis[1]), text, *start, *end, apis.rowid()});
  }
  for (auto& [pid, rs] : ranges)
    std::sort(rs.begin(), rs.end(), [](const StepRange& a, const StepRange& b) {
      return a.start != b.start ? a.start < b.start : a.rowid < b.rowid;
    });
  return ranges;
}

}  // namespace rocpd::analysis
