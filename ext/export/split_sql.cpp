// SQL function rocpd_export_split(path, by [, start_ns, end_ns [, options]]): one job written as
// several trace files, each one export of rocpd_export_trace over its part (docs/export.md,
// "Splitting a job"). Parts by time (N windows, or steps) hold the rows that start in them, so
// that together they hold each row of the whole export once.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "common/sqlite_util.h"
#include "export/trace_export.h"

namespace rocpd::exporter {

namespace {

constexpr const char* kSplitFn = "rocpd_export_split";

struct Part {
  std::string name;                    // in the file name: OUT.<name>.json
  std::optional<int64_t> start, end;   // [start, end); nullopt: open
  std::optional<std::string> db;       // by ranks: this member only
};

// A member or step name as part of a file name: letters, digits, '-', '_' and '.' kept.
std::string file_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  return out.empty() ? "_" : out;
}

// "trace.json" + "3" -> "trace.3.json" (also .json.gz and .pftrace, in any case).
std::string part_file(const std::string& out, const std::string& part) {
  for (const char* ext : {".json.gz", ".pftrace", ".json"}) {
    const std::string e = ext;
    if (out.size() <= e.size()) continue;
    std::string tail = out.substr(out.size() - e.size());
    for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tail == e) return out.substr(0, out.size() - e.size()) + "." + part + out.substr(out.size() - e.size());
  }
  return out + "." + part;
}

// The parts' windows clipped to the export's [lo, hi); a part left empty by the clip is dropped.
void clip_add(std::vector<Part>& parts, Part p, const ExportRequest& req) {
  if (req.lo && (!p.start || *p.start < *req.lo)) p.start = req.lo;
  if (req.hi && (!p.end || *p.end > *req.hi)) p.end = req.hi;
  if (p.start && p.end && *p.start >= *p.end) return;
  parts.push_back(std::move(p));
}

std::vector<Part> by_time(sqlite3* db, const ExportRequest& req, const std::vector<std::string>& members, int64_t n) {
  std::optional<int64_t> first, last;
  Stmt s = prepare(db, "SELECT first_ns, last_ns FROM temp.rocpd_members WHERE db = ?1", kSplitFn);
  for (const std::string& m : members) {
    sqlite3_reset(s.get());
    sqlite3_bind_text(s.get(), 1, m.data(), static_cast<int>(m.size()), SQLITE_TRANSIENT);
    if (!step(s.get(), kSplitFn)) continue;
    if (sqlite3_column_type(s.get(), 0) == SQLITE_INTEGER)
      first = std::min(first.value_or(INT64_MAX), static_cast<int64_t>(sqlite3_column_int64(s.get(), 0)));
    if (sqlite3_column_type(s.get(), 1) == SQLITE_INTEGER)
      last = std::max(last.value_or(INT64_MIN), static_cast<int64_t>(sqlite3_column_int64(s.get(), 1)));
  }
  const std::optional<int64_t> lo = req.lo ? req.lo : first, hi = req.hi ? req.hi : last;
  if (!lo || !hi) throw Error(fmt::format("{}: the members exported have no timestamps to divide", kSplitFn));
  // Equal windows of [lo, hi); the first and last parts keep an open side of the window open, so
  // that together they hold every row of the whole export.
  std::vector<Part> parts;
  auto edge = [&](int64_t k) { return static_cast<int64_t>(*lo + static_cast<__int128>(*hi - *lo) * k / n); };
  for (int64_t k = 0; k < n; ++k) {
    Part p{std::to_string(k), k == 0 ? req.lo : std::optional<int64_t>(edge(k)),
           k == n - 1 ? req.hi : std::optional<int64_t>(edge(k + 1)), std::nullopt};
    if (p.start && p.end && *p.start >= *p.end) continue;  // a span of fewer ns than parts
    parts.push_back(std::move(p));
  }
  return parts;
}

