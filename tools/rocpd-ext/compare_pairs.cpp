#include "compare_pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "call_class.h"
#include "display.h"
#include "mann_whitney.h"
#include "name_normal.h"

namespace rocpd_cli {

namespace {
// ?1: the run label. Copies: copy kinds (directions) and fills; API calls with their domain, so
// that only runtime and driver calls are paired (call_class.h). `db IN (SELECT ...)` reaches the
// table whole, which then reads the run's members only (a join with rocpd_runs would look the
// members up again for every row).
const char* const kKernelRows =
    "SELECT name, duration FROM rocpd_ops"
    " WHERE db IN (SELECT db FROM rocpd_runs WHERE run = ?1) AND kind = 'kernel'";
const char* const kCopyRows =
    "SELECT kind || ' ' || name, duration FROM rocpd_ops"
    " WHERE db IN (SELECT db FROM rocpd_runs WHERE run = ?1) AND kind IN ('copy', 'fill')";
const char* const kApiRows =
    "SELECT coalesce(domain, ''), name, duration FROM rocpd_apis WHERE db IN (SELECT db FROM rocpd_runs WHERE run = ?1)";

struct Group {
  std::string shown;
  std::int64_t calls[2] = {0, 0}, total[2] = {0, 0};
  Reservoir sample[2] = {Reservoir(kSampleCap), Reservoir(kSampleCap)};
};

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

double scale_of(const RunScale& s, bool per_step) {
  if (per_step) return static_cast<double>(s.steps);
  return s.span_ns && *s.span_ns > 0 ? static_cast<double>(*s.span_ns) / 1e9 : 0.0;
}

Cell real_cell(std::optional<double> v, int decimals) {
  Cell c;
  if (!v || !std::isfinite(*v)) return c;
  c.type = Cell::Type::Real;
  double scale = std::pow(10.0, decimals);
  c.real = std::round(*v * scale) / scale;
  c.text = fmt::format("{}", c.real);
  return c;
}

Cell int_cell(std::int64_t v) {
  Cell c;
  c.type = Cell::Type::Integer;
  c.integer = v;
  c.text = std::to_string(v);
  return c;
}

Cell text_cell(const std::string& s) {
  Cell c;
  c.type = s.empty() ? Cell::Type::Null : Cell::Type::Text;
  c.text = s;
  return c;
}

// p values span many orders of magnitude: three significant digits.
Cell p_cell(std::optional<double> p) {
  Cell c;
  if (!p) return c;
  c.type = Cell::Type::Real;
  c.text = fmt::format("{:.3g}", *p);
  c.real = std::stod(c.text);
  return c;
}

bool ranked(const PairedRow& r) { return r.impact.has_value(); }
}  // namespace

PairedTable pair_runs(Session& session, PairKind kind, const RunScale& a, const RunScale& b, bool raw_names) {
  PairedTable out;
  out.per_step = a.steps > 0 && b.steps > 0;
  std::map<std::string, Group> groups;             // by raw name
  std::unordered_map<std::string, Group*> by_raw;  // raw name (with domain for calls) -> its group, or none
  const RunScale* sides[2] = {&a, &b};
  for (int side = 0; side < 2; ++side) {
    const char* sql = kind == PairKind::Kernels ? kKernelRows : kind == PairKind::Copies ? kCopyRows : kApiRows;
    const size_t first = kind == PairKind::Apis ? 1 : 0;
    session.each(sql, {Param(sides[side]->label)}, [&](const std::vector<Cell>& r) {
      const std::string& raw = r[first].text;
      std::string lookup = kind == PairKind::Apis ? r[0].text + '\x1f' + raw : raw;
      auto it = by_raw.find(lookup);
      if (it == by_raw.end()) {
        Group* g = nullptr;
        if (kind != PairKind::Apis || call_class(r[0].text, raw) == CallClass::Api) {
          g = &groups[raw];
          if (g->shown.empty())
            g->shown = kind == PairKind::Kernels ? session.scalar("SELECT rocpd_display_name(?1)", {Param(raw)}).text : raw;
        }
        it = by_raw.emplace(std::move(lookup), g).first;
      }
      Group* g = it->second;
      if (!g) return;
      ++g->calls[side];
      if (r[first + 1].is_number()) {
        g->total[side] += r[first + 1].integer;
        g->sample[side].add(r[first + 1].number());
      }
    });
  }
  if (!raw_names) {
    // A name one run never called pairs with the one name of the other run that has its
    // normalised name (name_normal.h): a new template digest or API version is the same call.
    std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> unpaired;
    for (const auto& kv : groups) {
      const Group& g = kv.second;
      if (g.calls[0] == 0) unpaired[normal_name(g.shown)].second.push_back(kv.first);
      else if (g.calls[1] == 0) unpaired[normal_name(g.shown)].first.push_back(kv.first);
    }
    for (const auto& kv : unpaired) {
      const auto& only_a = kv.second.first;
      const auto& only_b = kv.second.second;
      if (only_a.size() != 1 || only_b.size() != 1) continue;
      Group& into = groups[only_a[0]];
      Group& from = groups[only_b[0]];
      into.calls[1] = from.calls[1];
      into.total[1] = from.total[1];
      into.sample[1] = std::move(from.sample[1]);
      into.shown = kv.first;
      groups.erase(only_b[0]);
    }
  }
  out.scale[0] = scale_of(a, out.per_step);
  out.scale[1] = scale_of(b, out.per_step);
  const double* scale = out.scale;
  for (auto& [key, g] : groups) {
    PairedRow row;
    row.shown = g.shown;
    for (int s = 0; s < 2; ++s) {
      row.calls[s] = g.calls[s];
      row.total[s] = g.total[s];
      row.med[s] = median(g.sample[s].values());
    }
    auto per = [&](double v, int s) { return scale[s] > 0 ? v / scale[s] : 0.0; };
    if (g.calls[0] == 0 || g.calls[1] == 0) {
      // A name one run never called is a change, not noise: its whole time per step (or second).
      int s = g.calls[0] == 0 ? 1 : 0;
      row.verdict = s == 1 ? "only in b" : "only in a";
      row.impact = (s == 1 ? 1.0 : -1.0) * per(static_cast<double>(g.total[s]), s);
    } else if (static_cast<std::int64_t>(g.sample[0].values().size()) < kMinCalls ||
               static_cast<std::int64_t>(g.sample[1].values().size()) < kMinCalls) {
      row.verdict = "too few calls";
    } else {
      RankTest t = mann_whitney(g.sample[0].values(), g.sample[1].values());
      row.p = t.p;
      if (t.p < kNoiseAlpha) {
        row.verdict = t.z > 0 ? "slower" : "faster";
        const double calls_per = (per(static_cast<double>(g.calls[0]), 0) + per(static_cast<double>(g.calls[1]), 1)) / 2;
        row.impact = (*row.med[1] - *row.med[0]) * calls_per;
      } else {
        row.verdict = "within noise";
      }
    }
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const PairedRow& x, const PairedRow& y) {
    if (ranked(x) != ranked(y)) return ranked(x);
    if (ranked(x) && std::fabs(*x.impact) != std::fabs(*y.impact)) return std::fabs(*x.impact) > std::fabs(*y.impact);
    if (!ranked(x) && x.total[0] + x.total[1] != y.total[0] + y.total[1]) return x.total[0] + x.total[1] > y.total[0] + y.total[1];
    return x.shown < y.shown;
  });
  return out;
}

