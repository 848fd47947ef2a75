#include "export_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace rocpd_cli {

namespace {
// A member or step name as part of a file name: letters, digits, '-', '_' and '.' kept.
std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  return out.empty() ? "_" : out;
}

std::optional<std::int64_t> later(std::optional<std::int64_t> a, std::int64_t b) {
  return a ? std::max(*a, b) : b;
}
std::optional<std::int64_t> earlier(std::optional<std::int64_t> a, std::int64_t b) {
  return a ? std::min(*a, b) : b;
}
}  // namespace

bool is_split_spec(const std::string& spec) {
  if (spec == "ranks" || spec == "steps") return true;
  if (spec.empty() || spec.size() > 5) return false;
  for (char c : spec)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  const long n = std::stol(spec);
  return n >= 1 && n <= 10000;
}

std::string part_file(const std::string& out, const std::string& part) {
  for (const char* ext : {".json.gz", ".pftrace", ".json"}) {
    const std::string e = ext;
    if (out.size() > e.size() && out.ends_with(e)) return out.substr(0, out.size() - e.size()) + "." + part + e;
  }
  return out + "." + part;
}

std::vector<SplitPart> split_parts(Session& session, const Options& o, const Window& w) {
  std::vector<SplitPart> parts;
  if (o.split == "ranks") {
    ResultSet rs = session.run("SELECT db FROM rocpd_members ORDER BY db COLLATE rocpd_natural");
    for (const auto& r : rs.rows) {
      const std::string& db = r[0].text;
      if (!o.dbs.empty() && std::find(o.dbs.begin(), o.dbs.end(), db) == o.dbs.end()) continue;
      parts.push_back({part_file(o.out, file_safe(db)), w.start, w.end, {db}});
    }
    return parts;
  }
  if (o.split == "steps") {
    // A job step: the ranges of every member with one name (ProfilerStep#3 on each rank), from the
    // first start to the last end, clipped to the window.
    ResultSet rs = session.run(
        "SELECT name, min(start), max(\"end\") FROM rocpd_apis WHERE domain = 'marker' AND \"end\" > start"
        " AND name LIKE rocpd_step_pattern() GROUP BY name ORDER BY min(start), name");
    for (const auto& r : rs.rows) {
      SplitPart p{part_file(o.out, file_safe(r[0].text)), later(w.start, r[1].integer), earlier(w.end, r[2].integer), {}};
      if (*p.start < *p.end) parts.push_back(std::move(p));
    }
    if (parts.empty())
      throw CliError("--split steps: no step ranges in the window (marker ranges named like '" +
                     session.scalar("SELECT rocpd_step_pattern()").text + "'); --steps PATTERN chooses them");
    return parts;
  }
  // N equal windows of [start, end), the job's first and last timestamps where the window is open;
  // the first and last parts keep an open side open, so that together they hold the whole export.
  const long long n = std::stoll(o.split);
  ResultSet span = session.run("SELECT min(first_ns), max(last_ns) FROM rocpd_members");
  if (span.rows.empty() || span.rows[0][0].type != Cell::Type::Integer)
    throw CliError("--split " + o.split + ": the job has no timestamps to divide");
  const std::int64_t lo = w.start.value_or(span.rows[0][0].integer), hi = w.end.value_or(span.rows[0][1].integer);
  if (hi <= lo) throw CliError("--split " + o.split + ": the window is empty");
  auto edge = [&](long long k) {
    return static_cast<std::int64_t>(lo + static_cast<__int128>(hi - lo) * k / n);
  };
  for (long long k = 0; k < n; ++k) {
    std::optional<std::int64_t> s = k == 0 ? w.start : std::optional<std::int64_t>(edge(k));
    std::optional<std::int64_t> e = k == n - 1 ? w.end : std::optional<std::int64_t>(edge(k + 1));
    if (s && e && *s >= *e) continue;  // a span of fewer ns than parts
    parts.push_back({part_file(o.out, std::to_string(k)), s, e, {}});
  }
  return parts;
}

}  // namespace rocpd_cli
