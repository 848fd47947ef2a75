#include "compare_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "time_shares.h"

namespace rocpd_cli {

namespace {
enum class Unit { Count, Duration, Percent, Rate };

struct Measure {
  std::string name;
  Unit unit;
  std::optional<double> v[2];
};

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::Count: return "count";
    case Unit::Duration: return "ns";
    case Unit::Percent: return "%";
    case Unit::Rate: return "per s";
  }
  return "";
}

Cell text_cell(const std::string& s) {
  Cell c;
  c.type = s.empty() ? Cell::Type::Null : Cell::Type::Text;
  c.text = s;
  return c;
}

Cell number_cell(std::optional<double> v, Unit u) {
  Cell c;
  if (!v || !std::isfinite(*v)) return c;
  if (u == Unit::Count) {
    c.type = Cell::Type::Integer;
    c.integer = static_cast<std::int64_t>(std::llround(*v));
    c.text = std::to_string(c.integer);
    return c;
  }
  c.type = Cell::Type::Real;
  c.real = std::round(*v * 100.0) / 100.0;
  c.text = fmt::format("{}", c.real);
  return c;
}

// 147505.583 -> "147,505.58"
std::string rate_text(double v) {
  const double r = std::round(std::fabs(v) * 100.0) / 100.0;
  const auto whole = static_cast<std::int64_t>(r);
  const auto cents = static_cast<int>(std::llround((r - static_cast<double>(whole)) * 100.0));
  return fmt::format("{}{}.{:02d}", v < 0 && r > 0 ? "-" : "", with_separators(whole), cents);
}

std::string shown(double v, Unit u, TimeUnit unit) {
  switch (u) {
    case Unit::Count: return with_separators(static_cast<std::int64_t>(std::llround(v)));
    case Unit::Duration: return format_duration(v, unit);
    case Unit::Percent: return fmt::format("{:.1f} %", v);
    case Unit::Rate: return rate_text(v);
  }
  return "";
}

std::string relative(double a, double b) {
  if (a == 0) return "";
  return fmt::format(" ({:+.1f} %)", 100.0 * (b - a) / a);
}

std::string shown_change(double a, double b, Unit u, TimeUnit unit) {
  const double d = b - a;
  switch (u) {
    case Unit::Count: return (d >= 0 ? "+" : "-") + with_separators(static_cast<std::int64_t>(std::llround(std::fabs(d)))) + relative(a, b);
    case Unit::Duration: return (d >= 0 ? "+" : "-") + format_duration(std::fabs(d), unit) + relative(a, b);
    case Unit::Percent: return fmt::format("{:+.1f} points", d);
    case Unit::Rate: return (d >= 0 ? "+" : "") + rate_text(d) + relative(a, b);
  }
  return "";
}

struct RunShares {
  std::int64_t gpus = 0;
  std::optional<double> busy, compute, comm, copy, idle;
};

RunShares run_shares(Session& session, const std::string& run) {
  ResultSet rs = session.run(
      "SELECT count(*), 100.0 * sum(busy_ns) / sum(span_ns), 100.0 * sum(compute_ns) / sum(span_ns),"
      " 100.0 * sum(comm_ns) / sum(span_ns), 100.0 * sum(copy_ns) / sum(span_ns), 100.0 * sum(idle_ns) / sum(span_ns)"
      " FROM temp.cli_breakdown AS t JOIN rocpd_runs AS r ON r.db = t.db WHERE r.run = ?1 AND t.span_ns > 0",
      {Param(run)});
  RunShares s;
  const auto& r = rs.rows.at(0);
  s.gpus = r[0].integer;
  auto get = [&](size_t i) { return r[i].is_number() ? std::optional<double>(r[i].number()) : std::nullopt; };
  s.busy = get(1);
  s.compute = get(2);
  s.comm = get(3);
  s.copy = get(4);
  s.idle = get(5);
  return s;
}
}  // namespace

std::vector<double> step_durations(Session& session, const std::string& run) {
  std::vector<double> out;
  session.each(
      "SELECT \"end\" - start FROM rocpd_apis WHERE db IN (SELECT db FROM rocpd_runs WHERE run = ?1)"
      " AND domain = 'marker' AND \"end\" > start AND name LIKE rocpd_step_pattern()",
      {Param(run)}, [&](const std::vector<Cell>& r) {
        if (r[0].is_number()) out.push_back(r[0].number());
      });
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<double> nearest_rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nullopt;
  auto k = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(k, 1, sorted.size()) - 1];
}

