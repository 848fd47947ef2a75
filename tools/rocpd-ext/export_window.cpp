#include "export_window.h"

#include <charconv>
#include <cmath>
#include <string_view>

namespace rocpd_cli {

namespace {
// "12.5ms" -> 12500000; nullopt when `spec` is not a number with an optional unit.
std::optional<long double> duration_ns(std::string_view spec) {
  size_t digits = spec.find_first_not_of("0123456789.");
  std::string_view number = spec.substr(0, digits), unit = digits == std::string_view::npos ? "" : spec.substr(digits);
  if (number.empty() || number.front() == '.' || number.back() == '.') return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
  long double scale;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3L;
  else if (unit == "ms") scale = 1e6L;
  else if (unit == "s") scale = 1e9L;
  else return std::nullopt;
  return static_cast<long double>(v) * scale;
}

std::int64_t range_edge(Session& session, const std::string& name, Edge edge, const std::string& spec,
                        bool could_be_time = false) {
  Cell c = session.scalar(edge == Edge::Start ? "SELECT min(start) FROM rocpd_ranges WHERE name = ?1"
                                              : "SELECT max(\"end\") FROM rocpd_ranges WHERE name = ?1",
                          {Param(name)});
  if (c.type != Cell::Type::Integer)
    throw CliError("'" + spec + "': " +
                   (could_be_time ? "neither a time (12000000, 12ms, 1.5s, 25%, @1000079750000000) nor the name of a CPU "
                                    "range (rocpd_ranges)"
                                  : "no CPU range (rocpd_ranges) is named '" + name + "'") +
                   "; list the names with: rocpd-ext query PATH... \"SELECT name, count(*) FROM rocpd_ranges GROUP BY name\"");
  return c.integer;
}
}  // namespace

std::int64_t resolve_time(Session& session, const JobSpan& job, const std::string& spec, Edge edge) {
  if (spec.empty()) throw CliError("an empty time was given for --start or --end");
  std::string_view s = spec;
  if (s.starts_with("range:")) return range_edge(session, std::string(s.substr(6)), edge, spec);
  if (s.front() == '@') {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.size() == 1)
      throw CliError("'" + spec + "': an absolute time is @ followed by an integer ns, as rocpd_ops shows times");
    return v;
  }
  if (s.back() == '%') {
    auto v = duration_ns(s.substr(0, s.size() - 1));
    if (!v || *v > 100) throw CliError("'" + spec + "': a share of the job is a number from 0 to 100 followed by %");
    return job.first_ns + std::llround(static_cast<long double>(job.last_ns - job.first_ns) * *v / 100);
  }
  if (auto v = duration_ns(s)) return job.first_ns + std::llround(*v);
  // Anything else names a range: a number with an unknown unit ("12 ms", "5min") reads as one,
  // and its error says so.
  return range_edge(session, spec, edge, spec, true);
}

Window resolve_window(Session& session, const std::optional<std::string>& start, const std::optional<std::string>& end,
                      const std::optional<std::string>& range) {
  Window w;
  if (!start && !end && !range) return w;
  ResultSet rs = session.run("SELECT min(first_ns), max(last_ns) FROM rocpd_members");
  JobSpan job;
  if (!rs.rows.empty() && rs.rows[0][0].type == Cell::Type::Integer) {
    job.first_ns = rs.rows[0][0].integer;
    job.last_ns = rs.rows[0][1].integer;
  }
  if (range) {
    std::string name = range->starts_with("range:") ? range->substr(6) : *range;
    w.start = range_edge(session, name, Edge::Start, *range);
    w.end = range_edge(session, name, Edge::End, *range);
    return w;
  }
  if (start) w.start = resolve_time(session, job, *start, Edge::Start);
  if (end) w.end = resolve_time(session, job, *end, Edge::End);
  return w;
}

}  // namespace rocpd_cli