ResultSet paired_section(const PairedTable& t, const std::string& name, const std::string& title,
                         const std::string& key, long long top) {
  ResultSet rs;
  rs.name = name;
  rs.title = title + (t.per_step ? ", ranked by the significant changes per step (median change per call x calls per step)"
                                 : ", ranked by the significant changes per second of capture (median change per call x calls per second)");
  const std::string rate = t.per_step ? "calls_per_step" : "calls_per_s";
  rs.columns = {key, "calls_a", "calls_b", rate + "_a", rate + "_b", "total_a_ns", "total_b_ns", "med_a_ns", "med_b_ns",
                "med_ratio", "p_value", "verdict", "impact_ns"};
  size_t noise = 0;
  for (const auto& r : t.rows) noise += r.verdict == "within noise";
  for (const auto& r : t.rows) {
    if (rs.rows.size() >= static_cast<size_t>(top)) break;
    std::optional<double> ratio;
    if (r.med[0] && r.med[1] && *r.med[0] != 0) ratio = *r.med[1] / *r.med[0];
    auto rate_of = [&](int s) {
      return real_cell(t.scale[s] > 0 ? std::optional<double>(static_cast<double>(r.calls[s]) / t.scale[s]) : std::nullopt, 2);
    };
    rs.rows.push_back({text_cell(r.shown), int_cell(r.calls[0]), int_cell(r.calls[1]), rate_of(0), rate_of(1),
                       int_cell(r.total[0]), int_cell(r.total[1]), real_cell(r.med[0], 1), real_cell(r.med[1], 1),
                       real_cell(ratio, 4), p_cell(r.p), text_cell(r.verdict), real_cell(r.impact, 1)});
  }
  if (t.rows.size() > static_cast<size_t>(top))
    rs.note = fmt::format("(the first {} of {} rows; -n/--top shows more)", top,
                          with_separators(static_cast<std::int64_t>(t.rows.size())));
  if (noise)
    rs.note += fmt::format("{}({} within noise: Mann-Whitney p >= {}, docs/cli.md)", rs.note.empty() ? "" : " ",
                           with_separators(static_cast<std::int64_t>(noise)), kNoiseAlpha);
  return rs;
}

}  // namespace rocpd_cli