// Steps: the marker ranges named like rocpd_step_pattern(), one step per name over the members
// exported. Step k's part runs from its first start to the next step's first start, the last
// step's to its last end; rows before the first step and after the last are parts "before" and
// "after".
std::vector<Part> by_steps(sqlite3* db, const ExportRequest& req, const std::vector<std::string>& members) {
  const std::set<std::string> chosen(members.begin(), members.end());
  struct Step {
    int64_t start, end;
  };
  std::map<std::string, Step> steps;
  Stmt s = prepare(db,
                   "SELECT db, name, start, \"end\" FROM temp.rocpd_apis WHERE domain = 'marker' AND \"end\" > start"
                   " AND name LIKE rocpd_step_pattern()",
                   kSplitFn);
  while (step(s.get(), kSplitFn)) {
    if (!chosen.count(std::string(column_text(s.get(), 0)))) continue;
    const std::string name(column_text(s.get(), 1));
    const int64_t a = sqlite3_column_int64(s.get(), 2), b = sqlite3_column_int64(s.get(), 3);
    auto [it, fresh] = steps.try_emplace(name, Step{a, b});
    if (!fresh) it->second = {std::min(it->second.start, a), std::max(it->second.end, b)};
  }
  std::vector<std::pair<std::string, Step>> order(steps.begin(), steps.end());
  std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    return x.second.start != y.second.start ? x.second.start < y.second.start : x.first < y.first;
  });
  std::vector<Part> parts;
  if (order.empty()) {
    Stmt p = prepare(db, "SELECT rocpd_step_pattern()", kSplitFn);
    step(p.get(), kSplitFn);
    throw Error(fmt::format("{}: no step ranges (marker ranges named like '{}', rocpd_step_pattern()) in the members "
                            "exported",
                            kSplitFn, column_text(p.get(), 0)));
  }
  clip_add(parts, {"before", std::nullopt, order.front().second.start, std::nullopt}, req);
  for (size_t k = 0; k < order.size(); ++k) {
    const int64_t end = k + 1 < order.size() ? order[k + 1].second.start : order[k].second.end;
    if (order[k].second.start < end) clip_add(parts, {order[k].first, order[k].second.start, end, std::nullopt}, req);
  }
  clip_add(parts, {"after", order.back().second.end, std::nullopt, std::nullopt}, req);
  return parts;
}

