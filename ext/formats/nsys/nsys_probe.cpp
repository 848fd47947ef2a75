// Probing an Nsight Systems export (docs/formats.md, "Nsight Systems exports"). No version list:
// the export schema changed its tables and columns over the years (2022's EXPORT_META_DATA became
// META_DATA_EXPORT, kernels gained mangledName and graphId, the session start systemClockNs), so
// the probe records which tables and columns the file has and the sources read those; every
// column it lacks reads NULL and gets a line in rocpd_members.notes. Refused are only files whose
// rows could not be read exactly: keys that could repeat, columns hiding rowids, processes whose
// correlation ids collide.
#include "formats/nsys/nsys_probe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>
#include <vector>

#include "formats/probe_util.h"

namespace rocpd::formats {

namespace {

// A column the sources read, with what a file without it shows (nullptr: said elsewhere).
struct Wanted {
  const char* column;
  char affinity;        // 'n' numeric, 't' text
  const char* without;  // the note's effect
};

struct EventTable {
  const char* table;
  std::vector<Wanted> columns;
};

const std::vector<EventTable>& event_tables() {
  static const std::vector<EventTable> tables = {
      {kNsysKernel,
       {{"start", 'n', "start and duration are NULL"},
        {"end", 'n', "end and duration are NULL"},
        {"deviceId", 'n', "gpu is NULL"},
        {"streamId", 'n', "stream is NULL"},
        {"correlationId", 'n', "correlation_id is NULL"},
        {"globalPid", 'n', "pid and correlation_id are NULL"},
        {"mangledName", 'n', nullptr},
        {"demangledName", 'n', nullptr},
        {"shortName", 'n', nullptr},
        {"graphId", 'n', "graph_id is NULL: graphNodeId names a node, not its graph"},
        {"gridX", 'n', "grid_x is NULL"},
        {"gridY", 'n', "grid_y is NULL"},
        {"gridZ", 'n', "grid_z is NULL"},
        {"blockX", 'n', "workgroup_x and grid_x are NULL"},
        {"blockY", 'n', "workgroup_y and grid_y are NULL"},
        {"blockZ", 'n', "workgroup_z and grid_z are NULL"},
        {"staticSharedMemory", 'n', "lds_bytes is NULL"},
        {"dynamicSharedMemory", 'n', "lds_bytes is NULL"},
        {"localMemoryPerThread", 'n', "scratch_bytes is NULL"},
        {"registersPerThread", 'n', "vgpr is NULL"}}},
      {kNsysMemcpy,
       {{"start", 'n', "start and duration are NULL"},
        {"end", 'n', "end and duration are NULL"},
        {"deviceId", 'n', "gpu is NULL"},
        {"streamId", 'n', "stream is NULL"},
        {"correlationId", 'n', "correlation_id is NULL"},
        {"globalPid", 'n', "pid and correlation_id are NULL"},
        {"bytes", 'n', "bytes is NULL"},
        {"copyKind", 'n', "copy names are NULL, src_gpu and dst_gpu come from srcKind and dstKind"},
        {"srcKind", 'n', nullptr},
        {"dstKind", 'n', nullptr},
        {"srcDeviceId", 'n', "src_gpu is the copy's own device"},
        {"dstDeviceId", 'n', "dst_gpu is the copy's own device"}}},
      {kNsysMemset,
       {{"start", 'n', "start and duration are NULL"},
        {"end", 'n', "end and duration are NULL"},
        {"deviceId", 'n', "gpu is NULL"},
        {"streamId", 'n', "stream is NULL"},
        {"correlationId", 'n', "correlation_id is NULL"},
        {"globalPid", 'n', "pid and correlation_id are NULL"}}},
      {kNsysRuntime,
       {{"start", 'n', "start and duration are NULL"},
        {"end", 'n', "end and duration are NULL"},
        {"globalTid", 'n', "pid, tid and correlation_id are NULL"},
        {"correlationId", 'n', "correlation_id is NULL"},
        {"nameId", 'n', "call names are NULL"},
        {"eventClass", 'n', "domain comes from the name (cuda...: cuda, cu...: cuda_driver)"}}},
      {kNsysNvtx,
       {{"start", 'n', "start and duration are NULL"},
        {"end", 'n', "range ends are NULL"},
        {"eventType", 'n', "NVTX rows are not read (ranges cannot be told from registrations)"},
        {"globalTid", 'n', "pid and tid are NULL"},
        {"text", 't', "only registered strings (textId) name ranges"},
        {"textId", 'n', "registered strings are not read: only inline text names ranges"}}},
      {kNsysSync,
       {{"start", 'n', "start and duration are NULL"},
        {"end", 'n', "end and duration are NULL"},
        {"globalPid", 'n', "pid is NULL"},
        {"syncType", 'n', "names are NULL"},
        {"deviceId", 'n', nullptr},
        {"streamId", 'n', nullptr},
        {"correlationId", 'n', nullptr},
        {"eventId", 'n', nullptr}}},
  };
  return tables;
}

// nsys's serialized GlobalId: PID = (id >> 24) & 0xFFFFFF.
constexpr const char* kPidOf = "CASE WHEN {0} <= 9223372036854775807 THEN ({0} >> 24) & 16777215 END";

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

// The first value of `name` in the export metadata table (META_DATA_EXPORT or EXPORT_META_DATA).
std::optional<std::string> meta_value(sqlite3* db, const std::string& schema, const char* table, const char* name) {
  auto stmt = prepare(db, fmt::format("SELECT value FROM {}.{} WHERE name = ?1 AND value IS NOT NULL ORDER BY rowid "
                                      "LIMIT 1",
                                      quote_id(schema), table));
  sqlite3_bind_text(stmt.get(), 1, name, -1, SQLITE_STATIC);
  if (!step(stmt.get())) return std::nullopt;
  return std::string(column_text(stmt.get(), 0));
}

bool has_columns(sqlite3* db, const std::string& schema, const Catalog& names, const char* table,
                 std::initializer_list<const char*> wanted) {
  if (!names.count(table)) return false;
  const auto cols = column_names(db, schema, table);
  for (const char* c : wanted)
    if (!cols.count(c)) return false;
  return true;
}

// Two processes of one report that share a pid would share correlation ids: refused by name.
// PROCESSES (when the report has it) lists every process with its full GlobalId.
void check_pids(sqlite3* db, const std::string& schema, const std::string& label) {
  auto stmt = prepare(db, fmt::format("SELECT p, min(g), max(g) FROM (SELECT globalPid AS g, {} AS p FROM "
                                      "{}.PROCESSES WHERE globalPid <= 9223372036854775807) GROUP BY p HAVING min(g) "
                                      "<> max(g) ORDER BY p LIMIT 1",
                                      fmt::format(kPidOf, "globalPid"), quote_id(schema)));
  if (step(stmt.get()))
    throw Error(fmt::format("{}: nsys report holds two processes with pid {} (globalPid {} and {}): their "
                            "correlation ids cannot be told apart",
                            label, sqlite3_column_int64(stmt.get(), 0), sqlite3_column_int64(stmt.get(), 1),
                            sqlite3_column_int64(stmt.get(), 2)));
}

std::set<int64_t> process_ids(sqlite3* db, const std::string& schema) {
  auto stmt = prepare(db, fmt::format("SELECT DISTINCT pid FROM {}.PROCESSES WHERE typeof(pid) = 'integer'",
                                      quote_id(schema)));
  std::set<int64_t> out;
  while (step(stmt.get())) out.insert(sqlite3_column_int64(stmt.get(), 0));
  return out;
}

// utc = time + anchor: the session start's UTC minus the session start on the export's clock
// (systemClockNs, written since 2026; older exports count their times from the session start).
std::optional<int64_t> utc_anchor(sqlite3* db, const std::string& schema, bool system_clock) {
  auto stmt = prepare(db, fmt::format("SELECT utcEpochNs, {} FROM {}.TARGET_INFO_SESSION_START_TIME ORDER BY rowid "
                                      "LIMIT 1",
                                      system_clock ? "systemClockNs" : "0", quote_id(schema)));
  if (!step(stmt.get()) || sqlite3_column_type(stmt.get(), 0) != SQLITE_INTEGER ||
      sqlite3_column_type(stmt.get(), 1) != SQLITE_INTEGER)
    return std::nullopt;
  int64_t anchor = 0;
  if (__builtin_sub_overflow(sqlite3_column_int64(stmt.get(), 0), sqlite3_column_int64(stmt.get(), 1), &anchor))
    return std::nullopt;
  return anchor;
}

std::map<int64_t, std::string> gpu_names(sqlite3* db, const std::string& schema) {
  auto stmt = prepare(db, fmt::format("SELECT id, name FROM {}.TARGET_INFO_GPU WHERE typeof(id) = 'integer' AND "
                                      "typeof(name) = 'text' ORDER BY rowid",
                                      quote_id(schema)));
  std::map<int64_t, std::string> out;
  while (step(stmt.get())) out.emplace(sqlite3_column_int64(stmt.get(), 0), std::string(column_text(stmt.get(), 1)));
  return out;
}

// TARGET_INFO_GPU beyond the name, the columns this export has, under rocpd_members.gpu_properties'
// keys. memoryBandwidth is read as bytes/s and clockRate as Hz, each only within a range a GPU can
// have (10 GB/s-100 TB/s, 100 MHz-10 GHz): a figure in other units is left out, never misread.
std::map<int64_t, std::string> gpu_properties(sqlite3* db, const std::string& schema) {
  const auto cols = column_names(db, schema, "TARGET_INFO_GPU");
  std::vector<std::string> items;
  auto integer = [&](const char* col, const char* key, const char* extra = "") {
    if (cols.count(col))
      items.push_back(fmt::format("'{}', CASE WHEN typeof({}) = 'integer'{} THEN {} END", key, quote_id(col), extra,
                                  quote_id(col)));
  };
  integer("smCount", "compute_units", " AND smCount > 0");
  integer("totalMemory", "memory_bytes", " AND totalMemory > 0");
  integer("memoryBandwidth", "mem_bytes_s", " AND memoryBandwidth BETWEEN 1e10 AND 1e14");
  if (cols.count("clockRate"))
    items.push_back("'clock_mhz', CASE WHEN typeof(clockRate) = 'integer' AND clockRate BETWEEN 1e8 AND 1e10 "
                    "THEN clockRate / 1e6 END");
  if (cols.count("computeMajor") && cols.count("computeMinor"))
    items.push_back("'compute_capability', CASE WHEN typeof(computeMajor) = 'integer' AND typeof(computeMinor) = "
                    "'integer' THEN computeMajor || '.' || computeMinor END");
  if (cols.count("chipName"))
    items.push_back("'chip', CASE WHEN typeof(chipName) = 'text' AND chipName <> '' THEN chipName END");
  if (items.empty()) return {};
  return gpu_property_rows(db, fmt::format("SELECT id, json_patch('{{}}', json_object({})) FROM {}.TARGET_INFO_GPU "
                                           "WHERE typeof(id) = 'integer' ORDER BY rowid",
                                           fmt::join(items, ", "), quote_id(schema)));
}

// The variables launchers set to the process's rank, in the order they are trusted: the global
// rank of PyTorch, Open MPI, MPICH/PMIx and Slurm; the local rank last (unique on one host only).
constexpr const char* kRankVariables[] = {"RANK",       "OMPI_COMM_WORLD_RANK", "PMI_RANK",   "PMIX_RANK",
                                          "SLURM_PROCID", "MV2_COMM_WORLD_RANK", "LOCAL_RANK"};

// The rank the recorded environment gives, and the variable it came from: the launched process's
// environment (META_DATA_CAPTURE, since 2023) or the target's (TARGET_INFO_SYSTEM_ENV rows).
std::optional<std::pair<int64_t, std::string>> environment_rank(sqlite3* db, const std::string& schema,
                                                                 const Catalog& names) {
  std::vector<std::string> values;
  if (has_columns(db, schema, names, "META_DATA_CAPTURE", {"name", "value"})) {
    auto stmt = prepare(db, fmt::format("SELECT value FROM {}.META_DATA_CAPTURE WHERE name LIKE "
                                        "'PROCESS\\_%:ENVIRONMENT\\_VARIABLE' ESCAPE '\\' AND typeof(value) = 'text' "
                                        "ORDER BY rowid",
                                        quote_id(schema)));
    while (step(stmt.get())) values.emplace_back(column_text(stmt.get(), 0));
  }
  if (has_columns(db, schema, names, "TARGET_INFO_SYSTEM_ENV", {"name", "value"})) {
    auto stmt = prepare(db, fmt::format("SELECT name || '=\"' || value || '\"' FROM {}.TARGET_INFO_SYSTEM_ENV "
                                        "WHERE typeof(name) = 'text' AND typeof(value) = 'text' ORDER BY rowid",
                                        quote_id(schema)));
    while (step(stmt.get())) values.emplace_back(column_text(stmt.get(), 0));
  }
  for (const char* var : kRankVariables)
    for (const auto& v : values)
      if (auto rank = nsys_env_value(v, var)) return std::pair{*rank, std::string(var)};
  return std::nullopt;
}

std::optional<int64_t> parse_rank(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  return std::strtoll(std::string(digits).c_str(), nullptr, 10);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The notes on the kernel names a file can give (mangledName and demangledName are optional).
void kernel_name_notes(const NsysDetails& d, std::vector<std::string>& notes) {
  if (!d.has(kNsysKernel)) return;
  const bool mangled = d.has(kNsysKernel, "mangledName"), demangled = d.has(kNsysKernel, "demangledName"),
             base = d.has(kNsysKernel, "shortName");
  if (!d.strings)
    notes.push_back("no StringIds table (id, value): kernel, call and registered NVTX names are NULL");
  else if (!mangled && !demangled && !base)
    notes.push_back(fmt::format("{} lacks mangledName, demangledName and shortName: kernel names are NULL", kNsysKernel));
  else if (!mangled && !demangled)
    notes.push_back(fmt::format("{} lacks mangledName and demangledName: names are the base names (shortName), "
                                "demangled is NULL",
                                kNsysKernel));
  else if (!mangled)
    notes.push_back(fmt::format("{} lacks mangledName: names are the demangled ones (nsys stats' default report)",
                                kNsysKernel));
  else if (!demangled)
    notes.push_back(fmt::format("{} lacks demangledName: demangled is NULL", kNsysKernel));
}

}  // namespace

bool nsys_claims(const Catalog& c) {
  const bool meta = c.count("META_DATA_EXPORT") || c.count("EXPORT_META_DATA") || c.count("StringIds");
  if (!meta) return false;
  for (const char* t : {kNsysKernel, kNsysMemcpy, kNsysMemset, kNsysRuntime, kNsysSync, kNsysNvtx, "StringIds"})
    if (c.count(t)) return true;
  return false;
}

std::optional<int64_t> nsys_env_value(const std::string& text, const std::string& name) {
  if (text.size() <= name.size() + 1 || text.compare(0, name.size(), name) != 0 || text[name.size()] != '=')
    return std::nullopt;
  std::string_view v(text);
  v.remove_prefix(name.size() + 1);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return parse_rank(v);
}

std::optional<int64_t> nsys_rank_from_file_name(const std::string& path, const std::set<int64_t>& pids) {
  std::string stem = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  // A report rocpd_open exported (members/nsys_report.h): rocpd-nsys-XXXXXX.<report's name>.sqlite.
  static const std::string kExported = "rocpd-nsys-";
  if (stem.compare(0, kExported.size(), kExported) == 0 && stem.size() > kExported.size() + 7 &&
      stem[kExported.size() + 6] == '.')
    stem = stem.substr(kExported.size() + 7);
  for (const char* ext : {".zst", ".sqlite", ".sqlite3", ".db", ".nsys-rep", ".qdrep"})
    if (ends_with(lower(stem), ext)) stem.resize(stem.size() - std::string(ext).size());
  const std::string low = lower(stem);
  // "rank" as a word of the name (not "frank3"), then an optional separator and the digits.
  for (size_t at = low.rfind("rank"); at != std::string::npos; at = at ? low.rfind("rank", at - 1) : std::string::npos) {
    if (at > 0 && std::isalpha(static_cast<unsigned char>(low[at - 1]))) continue;
    size_t i = at + 4;
    if (i < low.size() && (low[i] == '_' || low[i] == '-' || low[i] == '.')) ++i;
    size_t j = i;
    while (j < low.size() && std::isdigit(static_cast<unsigned char>(low[j]))) ++j;
    if (j > i && (j == low.size() || !std::isdigit(static_cast<unsigned char>(low[j]))))
      if (auto r = parse_rank(std::string_view(low).substr(i, j - i))) return r;
  }
  size_t i = low.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(low[i - 1]))) --i;
  if (i == low.size() || i < 2 || (low[i - 1] != '_' && low[i - 1] != '-' && low[i - 1] != '.')) return std::nullopt;
  auto r = parse_rank(std::string_view(low).substr(i));
  if (r && pids.count(*r)) return std::nullopt;  // `%p`: the profiled process's pid, not a rank
  return r;
}

