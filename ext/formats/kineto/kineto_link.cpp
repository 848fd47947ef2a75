#include "formats/kineto/kineto_link.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

namespace rocpd::formats::kineto {

namespace {

// The categories of flows that link a launch to its GPU work, as Kineto named them over time:
// "async" (2020-2021, name "launch"), "async_gpu" (2021), "async_cpu_to_gpu" (2021-2023), "ac2g".
constexpr const char* kLaunchFlowCats =
    "(SELECT id FROM kineto_strings WHERE string IN ('ac2g', 'async_cpu_to_gpu', 'async_gpu', 'async'))";
// Calls that launch GPU work (they carry a correlation id).
constexpr const char* kLaunchingCall =
    "(domain IN ('cuda', 'hip', 'cuda_driver') OR domain GLOB '*_runtime' OR domain GLOB '*_driver')";

class Sql {
 public:
  Sql(sqlite3* db, const std::string& label) : db_(db), label_(label) {}
  void run(const std::string& sql) { exec(db_, sql.c_str(), label_); }
  std::optional<int64_t> integer(const std::string& sql) {
    Stmt s = prepare(db_, sql, label_);
    if (!step(s.get(), label_) || sqlite3_column_type(s.get(), 0) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_int64(s.get(), 0);
  }
  int64_t count(const std::string& sql) { return integer(sql).value_or(0); }
  void meta(const char* tag, int64_t v) {
    Stmt s = prepare(db_, "INSERT OR REPLACE INTO kineto_metadata(tag, value) VALUES (?1, ?2)", label_);
    sqlite3_bind_text(s.get(), 1, tag, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s.get(), 2, v);
    step(s.get(), label_);
  }
  void meta(const char* tag, const std::string& v) {
    Stmt s = prepare(db_, "INSERT OR REPLACE INTO kineto_metadata(tag, value) VALUES (?1, ?2)", label_);
    sqlite3_bind_text(s.get(), 1, tag, -1, SQLITE_STATIC);
    sqlite3_bind_text(s.get(), 2, v.c_str(), -1, SQLITE_TRANSIENT);
    step(s.get(), label_);
  }
  sqlite3* db() const { return db_; }
  const std::string& label() const { return label_; }

 private:
  sqlite3* db_;
  const std::string& label_;
};

// A late baseTimeNanoseconds: every time so far is relative to it.
void add_base(Sql& sql, int64_t base) {
  struct Cols {
    const char* table;
    std::vector<const char*> cols;
  };
  const Cols tables[] = {{"kineto_ops", {"start", "\"end\""}},          {"kineto_calls", {"start", "\"end\""}},
                         {"kineto_profiler_ranges", {"start", "\"end\""}}, {"kineto_counter_events", {"ts"}},
                         {"kineto_flows", {"ts"}},                       {"kineto_other", {"start", "\"end\""}}};
  for (const auto& t : tables) {
    for (const char* c : t.cols) {
      const auto hi = sql.integer(fmt::format("SELECT max({}) FROM {}", c, t.table));
      const auto lo = sql.integer(fmt::format("SELECT min({}) FROM {}", c, t.table));
      int64_t r = 0;
      if ((hi && __builtin_add_overflow(*hi, base, &r)) || (lo && __builtin_add_overflow(*lo, base, &r)))
        throw Error(fmt::format("{}: a time plus baseTimeNanoseconds is past the int64 range of ns", sql.label()));
    }
    std::string set;
    for (const char* c : t.cols) set += fmt::format("{}{} = {} + {}", set.empty() ? "" : ", ", c, c, base);
    sql.run(fmt::format("UPDATE {} SET {}", t.table, set));
  }
}

// distributedInfo.rank / world_size / backend, and one kineto_devices row per deviceProperties element.
void read_metadata(Sql& sql) {
  Stmt s = prepare(sql.db(),
                   "SELECT json_valid(value) AND json_type(value) = 'object', json_type(value, '$.rank'), "
                   "json_extract(value, '$.rank'), json_type(value, '$.world_size'), "
                   "json_extract(value, '$.world_size'), json_type(value, '$.backend'), json_extract(value, '$.backend') "
                   "FROM kineto_metadata WHERE tag = 'distributedInfo'",
                   sql.label());
  if (step(s.get(), sql.label())) {
    if (!sqlite3_column_int(s.get(), 0))
      throw Error(fmt::format("{}: \"distributedInfo\" is not an object", sql.label()));
    auto integer = [&](int type_col, const char* key, const char* tag) {
      if (sqlite3_column_type(s.get(), type_col) == SQLITE_NULL) return;
      const std::string type(column_text(s.get(), type_col));
      if (type != "integer")
        throw Error(fmt::format("{}: distributedInfo.{} is {}, not an integer", sql.label(), key, type));
      sql.meta(tag, sqlite3_column_int64(s.get(), type_col + 1));
    };
    integer(1, "rank", "import.rank");
    integer(3, "world_size", "import.world_size");
    if (column_text(s.get(), 5) == "text") sql.meta("import.backend", std::string(column_text(s.get(), 6)));
  }
  s.reset();
  sql.run(
      "INSERT INTO kineto_devices(device, name, properties) "
      "SELECT CASE WHEN json_type(j.value, '$.id') = 'integer' THEN json_extract(j.value, '$.id') END, "
      "CASE WHEN json_type(j.value, '$.name') = 'text' THEN json_extract(j.value, '$.name') END, j.value "
      "FROM kineto_metadata AS m, json_each(m.value) AS j "
      "WHERE m.tag = 'deviceProperties' AND json_valid(m.value) AND json_type(m.value) = 'array' "
      "AND j.type = 'object' ORDER BY j.id");
}

// Ops and launching calls without a correlation arg take their launch flow's: an `f` point at
// the op's start on its row, an `s` point at the start of a call on its thread, carry the id
// Kineto numbers both ends of a launch flow with, the correlation id (every version since 2020).
// What an event writes itself wins: a flow never replaces an args.correlation, and a call's flow
// is never looked up to re-link an op (a flow whose id differs from the correlation of the call it
// starts at links nothing that call does not link itself). Of several launch flows at one point,
// the first in the file. The rows to look at are the ones RowWriter listed (written without a
// correlation); each is one lookup in a table of the flows' first points: linear in events
// (n log n), whatever the shape (many calls or flows at one point, many uncorrelated rows).
void link_flows(Sql& sql) {
  if (!sql.count(fmt::format("SELECT EXISTS (SELECT 1 FROM kineto_flows WHERE cat_id IN {})", kLaunchFlowCats))) return;
  const bool ops = sql.count("SELECT EXISTS (SELECT 1 FROM temp.kineto_uncorrelated_ops)");
  const bool calls = sql.count("SELECT EXISTS (SELECT 1 FROM temp.kineto_uncorrelated_calls)");
  if (!ops && !calls) return;
  // Declared INTEGER like the columns they are compared with, so that the key serves the lookups.
  sql.run("CREATE TEMP TABLE kineto_flow_points(ph TEXT NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL, "
          "ts INTEGER NOT NULL, flow_id INTEGER, PRIMARY KEY (ph, pid, tid, ts)) WITHOUT ROWID");
  const std::string phases = ops && calls ? "('s', 'f')" : ops ? "('f')" : "('s')";
  sql.run(fmt::format(
      "INSERT OR IGNORE INTO temp.kineto_flow_points SELECT ph, pid, tid, ts, flow_id FROM kineto_flows "
      "WHERE ph IN {} AND cat_id IN {} AND typeof(flow_id) = 'integer' AND pid IS NOT NULL AND tid IS NOT NULL "
      "AND ts IS NOT NULL ORDER BY id",
      phases, kLaunchFlowCats));
  if (calls)
    sql.run(fmt::format(
        "UPDATE kineto_calls SET correlation = (SELECT p.flow_id FROM temp.kineto_flow_points AS p WHERE p.ph = 's' "
        "AND p.pid = kineto_calls.pid AND p.tid = kineto_calls.tid AND p.ts = kineto_calls.start) "
        "WHERE id IN (SELECT id FROM temp.kineto_uncorrelated_calls) AND correlation IS NULL AND {}",
        kLaunchingCall));
  if (ops)
    sql.run("UPDATE kineto_ops SET correlation = (SELECT p.flow_id FROM temp.kineto_flow_points AS p WHERE p.ph = 'f' "
            "AND p.pid = kineto_ops.event_pid AND p.tid = kineto_ops.event_tid AND p.ts = kineto_ops.start) "
            "WHERE id IN (SELECT id FROM temp.kineto_uncorrelated_ops) AND correlation IS NULL");
  sql.run("DROP TABLE temp.kineto_flow_points");
}

// A member's correlation ids name one call each (the diagnosis relies on it): of calls sharing
// one, the earliest (then the first written) keeps it. Returns how many lost theirs. One sort of
// the calls with a correlation, whatever the order of their times.
int64_t unique_correlations(Sql& sql) {
  sql.run("CREATE INDEX kineto_calls_correlation ON kineto_calls(correlation) WHERE correlation IS NOT NULL");
  if (!sql.count("SELECT EXISTS (SELECT 1 FROM kineto_calls WHERE correlation IS NOT NULL "
                 "GROUP BY correlation HAVING count(*) > 1)"))
    return 0;
  sql.run("CREATE TEMP TABLE kineto_repeated(id INTEGER PRIMARY KEY)");
  sql.run("INSERT INTO temp.kineto_repeated SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY correlation "
          "ORDER BY start, id) AS n FROM kineto_calls WHERE correlation IS NOT NULL) WHERE n > 1");
  sql.run("UPDATE kineto_calls SET correlation = NULL WHERE id IN (SELECT id FROM temp.kineto_repeated)");
  const int64_t changed = sqlite3_changes64(sql.db());
  sql.run("DROP TABLE temp.kineto_repeated");
  return changed;
}

// Each op's process: its launching call's, else the trace's main process (the pid with most
// calls; kineto_ops.pid NULL, import.main_pid). Kineto draws GPU work on rows named by device,
// not by process; a trace of one process needs no lookup.
int64_t assign_processes(Sql& sql, const ProcessCalls* counted) {
  std::optional<int64_t> main_pid;
  int64_t pids = 0;
  if (counted && !counted->overflow) {
    int64_t most = 0;
    for (const auto& [pid, calls] : counted->calls)  // ascending pids: the smallest wins a tie
      if (calls > most) most = calls, main_pid = pid;
    pids = static_cast<int64_t>(counted->calls.size());
  } else {
    main_pid = sql.integer(fmt::format(
        "SELECT pid FROM kineto_calls WHERE domain NOT IN {} GROUP BY pid ORDER BY count(*) DESC, pid LIMIT 1",
        kGpuSideDomains));
    pids = sql.count(
        fmt::format("SELECT count(DISTINCT pid) FROM kineto_calls WHERE domain NOT IN {}", kGpuSideDomains));
  }
  if (pids > 1)
    sql.run("UPDATE kineto_ops SET pid = (SELECT c.pid FROM kineto_calls AS c WHERE c.correlation = "
            "kineto_ops.correlation)");
  if (main_pid) sql.meta("import.main_pid", *main_pid);
  return main_pid.value_or(0);
}

// cuda_profiler_range events carry no correlation id: as HTA's counter analysis does
// (hta/analyzers/cupti_counter_analysis.py), the i-th range in time order is the kernel of the
// i-th cudaLaunchKernel call (cuda_runtime, name starting "cudaLaunchKernel") in time order, and
// only when both counts agree. The match is recorded in import.counter_ranges.
void match_profiler_ranges(Sql& sql) {
  const int64_t ranges = sql.count("SELECT count(*) FROM kineto_profiler_ranges");
  if (ranges == 0) return;
  const std::string launches_sql =
      "SELECT c.id, c.pid, c.start FROM kineto_calls AS c JOIN kineto_strings AS n ON n.id = c.name_id "
      "WHERE c.domain = 'cuda' AND n.string GLOB 'cudaLaunchKernel*'";
  const int64_t launches = sql.count(fmt::format("SELECT count(*) FROM ({})", launches_sql));
  const int64_t processes = sql.count(fmt::format("SELECT count(DISTINCT pid) FROM ({})", launches_sql));
  std::string status;
  if (launches == ranges && processes <= 1) {
    sql.run("CREATE TEMP TABLE kineto_match(range_id INTEGER PRIMARY KEY, launch INTEGER)");
    sql.run(fmt::format(
        "INSERT INTO temp.kineto_match SELECT r.id, l.id FROM"
        " (SELECT id, row_number() OVER (ORDER BY start, id) AS n FROM kineto_profiler_ranges) AS r JOIN"
        " (SELECT id, row_number() OVER (ORDER BY start, id) AS n FROM ({})) AS l USING (n)",
        launches_sql));
    sql.run("UPDATE kineto_profiler_ranges SET launch = (SELECT launch FROM temp.kineto_match AS m "
            "WHERE m.range_id = kineto_profiler_ranges.id)");
    sql.run("DROP TABLE temp.kineto_match");
    status = fmt::format("matched: {} ranges to {} cudaLaunchKernel calls", ranges, launches);
  } else if (launches != ranges) {
    status = fmt::format("unmatched: {} cuda_profiler_range events but {} cudaLaunchKernel calls", ranges, launches);
  } else {
    status = fmt::format("unmatched: cudaLaunchKernel calls from {} processes", processes);
  }
  sql.meta("import.counter_ranges", status);

  if (!sql.count("SELECT EXISTS (SELECT 1 FROM kineto_ops WHERE kind = 'kernel')")) {
    // CUPTI's range profiler records no kernel events: each range stands for its kernel.
    const int64_t first_op = sql.count("SELECT coalesce(max(id), 0) + 1 FROM kineto_ops");
    const int64_t first_range = sql.count("SELECT min(id) FROM kineto_profiler_ranges");
    if (sql.count("SELECT max(id) - min(id) + 1 FROM kineto_profiler_ranges") != ranges)
      throw Error(fmt::format("{}: internal error: profiler range ids are not consecutive", sql.label()));
    sql.run(fmt::format(
        "INSERT INTO kineto_ops(event, kind, cat_id, name_id, pid, event_pid, event_tid, gpu, stream, start, \"end\", "
        "correlation) SELECT r.event, 'kernel', (SELECT min(id) FROM kineto_strings WHERE string = "
        "'cuda_profiler_range'), r.name_id, c.pid, r.pid, r.tid, "
        "CASE WHEN typeof(r.pid) = 'integer' THEN r.pid END, CASE WHEN typeof(r.tid) = 'integer' THEN r.tid END, "
        "r.start, r.\"end\", c.correlation FROM kineto_profiler_ranges AS r LEFT JOIN kineto_calls AS c ON c.id = r.launch "
        "ORDER BY r.id"));
    sql.run(fmt::format("UPDATE kineto_profiler_ranges SET op = {} + id - {}", first_op, first_range));
  } else {
    sql.run("CREATE INDEX kineto_ops_correlation ON kineto_ops(correlation)");
    sql.run("UPDATE kineto_profiler_ranges SET op = (SELECT min(o.id) FROM kineto_calls AS c JOIN kineto_ops AS o "
            "ON o.correlation = c.correlation WHERE c.id = kineto_profiler_ranges.launch AND o.kind = 'kernel') "
            "WHERE launch IS NOT NULL");
    sql.run("DROP INDEX kineto_ops_correlation");
  }
}

int64_t store_counters(Sql& sql) {
  sql.run(
      "INSERT INTO kineto_counters(op, range_id, gpu, counter, value, start, \"end\") "
      "SELECT r.op, r.id, coalesce(o.gpu, CASE WHEN typeof(r.pid) = 'integer' THEN r.pid END), j.key, j.value, "
      "coalesce(o.start, r.start), coalesce(o.\"end\", r.\"end\") "
      "FROM kineto_profiler_ranges AS r LEFT JOIN kineto_ops AS o ON o.id = r.op, json_each(r.args) AS j "
      "WHERE r.args IS NOT NULL AND j.type IN ('integer', 'real') ORDER BY r.id, j.id");
  // Samples (ph C): pid "GPU <n> Counters" names the device; args {"": value} is the event's own counter.
  sql.run(
      "INSERT INTO kineto_counters(sample_id, gpu, counter, value, start, \"end\") "
      "SELECT e.id, CASE WHEN typeof(e.pid) = 'integer' THEN e.pid "
      "WHEN e.pid GLOB 'GPU [0-9]*' THEN CAST(substr(e.pid, 5) AS INTEGER) END, "
      "CASE WHEN j.key = '' THEN n.string ELSE j.key END, j.value, e.ts, e.ts "
      "FROM kineto_counter_events AS e LEFT JOIN kineto_strings AS n ON n.id = e.name_id, json_each(e.args) AS j "
      "WHERE e.args IS NOT NULL AND j.type IN ('integer', 'real') ORDER BY e.id, j.id");
  return sql.count("SELECT count(*) FROM kineto_counters");
}

}  // namespace

void prepare_link(sqlite3* db, const std::string& label) {
  exec(db, "CREATE TEMP TABLE kineto_uncorrelated_ops(id INTEGER PRIMARY KEY); "
           "CREATE TEMP TABLE kineto_uncorrelated_calls(id INTEGER PRIMARY KEY)", label);
}

int64_t link_trace(sqlite3* db, const LinkInput& in, const std::string& label) {
  Sql sql(db, label);
  if (in.late_base_ns != 0) add_base(sql, in.late_base_ns);
  read_metadata(sql);
  link_flows(sql);
  const int64_t duplicates = unique_correlations(sql);
  assign_processes(sql, in.processes);
  match_profiler_ranges(sql);
  const int64_t counters = store_counters(sql);
  sql.run("DROP TABLE temp.kineto_uncorrelated_ops; DROP TABLE temp.kineto_uncorrelated_calls");
  sql.meta("import.layout_version", 1);
  sql.meta("import.events", in.events);
  sql.meta("import.duplicate_correlations", duplicates);
  return counters;
}

}  // namespace rocpd::formats::kineto
