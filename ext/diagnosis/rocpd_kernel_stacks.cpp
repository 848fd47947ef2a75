// rocpd_kernel_stacks: eponymous-only virtual table, one row per kernel and copy of rocpd_ops with
// the marker ranges (roctx ranges, PyTorch operators recorded as markers) that enclose its launch
// call on the launching thread, outermost first (diagnosis/stack_sweep.h). Per member: the ops,
// their launch calls and the ranges are read once each, and each thread is swept once.
// Pushdown: db =, gpu = (members and ops read); SQLite re-checks every constraint. Rowids are
// the ops' own rocpd_ops rowids (unique across members, stable).
#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/vtab_util.h"
#include "diagnosis/diag_read.h"
#include "diagnosis/sql_names.h"
#include "diagnosis/stack_sweep.h"
#include "federation/interrupt.h"

namespace rocpd::diagnosis {
namespace {

constexpr const char* kTable = "rocpd_kernel_stacks";
constexpr uint32_t kNoName = UINT32_MAX;

enum Column {
  kDb, kPid, kTid, kOpId, kCorrelation, kGpu, kQueue, kKind, kName, kStart, kEnd, kDepth, kStack, kTop, kBottom
};
constexpr PlanColumns kColumns{.db = kDb, .gpu = kGpu};

void json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20) out += fmt::format("\\u{:04x}", ch);
        else out.push_back(static_cast<char>(ch));
    }
  }
  out.push_back('"');
}

