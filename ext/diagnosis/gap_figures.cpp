#include "diagnosis/gap_figures.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "members/member_columns.h"

namespace rocpd::diagnosis {

namespace {

// SQLite's LIKE '%Synchronize%': ASCII letters in any case, other bytes as they are.
bool names_synchronize(std::string_view name) {
  static constexpr std::string_view kWord = "synchronize";
  if (name.size() < kWord.size()) return false;
  for (size_t i = 0; i + kWord.size() <= name.size(); ++i) {
    size_t j = 0;
    while (j < kWord.size() && static_cast<char>(std::tolower(static_cast<unsigned char>(name[i + j]))) == kWord[j]) ++j;
    if (j == kWord.size()) return true;
  }
  return false;
}

// Marks each gap a call was blocked in when it began: the last gap starting at or before the
// call's end, if the call started before it and ended within it.
void add_sync(GapFigures& g, const std::vector<Interval>& gap_list, const std::vector<SyncCall>& calls) {
  std::vector<bool> hit(gap_list.size());
  for (const SyncCall& c : calls) {
    auto it = std::upper_bound(gap_list.begin(), gap_list.end(), c.end,
                               [](int64_t t, const Interval& gap) { return t < gap.start; });
    if (it == gap_list.begin()) continue;
    const size_t i = static_cast<size_t>(it - gap_list.begin()) - 1;
    if (c.start < gap_list[i].start && c.end <= gap_list[i].end) hit[i] = true;
  }
  for (size_t i = 0; i < gap_list.size(); ++i)
    if (hit[i]) {
      ++g.sync_gaps;
      g.sync_ns += gap_list[i].end - gap_list[i].start;
    }
}

}  // namespace

analysis::JobGroups busy_by_gpu(const canonical::Member& m, sqlite3* conn) {
  analysis::GroupSpec spec;
  spec.by_db = spec.by_gpu = true;
  spec.want_busy = spec.busy_lists = true;
  return analysis::scan_member(m, 0, conn, spec, nullptr);
}

std::vector<SyncCall> sync_calls(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  using namespace canonical;
  members::MemberColumns apis(m, conn, TableKind::Apis, {kApisName, kApisStart, kApisEnd});
  std::vector<SyncCall> out;
  uint64_t read = 0;
  while (apis.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) members::InterruptWatch::raise();
    const StoredValue name = apis[0];
    if (name.type == SQLITE_NULL) continue;
    if (name.type != SQLITE_TEXT) throw analysis::NeedsSql("an API call's name is not text");
    if (!names_synchronize(std::string_view(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length))))
      continue;
    const StoredValue start = apis[1], end = apis[2];
    if (start.type == SQLITE_NULL || end.type == SQLITE_NULL) continue;
    if (start.type != SQLITE_INTEGER || end.type != SQLITE_INTEGER)
      throw analysis::NeedsSql("a call's time is not an integer");
    if (start.i < end.i) out.push_back({start.i, end.i});
  }
  return out;
}

GapFigures gap_figures(const std::vector<Interval>& busy, const std::vector<SyncCall>& calls) {
  GapFigures g;
  std::vector<int64_t> all, longs;
  const std::vector<Interval> gap_list = gaps(busy);
  add_sync(g, gap_list, calls);
  for (const Interval& gap : gap_list) {
    const int64_t length = gap.end - gap.start;
    all.push_back(length);
    if (length >= kLongGapNs) longs.push_back(length);
  }
  g.gaps = static_cast<int64_t>(all.size());
  g.long_gaps = static_cast<int64_t>(longs.size());
  if (!all.empty()) {
    g.max = *std::max_element(all.begin(), all.end());
    g.med = stats::percentile_select(all, 50.0);
    g.p99 = stats::percentile_select(all, 99.0);
  }
  if (!longs.empty()) g.long_med = stats::percentile_select(longs, 50.0);
  return g;
}

}  // namespace rocpd::diagnosis