// The by argument: 'ranks', 'steps' or a number of time windows from 1 to 10000.
std::string by_arg(sqlite3_value* v, int64_t& n) {
  n = 0;
  if (sqlite3_value_type(v) == SQLITE_INTEGER) {
    n = sqlite3_value_int64(v);
  } else if (sqlite3_value_type(v) == SQLITE_TEXT) {
    const std::string t(reinterpret_cast<const char*>(sqlite3_value_text(v)));
    if (t == "ranks" || t == "steps") return t;
    if (!t.empty() && t.size() <= 5 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
      n = std::stoll(t);
    else
      n = -1;
  } else {
    n = -1;
  }
  if (n < 1 || n > 10000) {
    const char* t = reinterpret_cast<const char*>(sqlite3_value_text(v));
    throw Error(fmt::format("{}: by must be 'ranks', 'steps' or a number of time windows from 1 to 10000, got '{}'",
                            kSplitFn, t ? t : "NULL"));
  }
  return "time";
}

// The parts of the split, with file names distinct even where two names become one (rank/0, rank_0).
std::vector<Part> plan_parts(sqlite3* db, const ExportRequest& req, const std::string& by, int64_t n) {
  std::vector<std::string> members;
  try {
    members = export_member_names(db, req);
  } catch (const Error& e) {
    // Its errors are those of the options given here.
    const std::string what = e.what(), prefix = std::string(kFn) + ": ";
    if (!what.starts_with(prefix)) throw;
    throw Error(fmt::format("{}: {}", kSplitFn, what.substr(prefix.size())), e.code());
  }
  if (members.empty()) throw Error(fmt::format("{}: no member to export (rocpd_open a job or ATTACH a trace first)", kSplitFn));
  std::vector<Part> parts;
  if (by == "ranks") {
    for (const std::string& m : members) parts.push_back({m, req.lo, req.hi, m});
  } else if (by == "steps") {
    parts = by_steps(db, req, members);
  } else {
    parts = by_time(db, req, members, n);
  }
  std::set<std::string> taken;
  for (Part& p : parts) {
    std::string name = file_safe(p.name);
    for (int k = 2; !taken.insert(name).second; ++k) name = file_safe(p.name) + "-" + std::to_string(k);
    p.name = name;
  }
  return parts;
}

// Exports each part; the JSON array of what was written.
std::string write_parts(sqlite3* db, const ExportRequest& req, const std::string& path, bool by_ranks,
                        const std::vector<Part>& parts) {
  std::string out = "[";
  Stmt obj = prepare(db,
                     "SELECT json_object('part', ?1, 'file', ?2, 'start_ns', ?3, 'end_ns', ?4, 'db', ?5, 'events', ?6)",
                     kSplitFn);
  for (const Part& p : parts) {
    ExportRequest part = req;
    part.path = part_file(path, p.name);
    part.lo = p.start;
    part.hi = p.end;
    // The first part keeps the rows that start before the window and reach into it, as the
    // whole export does; every later one starts where the one before it ends.
    part.by_start = !by_ranks && &p != &parts.front();
    part.allow_empty = true;
    if (p.db) part.dbs = std::vector<std::string>{*p.db};
    ExportResult r;
    try {
      r = export_trace(db, part);
    } catch (const Error& e) {
      if (e.code() == SQLITE_INTERRUPT) throw;
      throw Error(fmt::format("{}: part {}: {}", kSplitFn, p.name, e.what()), e.code());
    }
    sqlite3_reset(obj.get());
    sqlite3_bind_text(obj.get(), 1, p.name.data(), static_cast<int>(p.name.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(obj.get(), 2, part.path.data(), static_cast<int>(part.path.size()), SQLITE_TRANSIENT);
    if (p.start) sqlite3_bind_int64(obj.get(), 3, *p.start);
    else sqlite3_bind_null(obj.get(), 3);
    if (p.end) sqlite3_bind_int64(obj.get(), 4, *p.end);
    else sqlite3_bind_null(obj.get(), 4);
    if (p.db) sqlite3_bind_text(obj.get(), 5, p.db->data(), static_cast<int>(p.db->size()), SQLITE_TRANSIENT);
    else sqlite3_bind_null(obj.get(), 5);
    sqlite3_bind_int64(obj.get(), 6, static_cast<sqlite3_int64>(r.events));
    step(obj.get(), kSplitFn);
    out += (out.size() > 1 ? "," : "") + std::string(column_text(obj.get(), 0));
  }
  return out + "]";
}

void export_split_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (argc < 2 || argc > 5) {
      throw Error(fmt::format("{}: takes 2 to 5 arguments (path, by [, start_ns, end_ns [, options]]), got {}",
                              kSplitFn, argc));
    }
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_bytes(argv[0]) == 0)
      throw Error(fmt::format("{}: path must be a non-empty text", kSplitFn));
    const std::string path = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    int64_t n = 0;
    const std::string by = by_arg(argv[1], n);
    ExportRequest req;
    if (argc >= 3) req.lo = export_bound_arg(argv[2], "start_ns", kSplitFn);
    if (argc >= 4) req.hi = export_bound_arg(argv[3], "end_ns", kSplitFn);
    if (req.lo && req.hi && *req.hi <= *req.lo)
      throw Error(fmt::format("{}: end_ns ({}) must be greater than start_ns ({})", kSplitFn, *req.hi, *req.lo));
    sqlite3* db = sqlite3_context_db_handle(ctx);
    if (argc >= 5) parse_export_options(db, argv[4], req, kSplitFn);
    const std::string out = write_parts(db, req, path, by == "ranks", plan_parts(db, req, by, n));
    sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

void register_export_split(sqlite3* db) {
  for (int arity = 2; arity <= 5; ++arity) {
    const int rc =
        sqlite3_create_function_v2(db, kSplitFn, arity, kFileFunction, nullptr, export_split_fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("{}: registration failed: {}", kSplitFn, sqlite3_errstr(rc)), rc);
  }
}

}  // namespace rocpd::exporter