// Interned strings of one member (names, stacks).
class Strings {
 public:
  uint32_t id(std::string_view s) {
    auto it = ids_.find(std::string(s));
    if (it != ids_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(all_.size());
    all_.emplace_back(s);
    ids_.emplace(all_.back(), id);
    return id;
  }
  const std::string& operator[](uint32_t id) const { return all_[id]; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> all_;
};

struct StackInfo {
  uint32_t stack = 0;  // id in stacks ("[]" is 0)
  uint32_t depth = 0;
  uint32_t top = kNoName, bottom = kNoName;  // names of the outermost / innermost range
};

struct OpRow {
  int64_t rowid = 0;
  GpuKey op_id, corr, gpu, queue;
  std::optional<int64_t> start, end;
  uint32_t name = kNoName;
  bool copy = false;
  int32_t call = -1;  // index into calls (a launch found), else -1
};

struct CallRow {
  GpuKey pid, tid;
  StackInfo info;
};

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  Selection sel;
  std::vector<MemberRef> dbs;
  size_t next_db = 0;
  std::vector<OpRow> rows;
  std::vector<CallRow> calls;
  Strings names, stacks;
  // Range names: raw text, its JSON string (or null), and whether it was NULL.
  Strings range_names;
  std::vector<std::string> range_json;
  uint32_t null_range_name = kNoName;
  size_t row = 0;
  bool eof = true;
  std::unique_ptr<federation::InterruptWatch> watch;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  const std::string& db() const { return dbs[next_db - 1].db; }

  void settle() {
    while (row >= rows.size()) {
      if (next_db >= dbs.size()) {
        eof = true;
        return;
      }
      watch->check();
      const std::string& db = dbs[next_db].db;
      MemberInput in = ahead && ahead->db == db ? std::move(*ahead) : start_member(db);
      ahead.reset();
      ++next_db;
      // The next member's reads start now and run while this one is swept.
      if (next_db < dbs.size()) ahead = start_member(dbs[next_db].db);
      load(in);
      row = 0;
    }
  }

  struct MemberInput {
    std::string db;
    Prefetched ops, launches, ranges;
  };
  std::optional<MemberInput> ahead;

  MemberInput start_member(const std::string& db) {
    sqlite3* conn = table().conn;
    MemberInput in;
    in.db = db;
    std::string sql =
        "SELECT rowid, op_id, correlation_id, gpu, queue, kind, name, start, \"end\" FROM temp.rocpd_ops WHERE db = ?1";
    if (sel.gpu) sql += " AND gpu = ?2";
    in.ops = Prefetched(conn, sql, db, "reading rocpd_ops",
                        sel.gpu ? +[](sqlite3_stmt* st, const void* gpu) {
                          sqlite3_bind_int64(st, 2, *static_cast<const int64_t*>(gpu));
                        }
                                : nullptr,
                        sel.gpu ? &*sel.gpu : nullptr);
    in.launches = launch_query(conn, db, true);
    in.ranges = Prefetched(conn,
                           "SELECT pid, tid, start, \"end\", name, api_id FROM temp.rocpd_apis WHERE db = ?1 AND domain = "
                           "'marker'",
                           db, "reading rocpd_apis");
    return in;
  }

  void load(MemberInput& in) {
    const std::string& db = in.db;
    rows.clear();
    calls.clear();
    names = Strings();
    stacks = Strings();
    range_names = Strings();
    range_json.clear();
    null_range_name = kNoName;
    stacks.id("[]");

    // 1. The kernels and copies.
    sqlite3_stmt* s = in.ops.get();
    CorrSlots wanted;
    std::vector<int64_t> slots;  // per row: its launch's slot in `wanted`, -1 for none
    while (in.ops.next()) {
      if ((rows.size() & 0xffff) == 0) watch->check();
      const std::string_view kind = column_text(s, 5);
      if (kind != "kernel" && kind != "copy") continue;
      OpRow r;
      r.rowid = sqlite3_column_int64(s, 0);
      r.op_id = value_key(s, 1);
      r.corr = value_key(s, 2);
      r.gpu = value_key(s, 3);
      r.queue = value_key(s, 4);
      r.copy = kind == "copy";
      if (sqlite3_column_type(s, 6) != SQLITE_NULL) r.name = names.id(column_text(s, 6));
      r.start = time_column(s, 7, kTable, db, "start");
      r.end = time_column(s, 8, kTable, db, "end");
      const auto corr = corr_column(s, 2);
      slots.push_back(corr ? static_cast<int64_t>(wanted.add(*corr)) : -1);
      rows.push_back(std::move(r));
    }
    in.ops.finish();

    // 2. Their launch calls (one call may issue several ops: graph launches).
    const auto launches = read_launches(in.launches, db, wanted, true, kTable);
    using ThreadKey = std::tuple<bool, int64_t, bool, int64_t>;  // pid null, pid, tid null, tid
    std::map<ThreadKey, std::vector<Call>> thread_calls;
    std::vector<int32_t> call_of_slot(wanted.size(), -1);
    auto thread_key = [](const GpuKey& pid, const GpuKey& tid) -> std::optional<ThreadKey> {
      if ((pid.type != SQLITE_INTEGER && pid.type != SQLITE_NULL) || (tid.type != SQLITE_INTEGER && tid.type != SQLITE_NULL))
        return std::nullopt;  // a hostile pid or tid: the call has no thread, so no range encloses it
      return ThreadKey{pid.is_null(), pid.i, tid.is_null(), tid.i};
    };
    for (size_t i = 0; i < rows.size(); ++i) {
      if (slots[i] < 0) continue;
      const size_t slot = static_cast<size_t>(slots[i]);
      const LaunchCall& lc = launches[slot];
      if (!lc.found) continue;
      if (call_of_slot[slot] < 0) {
        call_of_slot[slot] = static_cast<int32_t>(calls.size());
        CallRow c;
        c.pid = lc.pid;
        c.tid = lc.tid;
        calls.push_back(std::move(c));
        if (const auto thread = thread_key(lc.pid, lc.tid))
          thread_calls[*thread].push_back({lc.start, lc.end, static_cast<uint32_t>(call_of_slot[slot])});
      }
      rows[i].call = call_of_slot[slot];
    }

    // 3. The marker ranges of the threads that launched something.
    s = in.ranges.get();
    std::map<ThreadKey, std::vector<Range>> thread_ranges;
    while (in.ranges.next()) {
      const auto start = time_column(s, 2, kTable, db, "start");
      const auto end = time_column(s, 3, kTable, db, "end");
      if (!start || !end || *end <= *start) continue;  // marks and reversed ranges enclose nothing
      const auto thread = thread_key(value_key(s, 0), value_key(s, 1));
      if (!thread) continue;
      const auto tc = thread_calls.find(*thread);
      if (tc == thread_calls.end()) continue;
      uint32_t name = 0;
      if (sqlite3_column_type(s, 4) == SQLITE_NULL) {
        if (null_range_name == kNoName) {
          null_range_name = range_names.id(std::string_view("\0null", 5));  // no text collides with it
          range_json.resize(null_range_name + 1);
          range_json[null_range_name] = "null";
        }
        name = null_range_name;
      } else {
        name = range_names.id(column_text(s, 4));
        if (name >= range_json.size()) {
          range_json.resize(name + 1);
          json_string(range_json[name], column_text(s, 4));
        }
      }
      thread_ranges[*thread].push_back({*start, *end, name, sqlite3_column_int64(s, 5)});
    }
    in.ranges.finish();

    // 4. One sweep per thread.
    std::string json;
    for (auto& [thread, tcalls] : thread_calls) {
      watch->check();
      auto tr = thread_ranges.find(thread);
      if (tr == thread_ranges.end()) continue;  // no range: every stack is empty
      std::vector<Range>& ranges = tr->second;
      sweep_thread(ranges, tcalls, [&](uint32_t call, std::span<const uint32_t> stack) {
        if (stack.empty()) return;
        json = "[";
        for (size_t k = 0; k < stack.size(); ++k) {
          if (k) json.push_back(',');
          json += range_json[ranges[stack[k]].name];
        }
        json.push_back(']');
        StackInfo& info = calls[call].info;
        info.stack = stacks.id(json);
        info.depth = static_cast<uint32_t>(stack.size());
        info.top = ranges[stack.front()].name;
        info.bottom = ranges[stack.back()].name;
      });
    }
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, "
        "queue INTEGER, kind TEXT, name TEXT, start INTEGER, \"end\" INTEGER, depth INTEGER, stack TEXT, "
        "top_level TEXT, bottom_level TEXT)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return plan(info, kColumns, 1e8); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    c->sel = decode(kTable, idx_str, argc, argv);
    c->watch = std::make_unique<federation::InterruptWatch>(c->table().conn);
    c->dbs = c->sel.nothing ? std::vector<MemberRef>{} : intervals::member_dbs(c->table().conn, c->sel.db);
    c->next_db = c->row = 0;
    c->ahead.reset();
    c->rows.clear();
    c->eof = false;
    c->settle();
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    ++c->row;
    c->settle();
    return SQLITE_OK;
  });
}

