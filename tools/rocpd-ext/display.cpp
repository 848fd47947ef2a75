#include "display.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "common/duration_text.h"

namespace rocpd_cli {

namespace {
bool ends_with(std::string_view s, std::string_view tail) { return s.size() >= tail.size() && s.ends_with(tail); }

struct Unit {
  const char* name;
  double scale;
};
constexpr std::array<Unit, 4> kUnits = {{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};

const Unit& unit_of(TimeUnit u) {
  switch (u) {
    case TimeUnit::Us: return kUnits[1];
    case TimeUnit::Ms: return kUnits[2];
    case TimeUnit::S: return kUnits[3];
    default: return kUnits[0];
  }
}

using rocpd::grouped_decimal;
}  // namespace

std::optional<TimeUnit> parse_time_unit(std::string_view name) {
  if (name == "auto") return TimeUnit::Auto;
  if (name == "ns") return TimeUnit::Ns;
  if (name == "us") return TimeUnit::Us;
  if (name == "ms") return TimeUnit::Ms;
  if (name == "s") return TimeUnit::S;
  return std::nullopt;
}

ColumnKind column_kind(std::string_view c) {
  if (c == "first_ns" || c == "last_ns" || c == "start" || c == "end" || c == "start_ns" || c == "end_ns")
    return ColumnKind::Timestamp;
  if (ends_with(c, "_ns")) return ColumnKind::Duration;
  if (ends_with(c, "bytes")) return ColumnKind::Bytes;
  if (c == "db" || c == "gpu" || c == "pid" || c == "tid" || c == "step" || c == "queue" || c == "stream" ||
      c == "rank" || c == "node" || c == "version" || c == "slowest_pid" || c == "world_size" || ends_with(c, "_id"))
    return ColumnKind::Id;
  return ColumnKind::Other;
}

std::string format_duration(double ns, TimeUnit unit) {
  if (unit != TimeUnit::Auto) {
    const Unit& u = unit_of(unit);
    return grouped_decimal(ns / u.scale, unit == TimeUnit::Ns ? (ns == std::floor(ns) ? 0 : 1) : 3);
  }
  return rocpd::duration_text(ns);
}

std::string format_bytes(double b) {
  double a = std::fabs(b);
  if (a < 1e3) return grouped_decimal(b, 0) + " B";
  if (a < 1e6) return grouped_decimal(b / 1e3, 2) + " kB";
  if (a < 1e9) return grouped_decimal(b / 1e6, 2) + " MB";
  return grouped_decimal(b / 1e9, 2) + " GB";
}

std::string with_separators(std::int64_t v) {
  std::string s = std::to_string(v), out;  // exact for every int64 (a double is not past 2^53)
  size_t first = s[0] == '-' ? 1 : 0;
  out = s.substr(0, first);
  for (size_t i = first; i < s.size(); ++i) {
    if (i > first && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

ResultSet for_display(const ResultSet& rs, TimeUnit unit) {
  ResultSet out = rs;
  for (size_t i = 0; i < out.columns.size(); ++i) {
    ColumnKind kind = column_kind(rs.columns[i]);
    if (kind == ColumnKind::Duration) {
      std::string base = rs.columns[i].substr(0, rs.columns[i].size() - 3);
      out.columns[i] = unit == TimeUnit::Auto ? base : base + "_" + unit_of(unit).name;
    }
    for (auto& row : out.rows) {
      Cell& c = row[i];
      if (!c.is_number()) continue;
      if (kind == ColumnKind::Duration) c.text = format_duration(c.number(), unit);
      else if (kind == ColumnKind::Bytes) c.text = format_bytes(c.number());
      else if (kind == ColumnKind::Other && c.type == Cell::Type::Integer) c.text = with_separators(c.integer);
    }
  }
  return out;
}

}  // namespace rocpd_cli
