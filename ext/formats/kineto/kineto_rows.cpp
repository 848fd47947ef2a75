#include "formats/kineto/kineto_rows.h"

#include <fmt/format.h>

#include <cctype>

namespace rocpd::formats::kineto {

namespace {
constexpr size_t kCacheEntries = 1 << 16;
constexpr size_t kCacheBytes = size_t{32} << 20;
constexpr size_t kMaxCountedProcesses = 4096;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

void Event::clear() {
  has_ph = has_cat = has_name = has_bp = false;
  pid.kind = tid.kind = id.kind = Scalar::None;
  has_ts = has_dur = false;
  ts = dur = 0;
  has_args = false;
  correlation = external_id = external_id_old = device = stream = registers = shared_memory = bytes = size = sort_index =
      ArgInt{};
  grid = block = ArgDims{};
  arg_name.kind = arg_labels.kind = Scalar::None;
}

StringTable::StringTable(sqlite3* db)
    : db_(db), insert_(prepare(db, "INSERT INTO kineto_strings(string) VALUES (?1)")) {}

int64_t StringTable::id(std::string_view text) {
  if (auto it = cache_.find(text); it != cache_.end()) return it->second;
  sqlite3_bind_text(insert_.get(), 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  const int rc = sqlite3_step(insert_.get());
  sqlite3_reset(insert_.get());
  if (rc != SQLITE_DONE) throw Error(fmt::format("cannot store a string: {}", sqlite3_errmsg(db_)), rc);
  const int64_t id = sqlite3_last_insert_rowid(db_);
  if (cache_.size() >= kCacheEntries || cache_bytes_ + text.size() > kCacheBytes) {
    cache_.clear();  // bounded memory: a hostile file of unique names must not grow the cache
    cache_bytes_ = 0;
  }
  cache_.emplace(text, id);
  cache_bytes_ += text.size() + 64;
  return id;
}

RowWriter::RowWriter(sqlite3* db, const std::string& label)
    : db_(db),
      label_(label),
      strings_(db),
      ops_(prepare(db,
                   "INSERT INTO kineto_ops(event, kind, cat_id, name_id, event_pid, event_tid, gpu, stream, start, "
                   "\"end\", correlation, external_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
                   "shared_memory, bytes, args) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                   "?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)")),
      calls_(prepare(db,
                     "INSERT INTO kineto_calls(event, domain, cat_id, name_id, pid, tid, start, \"end\", correlation, "
                     "external_id, args) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")),
      ranges_(prepare(db,
                      "INSERT INTO kineto_profiler_ranges(event, name_id, pid, tid, start, \"end\", args) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")),
      counter_events_(prepare(db,
                              "INSERT INTO kineto_counter_events(event, cat_id, name_id, pid, tid, ts, args) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")),
      flows_(prepare(db,
                     "INSERT INTO kineto_flows(event, ph, flow_id, cat_id, name_id, pid, tid, ts, bp) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")),
      labels_(prepare(db, "INSERT INTO kineto_labels(event, name, pid, tid, value) VALUES (?1, ?2, ?3, ?4, ?5)")),
      other_(prepare(db,
                     "INSERT INTO kineto_other(event, ph, cat_id, name_id, pid, tid, start, \"end\", args) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")),
      metadata_(prepare(db, "INSERT INTO kineto_metadata(tag, value) VALUES (?1, ?2)")),
      uncorrelated_ops_(prepare(db, "INSERT INTO temp.kineto_uncorrelated_ops(id) VALUES (?1)")),
      uncorrelated_calls_(prepare(db, "INSERT INTO temp.kineto_uncorrelated_calls(id) VALUES (?1)")) {}

void RowWriter::pending(sqlite3_stmt* list) {
  sqlite3_bind_int64(list, 1, sqlite3_last_insert_rowid(db_));
  run(list);
}

void RowWriter::fail(const Event& e, const std::string& what) const {
  throw Error(fmt::format("{}: traceEvents[{}]{}: {}", label_, e.index,
                          e.has_name ? fmt::format(" ('{}')", e.name.substr(0, 80)) : std::string(), what));
}

int64_t RowWriter::time(const Event& e, int64_t base_ns, int64_t t, const char* field) const {
  int64_t out = 0;
  if (__builtin_add_overflow(t, base_ns, &out))
    fail(e, fmt::format("{} plus baseTimeNanoseconds is past the int64 range of ns", field));
  return out;
}

void RowWriter::bind_scalar(sqlite3_stmt* s, int col, const Scalar& v) {
  if (v.kind == Scalar::Int) sqlite3_bind_int64(s, col, v.i);
  else if (v.kind == Scalar::Text) bind_text(s, col, v.text);
  else sqlite3_bind_null(s, col);
}

void RowWriter::bind_opt(sqlite3_stmt* s, int col, const ArgInt& v) {
  if (v.present && v.ok) sqlite3_bind_int64(s, col, v.v);
  else sqlite3_bind_null(s, col);
}

void RowWriter::bind_text(sqlite3_stmt* s, int col, std::string_view v) {
  sqlite3_bind_text(s, col, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}

void RowWriter::run(sqlite3_stmt* s) {
  const int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) throw Error(fmt::format("{}: cannot store an event: {}", label_, sqlite3_errmsg(db_)), rc);
}

int64_t RowWriter::name_id(const Event& e) { return strings_.id(e.name_text()); }
int64_t RowWriter::cat_id(const Event& e) { return strings_.id(e.cat_text()); }

RowWriter::Table RowWriter::write_op(const Event& e, int64_t base_ns, const char* kind) {
  // The GPU and stream: args first (Kineto writes both), else where the event was drawn.
  auto check = [&](const ArgInt& a, const char* key) {
    if (a.present && !a.ok) fail(e, fmt::format("args.\"{}\" is {}, not an integer", key, a.got));
  };
  check(e.device, "device");
  check(e.stream, "stream");
  check(e.correlation, "correlation");
  check(e.external_id, "External id");
  check(e.external_id_old, "external id");
  check(e.registers, "registers per thread");
  check(e.shared_memory, "shared memory");
  check(e.bytes, "bytes");
  if (e.grid.present && (!e.grid.ok || e.grid.count != 3)) fail(e, "args.grid is not an array of three integers");
  if (e.block.present && (!e.block.ok || e.block.count != 3)) fail(e, "args.block is not an array of three integers");
  sqlite3_stmt* s = ops_.get();
  sqlite3_bind_int64(s, 1, e.index);
  sqlite3_bind_text(s, 2, kind, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 3, cat_id(e));
  if (e.has_name) sqlite3_bind_int64(s, 4, name_id(e));
  bind_scalar(s, 5, e.pid);
  bind_scalar(s, 6, e.tid);
  if (e.device.present) sqlite3_bind_int64(s, 7, e.device.v);
  else if (e.pid.kind == Scalar::Int) sqlite3_bind_int64(s, 7, e.pid.i);
  if (e.stream.present) {
    sqlite3_bind_int64(s, 8, e.stream.v);
  } else if (e.tid.kind == Scalar::Int) {
    sqlite3_bind_int64(s, 8, e.tid.i);
  } else if (e.tid.kind == Scalar::Text && starts_with(e.tid.text, "stream ")) {
    int64_t v = 0;  // older Kineto: "tid": "stream 7"
    bool digits = e.tid.text.size() > 7;
    for (size_t i = 7; i < e.tid.text.size() && digits; ++i) {
      const char c = e.tid.text[i];
      if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10) digits = false;
      else v = v * 10 + (c - '0');
    }
    if (digits) sqlite3_bind_int64(s, 8, v);
  }
  const int64_t start = time(e, base_ns, e.ts, "ts");
  sqlite3_bind_int64(s, 9, start);
  if (e.has_dur) sqlite3_bind_int64(s, 10, time(e, start, e.dur, "ts + dur"));
  bind_opt(s, 11, e.correlation);
  bind_opt(s, 12, e.external_id.present ? e.external_id : e.external_id_old);
  for (int i = 0; i < 3; ++i) {
    if (e.grid.present) sqlite3_bind_int64(s, 13 + i, e.grid.v[i]);
    if (e.block.present) sqlite3_bind_int64(s, 16 + i, e.block.v[i]);
  }
  bind_opt(s, 19, e.registers);
  bind_opt(s, 20, e.shared_memory);
  if (e.bytes.present) {
    bind_opt(s, 21, e.bytes);
  } else if (std::string_view(kind) == "copy" && lower(e.cat_text()) == "mtia_ccp_events") {
    check(e.size, "size");
    bind_opt(s, 21, e.size);  // MTIA's DMA requests give their bytes as args.size
  }
  if (e.has_args) bind_text(s, 22, e.args);
  run(s);
  if (!e.correlation.present) pending(uncorrelated_ops_.get());
  return Table::Ops;
}

RowWriter::Table RowWriter::write_call(const Event& e, int64_t base_ns, const char* domain, bool launches) {
  if (launches && e.correlation.present && !e.correlation.ok)
    fail(e, fmt::format("args.\"correlation\" is {}, not an integer", e.correlation.got));
  if (e.external_id.present && !e.external_id.ok)
    fail(e, fmt::format("args.\"External id\" is {}, not an integer", e.external_id.got));
  if (e.external_id_old.present && !e.external_id_old.ok)
    fail(e, fmt::format("args.\"external id\" is {}, not an integer", e.external_id_old.got));
  sqlite3_stmt* s = calls_.get();
  sqlite3_bind_int64(s, 1, e.index);
  bind_text(s, 2, domain);
  if (e.has_cat) sqlite3_bind_int64(s, 3, cat_id(e));
  if (e.has_name) sqlite3_bind_int64(s, 4, name_id(e));
  sqlite3_bind_int64(s, 5, e.pid.i);
  if (e.tid.kind == Scalar::Int) sqlite3_bind_int64(s, 6, e.tid.i);
  const int64_t start = time(e, base_ns, e.ts, "ts");
  sqlite3_bind_int64(s, 7, start);
  if (e.has_dur) sqlite3_bind_int64(s, 8, time(e, start, e.dur, "ts + dur"));
  // Only calls that launch GPU work carry a launch link: an operator's correlation (none in
  // Kineto's output) would make a range look like a launch.
  if (launches) bind_opt(s, 9, e.correlation);
  bind_opt(s, 10, e.external_id.present ? e.external_id : e.external_id_old);
  if (e.has_args) bind_text(s, 11, e.args);
  run(s);
  if (launches && !e.correlation.present) pending(uncorrelated_calls_.get());
  if (!processes_.overflow && !gpu_side_domain(domain)) {
    ++processes_.calls[e.pid.i];
    if (processes_.calls.size() > kMaxCountedProcesses) {  // bounded memory on a hostile file
      processes_.calls.clear();
      processes_.overflow = true;
    }
  }
  return Table::Calls;
}

RowWriter::Table RowWriter::write(const Event& e, int64_t base_ns) {
  if (!e.has_ph) fail(e, "no \"ph\" (event phase)");
  auto need_ts = [&] {
    if (!e.has_ts) fail(e, fmt::format("a \"ph\": \"{}\" event without \"ts\"", e.ph));
  };
  if (e.ph == "X") {
    need_ts();
    const std::string cat = lower(e.cat_text());
    if (cat == "kernel") return write_op(e, base_ns, "kernel");
    if (cat == "gpu_memcpy" || cat == "memcpy") return write_op(e, base_ns, "copy");
    if (cat == "gpu_memset" || cat == "memset") return write_op(e, base_ns, "fill");
    // MTIA devices' events (HTA counts them as kernels; its memory pattern: names starting "dma").
    if (cat == "mtia_ccp_events" && e.pid.kind == Scalar::Int)
      return write_op(e, base_ns, starts_with(e.name_text(), "dma") ? "copy" : "kernel");
    if (cat == "cuda_profiler_range") {
      sqlite3_stmt* s = ranges_.get();
      sqlite3_bind_int64(s, 1, e.index);
      if (e.has_name) sqlite3_bind_int64(s, 2, name_id(e));
      bind_scalar(s, 3, e.pid);
      bind_scalar(s, 4, e.tid);
      const int64_t start = time(e, base_ns, e.ts, "ts");
      sqlite3_bind_int64(s, 5, start);
      if (e.has_dur) sqlite3_bind_int64(s, 6, time(e, start, e.dur, "ts + dur"));
      if (e.has_args) bind_text(s, 7, e.args);
      run(s);
      return Table::Ranges;
    }
    if (e.pid.kind == Scalar::Int && e.has_cat) {
      if (cat == "cuda_runtime" || cat == "runtime")
        return write_call(e, base_ns, starts_with(e.name_text(), "hip") ? "hip" : "cuda", true);
      if (cat == "cuda_driver" || cat == "driver")
        return write_call(e, base_ns, starts_with(e.name_text(), "hip") ? "hip" : "cuda_driver", true);
      if (cat == "cpu_op" || cat == "operator" || cat == "user_annotation") return write_call(e, base_ns, "marker", false);
      if (cat == "gpu_user_annotation") return write_call(e, base_ns, "gpu_annotation", false);
      // Other runtimes (xpu_runtime, mtia_runtime, privateuse1_driver, ...) launch work too.
      const bool launches = ends_with(cat, "_runtime") || ends_with(cat, "_driver");
      return write_call(e, base_ns, cat.c_str(), launches);
    }
  } else if (e.ph == "s" || e.ph == "t" || e.ph == "f") {
    need_ts();
    sqlite3_stmt* s = flows_.get();
    sqlite3_bind_int64(s, 1, e.index);
    bind_text(s, 2, e.ph);
    bind_scalar(s, 3, e.id);
    if (e.has_cat) sqlite3_bind_int64(s, 4, cat_id(e));
    if (e.has_name) sqlite3_bind_int64(s, 5, name_id(e));
    bind_scalar(s, 6, e.pid);
    bind_scalar(s, 7, e.tid);
    sqlite3_bind_int64(s, 8, time(e, base_ns, e.ts, "ts"));
    if (e.has_bp) bind_text(s, 9, e.bp);
    run(s);
    return Table::Flows;
  } else if (e.ph == "C") {
    need_ts();
    sqlite3_stmt* s = counter_events_.get();
    sqlite3_bind_int64(s, 1, e.index);
    if (e.has_cat) sqlite3_bind_int64(s, 2, cat_id(e));
    if (e.has_name) sqlite3_bind_int64(s, 3, name_id(e));
    bind_scalar(s, 4, e.pid);
    bind_scalar(s, 5, e.tid);
    sqlite3_bind_int64(s, 6, time(e, base_ns, e.ts, "ts"));
    if (e.has_args) bind_text(s, 7, e.args);
    run(s);
    return Table::CounterEvents;
  } else if (e.ph == "M") {
    sqlite3_stmt* s = labels_.get();
    sqlite3_bind_int64(s, 1, e.index);
    if (e.has_name) bind_text(s, 2, e.name);
    bind_scalar(s, 3, e.pid);
    bind_scalar(s, 4, e.tid);
    if (e.arg_name.kind != Scalar::None) bind_scalar(s, 5, e.arg_name);
    else if (e.arg_labels.kind != Scalar::None) bind_scalar(s, 5, e.arg_labels);
    else bind_opt(s, 5, e.sort_index);
    run(s);
    return Table::Labels;
  }
  sqlite3_stmt* s = other_.get();
  sqlite3_bind_int64(s, 1, e.index);
  bind_text(s, 2, e.ph);
  if (e.has_cat) sqlite3_bind_int64(s, 3, cat_id(e));
  if (e.has_name) sqlite3_bind_int64(s, 4, name_id(e));
  bind_scalar(s, 5, e.pid);
  bind_scalar(s, 6, e.tid);
  if (e.has_ts) {
    const int64_t start = time(e, base_ns, e.ts, "ts");
    sqlite3_bind_int64(s, 7, start);
    if (e.has_dur) sqlite3_bind_int64(s, 8, time(e, start, e.dur, "ts + dur"));
  }
  if (e.has_args) bind_text(s, 9, e.args);
  run(s);
  return Table::Other;
}

void RowWriter::metadata(const std::string& tag, const Scalar& value) {
  sqlite3_stmt* s = metadata_.get();
  bind_text(s, 1, tag);
  bind_scalar(s, 2, value);
  run(s);
}

void RowWriter::metadata_int(const std::string& tag, int64_t value) {
  Scalar v;
  v.kind = Scalar::Int;
  v.i = value;
  metadata(tag, v);
}

void RowWriter::metadata_text(const std::string& tag, std::string_view value) {
  Scalar v;
  v.kind = Scalar::Text;
  v.text = value;
  metadata(tag, v);
}

}  // namespace rocpd::formats::kineto