int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

// The text of a range name (NULL for a NULL name).
void name_result(sqlite3_context* ctx, const Cursor& c, uint32_t id) {
  if (id == c.null_range_name) return;
  const std::string& n = c.range_names[id];
  sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const OpRow& r = c->rows[c->row];
    const StackInfo none;
    const StackInfo& info = r.call >= 0 ? c->calls[static_cast<size_t>(r.call)].info : none;
    switch (col) {
      case kDb: sqlite3_result_text(ctx, c->db().data(), static_cast<int>(c->db().size()), SQLITE_TRANSIENT); break;
      case kPid:
        if (r.call >= 0) c->calls[static_cast<size_t>(r.call)].pid.result(ctx);
        break;
      case kTid:
        if (r.call >= 0) c->calls[static_cast<size_t>(r.call)].tid.result(ctx);
        break;
      case kOpId: r.op_id.result(ctx); break;
      case kCorrelation: r.corr.result(ctx); break;
      case kGpu: r.gpu.result(ctx); break;
      case kQueue: r.queue.result(ctx); break;
      case kKind: sqlite3_result_text(ctx, r.copy ? "copy" : "kernel", -1, SQLITE_STATIC); break;
      case kName:
        if (r.name != kNoName) {
          const std::string& n = c->names[r.name];
          sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
        }
        break;
      case kStart:
        if (r.start) sqlite3_result_int64(ctx, *r.start);
        break;
      case kEnd:
        if (r.end) sqlite3_result_int64(ctx, *r.end);
        break;
      case kDepth: sqlite3_result_int64(ctx, info.depth); break;
      case kStack: {
        const std::string& s = c->stacks[info.stack];
        sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        break;
      }
      case kTop:
        if (info.top != kNoName) name_result(ctx, *c, info.top);
        break;
      case kBottom:
        if (info.bottom != kNoName) name_result(ctx, *c, info.bottom);
        break;
    }
    return SQLITE_OK;
  });
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<Cursor*>(cur)->rows[static_cast<Cursor*>(cur)->row].rowid;
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xConnect = connect;
  m.xBestIndex = best_index;
  m.xDisconnect = vtab_disconnect<Table>;
  m.xOpen = vtab_open<Cursor>;
  m.xClose = vtab_close<Cursor>;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  return m;
}
const sqlite3_module kModule = make_module();

}  // namespace

void register_kernel_stacks(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