namespace {

using Sides = const TimeSide* const (&)[2];

template <class F>
Measure measure(std::string name, Unit unit, F f) {
  Measure m;
  m.name = std::move(name);
  m.unit = unit;
  for (int s = 0; s < 2; ++s) m.v[s] = f(s);
  return m;
}

// Step count, mean, median and p90 of each run's (sorted) step durations.
void add_step_measures(std::vector<Measure>& ms, const std::vector<double> (&steps)[2]) {
  ms.push_back(measure("steps", Unit::Count, [&](int s) { return std::optional<double>(static_cast<double>(steps[s].size())); }));
  ms.push_back(measure("step time, mean", Unit::Duration, [&](int s) -> std::optional<double> {
    if (steps[s].empty()) return std::nullopt;
    return std::accumulate(steps[s].begin(), steps[s].end(), 0.0) / static_cast<double>(steps[s].size());
  }));
  ms.push_back(measure("step time, median", Unit::Duration, [&](int s) -> std::optional<double> {
    const auto& v = steps[s];
    if (v.empty()) return std::nullopt;
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2.0;
  }));
  ms.push_back(measure("step time, p90", Unit::Duration, [&](int s) { return nearest_rank(steps[s], 0.9); }));
}

// Without steps: GPU ops per second of capture, and how often the three kernels that took most
// time over both runs ran per second.
void add_rate_measures(std::vector<Measure>& ms, Sides sides, const PairedTable* kernels) {
  auto seconds = [&](int s) -> std::optional<double> {
    if (!sides[s]->span_ns || *sides[s]->span_ns <= 0) return std::nullopt;
    return static_cast<double>(*sides[s]->span_ns) / 1e9;
  };
  auto per_second = [&](auto count) {
    return [&, count](int s) -> std::optional<double> {
      auto sec = seconds(s);
      if (!sec) return std::nullopt;
      return static_cast<double>(count(s)) / *sec;
    };
  };
  ms.push_back(measure("GPU ops per s", Unit::Rate, per_second([&](int s) { return sides[s]->ops; })));
  if (!kernels) return;
  std::vector<const PairedRow*> top;
  for (const auto& r : kernels->rows) top.push_back(&r);
  std::stable_sort(top.begin(), top.end(), [](const PairedRow* x, const PairedRow* y) {
    return x->total[0] + x->total[1] > y->total[0] + y->total[1];
  });
  for (size_t i = 0; i < top.size() && i < 3; ++i) {
    const PairedRow* k = top[i];
    ms.push_back(measure("calls per s: " + k->shown, Unit::Rate, per_second([k](int s) { return k->calls[s]; })));
  }
}

void add_share_measures(std::vector<Measure>& ms, const RunShares (&shares)[2]) {
  ms.push_back(measure("GPUs", Unit::Count, [&](int s) { return std::optional<double>(static_cast<double>(shares[s].gpus)); }));
  auto share = [&](const char* name, std::optional<double> RunShares::*field) {
    ms.push_back(measure(name, Unit::Percent, [&](int s) { return shares[s].*field; }));
  };
  share("GPU busy", &RunShares::busy);
  share("compute", &RunShares::compute);
  share("communication", &RunShares::comm);
  share("copies", &RunShares::copy);
  share("idle", &RunShares::idle);
}

std::vector<Cell> time_row(const Measure& m, bool human, TimeUnit unit) {
  std::vector<Cell> row = {text_cell(m.name)};
  if (human) {
    row.push_back(text_cell(m.v[0] ? shown(*m.v[0], m.unit, unit) : ""));
    row.push_back(text_cell(m.v[1] ? shown(*m.v[1], m.unit, unit) : ""));
    row.push_back(text_cell(m.v[0] && m.v[1] ? shown_change(*m.v[0], *m.v[1], m.unit, unit) : ""));
  } else {
    row.push_back(text_cell(unit_name(m.unit)));
    row.push_back(number_cell(m.v[0], m.unit));
    row.push_back(number_cell(m.v[1], m.unit));
    row.push_back(m.v[0] && m.v[1] ? number_cell(*m.v[1] - *m.v[0], m.unit == Unit::Count ? Unit::Count : Unit::Rate)
                                   : Cell{});
  }
  return row;
}

// The one line before everything: the step time (or the work rate), busy and idle.
std::string headline(const std::vector<Measure>& ms, bool with_steps) {
  auto from_to = [&](const std::string& name) -> std::string {
    for (const auto& m : ms) {
      if (m.name != name) continue;
      if (!m.v[0] || !m.v[1]) return "";
      return fmt::format("{} -> {}", shown(*m.v[0], m.unit, TimeUnit::Auto), shown(*m.v[1], m.unit, TimeUnit::Auto)) +
             (m.unit == Unit::Percent ? "" : relative(*m.v[0], *m.v[1]));
    }
    return "";
  };
  std::vector<std::string> parts;
  if (with_steps) {
    if (auto s = from_to("step time, mean"); !s.empty()) parts.push_back("mean step time " + s);
  } else if (auto s = from_to("GPU ops per s"); !s.empty()) {
    parts.push_back("GPU ops per second " + s);
  }
  if (auto s = from_to("GPU busy"); !s.empty()) parts.push_back("GPU busy " + s);
  if (auto s = from_to("idle"); !s.empty()) parts.push_back("idle " + s);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

TimeTable time_section(Session& session, const TimeSide& a, const TimeSide& b, const PairedTable* kernels,
                       bool human, TimeUnit unit) {
  prepare_breakdown(session);
  const TimeSide* const sides[2] = {&a, &b};
  std::vector<double> steps[2];
  RunShares shares[2];
  for (int s = 0; s < 2; ++s) {
    steps[s] = step_durations(session, sides[s]->label);
    shares[s] = run_shares(session, sides[s]->label);
  }
  std::vector<Measure> ms;
  const bool with_steps = !steps[0].empty() || !steps[1].empty();
  if (with_steps) add_step_measures(ms, steps);
  ms.push_back(measure("capture span", Unit::Duration, [&](int s) -> std::optional<double> {
    if (!sides[s]->span_ns) return std::nullopt;
    return static_cast<double>(*sides[s]->span_ns);
  }));
  if (!with_steps) add_rate_measures(ms, sides, kernels);
  add_share_measures(ms, shares);

  TimeTable out;
  ResultSet& rs = out.section;
  rs.name = "time";
  rs.title = with_steps ? "Time: the runs' steps and where the GPUs' time went (shares of the GPUs' summed spans, rocpd_time_breakdown)"
                        : "Time: work per second of capture and where the GPUs' time went (shares of the GPUs' summed spans, rocpd_time_breakdown)";
  rs.columns = human ? std::vector<std::string>{"measure", "a", "b", "change"}
                     : std::vector<std::string>{"measure", "unit", "a", "b", "change"};
  for (const auto& m : ms) rs.rows.push_back(time_row(m, human, unit));
  out.headline = headline(ms, with_steps);
  return out;
}

}  // namespace rocpd_cli