canonical::FormatInfo probe_nsys(sqlite3* db, const std::string& schema, const Catalog& names, const std::string& label) {
  canonical::FormatInfo info;
  auto d = std::make_shared<NsysDetails>();
  std::vector<std::string>& notes = info.notes;
  // The export schema version, where the export metadata records it (read, never required).
  const char* meta = names.count("META_DATA_EXPORT") ? "META_DATA_EXPORT"
                     : names.count("EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                       : nullptr;
  if (meta && has_columns(db, schema, names, meta, {"name", "value"}))
    if (auto v = meta_value(db, schema, meta, "EXPORT_SCHEMA_VERSION")) info.version_text = *v;
  if (info.version_text.empty())
    notes.push_back("no EXPORT_SCHEMA_VERSION in META_DATA_EXPORT or EXPORT_META_DATA: read by its tables and columns");
  info.schema_version = std::max(major_version(info.version_text), 0);

  std::vector<TableColumns> checks;
  if (names.count("StringIds")) {
    d->strings = column_names(db, schema, "StringIds").count("value") > 0;
    if (d->strings) checks.push_back({"StringIds", {{"value", 't'}}});
  }
  d->event_classes = has_columns(db, schema, names, "ENUM_NSYS_EVENT_CLASS", {"id", "name", "label"});
  if (d->event_classes) checks.push_back({"ENUM_NSYS_EVENT_CLASS", {{"name", 't'}, {"label", 't'}}});
  d->memcpy_kinds = has_columns(db, schema, names, "ENUM_CUDA_MEMCPY_OPER", {"id", "label"});
  if (d->memcpy_kinds) checks.push_back({"ENUM_CUDA_MEMCPY_OPER", {{"label", 't'}}});
  for (const EventTable& t : event_tables()) {
    if (!names.count(t.table)) continue;
    auto& present = d->columns[t.table];
    present = column_names(db, schema, t.table);
    TableColumns check{t.table, {}, nullptr};
    std::vector<std::string> missing;
    for (const Wanted& w : t.columns) {
      if (present.count(w.column)) check.columns.emplace_back(w.column, w.affinity);
      else if (w.without) missing.push_back(fmt::format("{} ({})", w.column, w.without));
    }
    if (!missing.empty()) notes.push_back(fmt::format("{} lacks {}", t.table, joined(missing)));
    checks.push_back(std::move(check));
  }
  kernel_name_notes(*d, notes);
  if (d->has(kNsysNvtx) && !d->has(kNsysNvtx, "text") && !d->has(kNsysNvtx, "textId"))
    notes.push_back(fmt::format("{} lacks text and textId: NVTX names are NULL", kNsysNvtx));
  info.loose_types = !check_tables(db, schema, label, checks);

  if (has_columns(db, schema, names, "PROCESSES", {"globalPid"})) check_pids(db, schema, label);
  if (has_columns(db, schema, names, "TARGET_INFO_SYSTEM_ENV", {"name", "value"}))
    if (auto host = meta_value(db, schema, "TARGET_INFO_SYSTEM_ENV", "Hostname")) info.hostname = *host;
  if (has_columns(db, schema, names, "TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"})) {
    const bool system_clock = column_names(db, schema, "TARGET_INFO_SESSION_START_TIME").count("systemClockNs") > 0;
    info.utc_anchor_ns = utc_anchor(db, schema, system_clock);
    if (!system_clock)
      notes.push_back("TARGET_INFO_SESSION_START_TIME lacks systemClockNs: times are taken as counted from the "
                      "session start (utc_anchor_ns = utcEpochNs)");
  }
  if (has_columns(db, schema, names, "TARGET_INFO_GPU", {"id", "name"})) {
    info.gpu_names = gpu_names(db, schema);
    info.gpu_properties = gpu_properties(db, schema);
  }

  // The rank: the recorded environment first, else the file's name (per-rank `-o` patterns).
  if (auto env = environment_rank(db, schema, names)) {
    info.rank = env->first;
    notes.push_back(fmt::format("rank {} from {} in the recorded environment", env->first, env->second));
  } else if (const char* file = sqlite3_db_filename(db, schema.c_str()); file && *file) {
    // A report rocpd_open exported: the report's name, not the exported database's.
    if (const char* source = sqlite3_uri_parameter(file, canonical::kSourceParameter); source && *source) file = source;
    const auto pids = has_columns(db, schema, names, "PROCESSES", {"pid"}) ? process_ids(db, schema)
                                                                           : std::set<int64_t>{};
    if ((info.rank = nsys_rank_from_file_name(file, pids)))
      notes.push_back(fmt::format("rank {} from the file name", *info.rank));
  }
  info.details = std::move(d);
  return info;
}

}  // namespace rocpd::formats
