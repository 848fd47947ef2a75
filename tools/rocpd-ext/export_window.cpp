#include "export_window.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string_view>

#include "display.h"

namespace rocpd_cli {

namespace {
// 2^63 as a long double: the first value past INT64_MAX.
constexpr long double kTwo63 = 9223372036854775808.0L;

// "12.5ms" -> 12500000; nullopt when `spec` is not a number with an optional unit. Long double:
// exact for every integer count of ns an int64 holds (a 64-bit significand).
std::optional<long double> duration_ns(std::string_view spec) {
  size_t digits = spec.find_first_not_of("0123456789.");
  std::string_view number = spec.substr(0, digits), unit = digits == std::string_view::npos ? "" : spec.substr(digits);
  if (number.empty() || number.front() == '.' || number.back() == '.') return std::nullopt;
  long double v = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (p != number.data() + number.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) v = HUGE_VALL;
  else if (ec != std::errc()) return std::nullopt;
  long double scale;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3L;
  else if (unit == "ms") scale = 1e6L;
  else if (unit == "s") scale = 1e9L;
  else return std::nullopt;
  return v * scale;
}

// `ns`, rounded (halves away from zero), when an int64 holds it.
std::int64_t checked_ns(long double ns, const std::string& option, const std::string& spec, const JobSpan& job) {
  long double r = std::round(ns);
  if (!(r >= -kTwo63 && r < kTwo63))
    throw CliError(fmt::format("{} '{}': beyond the timestamps an int64 of ns holds (the job starts at {} ns and "
                               "ends at {} ns; times count from its start)",
                               option, spec, job.first_ns, job.last_ns));
  return static_cast<std::int64_t>(r);
}

std::int64_t range_edge(Session& session, const std::string& name, Edge edge, const std::string& option,
                        const std::string& spec, bool could_be_time = false) {
  Cell c = session.scalar(edge == Edge::Start ? "SELECT min(start) FROM rocpd_ranges WHERE name = ?1"
                                              : "SELECT max(\"end\") FROM rocpd_ranges WHERE name = ?1",
                          {Param(name)});
  if (c.type != Cell::Type::Integer)
    throw CliError(option + " '" + spec + "': " +
                   (could_be_time ? "neither a time (12000000, 12ms, 1.5s, 25%, @1000079750000000) nor the name of a CPU "
                                    "range (rocpd_ranges)"
                                  : "no CPU range (rocpd_ranges) is named '" + name + "'") +
                   "; list the names with: rocpd-ext query PATH... \"SELECT name, count(*) FROM rocpd_ranges GROUP BY name\"");
  return c.integer;
}

JobSpan job_span(Session& session) {
  ResultSet rs = session.run("SELECT min(first_ns), max(last_ns) FROM rocpd_members");
  JobSpan job;
  if (!rs.rows.empty() && rs.rows[0][0].type == Cell::Type::Integer) {
    job.first_ns = rs.rows[0][0].integer;
    job.last_ns = rs.rows[0][1].integer;
  }
  return job;
}
}  // namespace

std::int64_t resolve_time(Session& session, const JobSpan& job, const std::string& option, const std::string& spec,
                          Edge edge) {
  if (spec.empty()) throw CliError(option + ": an empty time was given");
  std::string_view s = spec;
  if (s.starts_with("range:")) return range_edge(session, std::string(s.substr(6)), edge, option, spec);
  if (s.front() == '@') {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range)
      throw CliError(option + " '" + spec + "': beyond the timestamps an int64 of ns holds");
    if (ec != std::errc() || p != s.data() + s.size() || s.size() == 1)
      throw CliError(option + " '" + spec + "': an absolute time is @ followed by an integer ns, as rocpd_ops shows times");
    return v;
  }
  if (s.back() == '%') {
    auto v = duration_ns(s.substr(0, s.size() - 1));
    if (!v || *v > 100) throw CliError(option + " '" + spec + "': a share of the job is a number from 0 to 100 followed by %");
    long double span = static_cast<long double>(job.last_ns) - static_cast<long double>(job.first_ns);
    // Halves up: the share's ns rounded to the nearest (job.first_ns + span * v / 100 never leaves the job).
    return checked_ns(static_cast<long double>(job.first_ns) + std::floor(span * *v / 100 + 0.5L), option, spec, job);
  }
  if (auto v = duration_ns(s)) return checked_ns(static_cast<long double>(job.first_ns) + *v, option, spec, job);
  // Anything else names a range: a number with an unknown unit ("12 ms", "5min") reads as one,
  // and its error says so.
  return range_edge(session, spec, edge, option, spec, true);
}

Window resolve_window(Session& session, const std::optional<std::string>& start, const std::optional<std::string>& end,
                      const std::optional<std::string>& range) {
  Window w;
  if (!start && !end && !range) return w;
  if (range) {
    std::string name = range->starts_with("range:") ? range->substr(6) : *range;
    w.start = range_edge(session, name, Edge::Start, "--range", *range);
    w.end = range_edge(session, name, Edge::End, "--range", *range);
    return w;
  }
  JobSpan job = job_span(session);
  if (start) w.start = resolve_time(session, job, "--start", *start, Edge::Start);
  if (end) w.end = resolve_time(session, job, "--end", *end, Edge::End);
  return w;
}

std::string empty_window_message(Session& session, const Window& w, const Options& o) {
  JobSpan job = job_span(session);
  std::string given;
  if (o.range) given = "--range " + *o.range;
  if (o.start) given += "--start " + *o.start;
  if (o.end) given += (given.empty() ? "" : ", ") + std::string("--end ") + *o.end;
  auto bound = [&](const std::optional<std::int64_t>& v, const char* open) {
    return v ? std::to_string(*v) : std::string(open);
  };
  long double span = static_cast<long double>(job.last_ns) - static_cast<long double>(job.first_ns);
  std::string where;
  if (w.start && *w.start > job.last_ns) where = ": it starts after the job's last timestamp";
  else if (w.end && *w.end <= job.first_ns) where = ": it ends before the job's first timestamp";
  return fmt::format("{}: the window [{}, {}) holds no op or API call{}; the job runs from {} to {} ns ({}); times "
                     "such as 12ms or 25% count from the job's start, @T is a timestamp as rocpd_ops shows it",
                     given, bound(w.start, "start"), bound(w.end, "end"), where, job.first_ns, job.last_ns,
                     format_duration(static_cast<double>(span), TimeUnit::Auto));
}

}  // namespace rocpd_cli
