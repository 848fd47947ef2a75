// SQL function rocpd_export_trace(path [, start_ns, end_ns [, options]]) (docs/export.md).
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "common/sqlite_util.h"
#include "common/terminal_text.h"
#include "export/trace_export.h"

namespace rocpd::exporter {

namespace {

const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "null";
  }
}

// A text array option: a text or an array of texts.
std::vector<std::string> text_list(sqlite3* db, sqlite3_stmt* s, const std::string& key, const std::string& type,
                                   const char* what, const char* plural, const char* fn) {
  std::vector<std::string> out;
  if (type == "text") {
    out.emplace_back(column_text(s, 2));
  } else if (type == "array") {
    Stmt e = prepare(db, "SELECT type, value FROM json_each(?1)", fn);
    sqlite3_bind_value(e.get(), 1, sqlite3_column_value(s, 2));
    while (step(e.get(), fn)) {
      if (column_text(e.get(), 0) != "text") {
        throw Error(fmt::format("{}: option {} must be {} or an array of {}, found {} '{}'", fn, key, what, plural,
                                column_text(e.get(), 0), column_text(e.get(), 1)));
      }
      out.emplace_back(column_text(e.get(), 1));
    }
  } else {
    throw Error(fmt::format("{}: option {} must be {} or an array of {}, got {}", fn, key, what, plural, type));
  }
  return out;
}

bool flag_option(sqlite3_stmt* s, const std::string& key, const std::string& type, const char* fn) {
  if (type == "true") return true;
  if (type == "false") return false;
  throw Error(fmt::format("{}: option {} must be true or false, got {} '{}'", fn, key, type, column_text(s, 2)));
}

}  // namespace

// An integer ns bound: INTEGER, or a REAL holding an exact integer; NULL: open side.
std::optional<int64_t> export_bound_arg(sqlite3_value* v, const char* what, const char* kFn) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type == SQLITE_INTEGER) return sqlite3_value_int64(v);
  if (type == SQLITE_FLOAT) {
    const double d = sqlite3_value_double(v);
    if (std::isfinite(d) && d == std::floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
      return static_cast<int64_t>(d);
    }
    throw Error(fmt::format("{}: {} must be an integer (ns), got real {}", kFn, what, d));
  }
  if (type == SQLITE_TEXT) {
    const char* t = reinterpret_cast<const char*>(sqlite3_value_text(v));
    throw Error(fmt::format("{}: {} must be an integer (ns), got text {}", kFn, what,
                            quoted_text(std::string_view(t ? t : "", t ? static_cast<size_t>(sqlite3_value_bytes(v)) : 0))));
  }
  throw Error(fmt::format("{}: {} must be an integer (ns), got {}", kFn, what, type_name(type)));
}

// The options object, parsed by SQLite's own JSON functions on the connection.
void parse_export_options(sqlite3* db, sqlite3_value* v, ExportRequest& req, const char* kFn) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return;
  if (sqlite3_value_type(v) != SQLITE_TEXT) {
    throw Error(fmt::format("{}: options must be a JSON object as text, got {}", kFn, type_name(sqlite3_value_type(v))));
  }
  {
    Stmt s = prepare(db, "SELECT json_valid(?1) AND json_type(?1) = 'object'", kFn);
    sqlite3_bind_value(s.get(), 1, v);
    if (!step(s.get(), kFn) || sqlite3_column_int(s.get(), 0) == 0) {
      throw Error(fmt::format("{}: options must be a JSON object, e.g. '{{\"db\": [\"rank0\"]}}', got '{}'", kFn,
                              reinterpret_cast<const char*>(sqlite3_value_text(v))));
    }
  }
  Stmt s = prepare(db, "SELECT key, type, value FROM json_each(?1)", kFn);
  sqlite3_bind_value(s.get(), 1, v);
  bool counters = true;  // false: no counter track, whatever utilization_buckets says
  while (step(s.get(), kFn)) {
    const std::string key(column_text(s.get(), 0));
    const std::string type(column_text(s.get(), 1));
    if (key == "db") {
      req.dbs = text_list(db, s.get(), key, type, "a member name", "names", kFn);
    } else if (key == "members") {
      req.member_globs = text_list(db, s.get(), key, type, "a GLOB pattern of member names", "patterns", kFn);
      if (req.member_globs.empty()) throw Error(fmt::format("{}: option members: an empty array keeps no member", kFn));
    } else if (key == "drop_domains") {
      req.drop_domains = text_list(db, s.get(), key, type, "an API domain such as 'hsa' or 'marker'", "domains", kFn);
      for (std::string& d : req.drop_domains) {
        if (d.empty()) throw Error(fmt::format("{}: option drop_domains: an empty domain name", kFn));
        for (char& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    } else if (key == "counters") {
      counters = flag_option(s.get(), key, type, kFn);
    } else if (key == "args") {
      req.args = flag_option(s.get(), key, type, kFn);
    } else if (key == "utilization_buckets") {
      const int64_t n = sqlite3_column_int64(s.get(), 2);
      if (type != "integer" || n < 0 || n > 1000000) {
        throw Error(fmt::format("{}: option utilization_buckets must be an integer from 0 to 1000000, got {} {}", kFn,
                                type, column_text(s.get(), 2)));
      }
      req.utilization_buckets = n;
    } else if (key == "names") {
      const std::string v(column_text(s.get(), 2));
      if (type == "text" && v == "demangled") req.names = NameForm::demangled;
      else if (type == "text" && v == "display") req.names = NameForm::display;
      else if (type == "text" && v == "raw") req.names = NameForm::raw;
      else
        throw Error(fmt::format("{}: option names must be 'demangled' (the default), 'display' or 'raw', got {} '{}'",
                                kFn, type, v));
    } else {
      throw Error(fmt::format("{}: unknown option '{}' (known: args, counters, db, drop_domains, members, names, "
                              "utilization_buckets)",
                              kFn, key));
    }
  }
  if (!counters) req.utilization_buckets = 0;
}

namespace {

void export_trace_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (argc < 1 || argc > 4) {
      throw Error(fmt::format("{}: takes 1 to 4 arguments (path [, start_ns, end_ns [, options]]), got {}", kFn, argc));
    }
    ExportRequest req;
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_bytes(argv[0]) == 0) {
      throw Error(fmt::format("{}: path must be a non-empty text, got {}", kFn,
                              sqlite3_value_type(argv[0]) == SQLITE_TEXT ? "''" : type_name(sqlite3_value_type(argv[0]))));
    }
    req.path = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    if (argc >= 2) req.lo = export_bound_arg(argv[1], "start_ns", kFn);
    if (argc >= 3) req.hi = export_bound_arg(argv[2], "end_ns", kFn);
    sqlite3* db = sqlite3_context_db_handle(ctx);
    if (argc >= 4) parse_export_options(db, argv[3], req, kFn);
    const ExportResult r = export_trace(db, req);
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(r.events));
  });
}

}  // namespace

void register_export_trace(sqlite3* db) {
  for (int arity = 1; arity <= 4; ++arity) {
    const int rc = sqlite3_create_function_v2(db, kFn, arity, kFileFunction, nullptr, export_trace_fn, nullptr, nullptr,
                                              nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("{}: registration failed: {}", kFn, sqlite3_errstr(rc)), rc);
  }
}

}  // namespace rocpd::exporter
