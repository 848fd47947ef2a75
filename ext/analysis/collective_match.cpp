#include "analysis/collective_match.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "common/sqlite_util.h"

namespace rocpd::analysis {
namespace {

int64_t difference(int64_t a, int64_t b, const char* table) {
  int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out))
    throw Error(fmt::format("{}: the starts {} and {} of one collective are more than an integer apart", table,
                            std::min(a, b), std::max(a, b)));
  return out;
}

int64_t total(int64_t a, int64_t b, const char* table) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    throw Error(fmt::format("{}: the wait of one collective is more than an integer holds", table));
  return out;
}

}  // namespace

std::vector<MatchedCollective> match_collectives(std::span<const Collective> in, const char* table,
                                                 void (*poll)(const void*), const void* poll_arg) {
  std::vector<MatchedCollective> out(in.size());
  // Collectives by family, then participant, then issue order (start, then tiebreak).
  std::vector<uint32_t> order(in.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Collective &x = in[a], &y = in[b];
    if (x.family != y.family) return x.family < y.family;
    if (x.participant != y.participant) return x.participant < y.participant;
    if (x.start != y.start) return x.start < y.start;
    return x.tiebreak < y.tiebreak;
  });
  struct Run {
    size_t first, size;
  };
  std::vector<Run> runs;  // one family's participants
  std::vector<std::pair<int64_t, uint32_t>> starts;
  for (size_t f = 0; f < order.size();) {
    // [f, g): one family; runs: its participants' collectives.
    size_t g = f;
    runs.clear();
    while (g < order.size() && in[order[g]].family == in[order[f]].family) {
      size_t h = g;
      while (h < order.size() && in[order[h]].family == in[order[g]].family &&
             in[order[h]].participant == in[order[g]].participant)
        ++h;
      runs.push_back({g, h - g});
      g = h;
    }
    size_t common = SIZE_MAX;
    for (const Run& r : runs) common = std::min(common, r.size);
    for (const Run& r : runs)
      for (size_t n = 0; n < r.size; ++n) {
        MatchedCollective& m = out[order[r.first + n]];
        m.instance = static_cast<int64_t>(n);
        m.family_count = static_cast<int64_t>(r.size);
        m.matched_count = static_cast<int64_t>(common);
      }
    for (size_t n = 0; n < common; ++n) {
      if (poll && (n & 0xff) == 0) poll(poll_arg);
      starts.clear();
      for (const Run& r : runs) starts.emplace_back(in[order[r.first + n]].start, order[r.first + n]);
      std::sort(starts.begin(), starts.end());
      const int64_t first = starts.front().first, last = starts.back().first;
      int64_t waited = 0;
      for (const auto& [start, index] : starts) waited = total(waited, difference(last, start, table), table);
      for (size_t k = 0; k < starts.size(); ++k) {
        MatchedCollective& m = out[starts[k].second];
        // Ties share their arrival: 1 + those strictly earlier.
        const size_t earlier = k > 0 && starts[k - 1].first == starts[k].first ? static_cast<size_t>(*out[starts[k - 1].second].arrival - 1) : k;
        m.participants = static_cast<int64_t>(starts.size());
        m.arrival = static_cast<int64_t>(earlier + 1);
        m.late_ns = difference(starts[k].first, first, table);
        m.wait_ns = difference(last, starts[k].first, table);
        m.caused_wait_ns = starts[k].first == last && starts.size() > 1 ? waited : 0;
      }
    }
    f = g;
  }
  return out;
}

}  // namespace rocpd::analysis
