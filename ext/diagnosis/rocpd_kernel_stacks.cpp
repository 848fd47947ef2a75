// rocpd_kernel_stacks: eponymous-only virtual table, one row per kernel and copy of rocpd_ops with
// the marker ranges (roctx ranges, PyTorch operators recorded as markers) that enclose its launch
// call on the launching thread, outermost first (diagnosis/stack_sweep.h). Per member: the ops,
// their launch calls and the ranges are read once each, and each thread is swept once.
// Pushdown: db =, gpu = (members and ops read); SQLite re-checks every constraint. Rowids are
// the ops' own rocpd_ops rowids (unique across members, stable). Hidden columns bottom_level_id,
// _start, _end: the innermost range's api_id and times (NULL at depth 0), what
// rocpd_kernel_sequences groups occurrences by.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/vtab_util.h"
#include "diagnosis/diag_read.h"
#include "diagnosis/sql_names.h"
#include "diagnosis/stack_sweep.h"
#include "members/member_columns.h"
#include "members/interrupt.h"
#include "members/member_pool.h"

namespace rocpd::diagnosis {
namespace {

constexpr const char* kTable = "rocpd_kernel_stacks";
constexpr uint32_t kNoName = UINT32_MAX;

enum Column {
  kDb, kPid, kTid, kOpId, kCorrelation, kGpu, kQueue, kKind, kName, kStart, kEnd, kDepth, kStack, kTop, kBottom,
  kBottomId, kBottomStart, kBottomEnd
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
  // The innermost range itself (its api_id and times), for occurrences of it (kernel sequences).
  int64_t bottom_id = 0, bottom_start = 0, bottom_end = 0;
};

// A value of a member row, compactly: integers and reals in place, text and blobs in the member's
// `texts` (hostile files only).
struct Cell {
  int64_t bits = 0;
  int type = SQLITE_NULL;
  uint32_t text = 0;
};

struct OpRow {
  int64_t rowid = 0;
  Cell op_id, corr, gpu, queue;
  int64_t start = 0, end = 0;
  bool has_start = false, has_end = false, copy = false;
  uint32_t name = kNoName;
  int32_t call = -1;  // index into calls (a launch found), else -1
};

struct CallRow {
  Cell pid, tid;
  StackInfo info;
};

// Everything one member contributes: its rows and the strings they point at.
struct MemberStacks {
  std::vector<OpRow> rows;
  std::vector<CallRow> calls;
  std::vector<std::string> texts;
  Strings names, stacks;
  // Range names: raw text, its JSON string (or null), and whether it was NULL.
  Strings range_names;
  std::vector<std::string> range_json;
  uint32_t null_range_name = kNoName;

  Cell cell(const StoredValue& v) {
    Cell c;
    c.type = v.type;
    if (v.type == SQLITE_INTEGER) c.bits = v.i;
    else if (v.type == SQLITE_FLOAT) std::memcpy(&c.bits, &v.d, sizeof v.d);
    else if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
      c.text = static_cast<uint32_t>(texts.size());
      texts.emplace_back(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
    }
    return c;
  }
  void result(sqlite3_context* ctx, const Cell& c) const {
    switch (c.type) {
      case SQLITE_INTEGER: sqlite3_result_int64(ctx, c.bits); break;
      case SQLITE_FLOAT: {
        double d;
        std::memcpy(&d, &c.bits, sizeof d);
        sqlite3_result_double(ctx, d);
        break;
      }
      case SQLITE_TEXT: {
        const std::string& t = texts[c.text];
        sqlite3_result_text(ctx, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
        break;
      }
      case SQLITE_BLOB: {
        const std::string& t = texts[c.text];
        if (t.empty()) sqlite3_result_zeroblob(ctx, 0);
        else sqlite3_result_blob(ctx, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT);
        break;
      }
      default: break;
    }
  }
};

using ThreadKey = std::tuple<bool, int64_t, bool, int64_t>;  // pid null, pid, tid null, tid
// A hostile pid or tid gives no thread: the call has no thread, so no range encloses it.
std::optional<ThreadKey> thread_key(const StoredValue& pid, const StoredValue& tid) {
  if ((pid.type != SQLITE_INTEGER && pid.type != SQLITE_NULL) || (tid.type != SQLITE_INTEGER && tid.type != SQLITE_NULL))
    return std::nullopt;
  return ThreadKey{pid.type == SQLITE_NULL, pid.i, tid.type == SQLITE_NULL, tid.i};
}

// One member on a leased connection (any core): its kernels and copies, their launch calls, the
// marker ranges of the launching threads, one sweep per thread.
MemberStacks member_stacks(const federation::Member& m, sqlite3* conn, std::optional<int64_t> gpu,
                           const federation::InterruptWatch& watch) {
  using namespace federation;
  const std::string& db = m.alias;
  MemberStacks out;
  out.stacks.id("[]");

  // 1. The kernels and copies.
  std::vector<int64_t> corrs;
  std::vector<uint32_t> name_of_token;  // MemberColumns::name_token -> id in out.names
  {
    MemberColumns ops(m, conn, TableKind::Ops,
                      {kOpsOpId, kOpsCorrelationId, kOpsGpu, kOpsQueue, kOpsKind, kOpsName, kOpsStart, kOpsEnd});
    uint64_t read = 0;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue kind = ops[4];
      if (kind.type != SQLITE_TEXT) continue;
      const std::string_view k(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length));
      if (k != "kernel" && k != "copy") continue;
      const StoredValue g = ops[2];
      if (gpu && !equals_int(g, *gpu)) continue;
      OpRow r;
      r.rowid = ops.rowid();
      r.op_id = out.cell(ops[0]);
      const StoredValue corr = ops[1];
      r.corr = out.cell(corr);
      r.gpu = out.cell(g);
      r.queue = out.cell(ops[3]);
      r.copy = k == "copy";
      // A TEXT column: numbers arrive converted, blobs read as their bytes (as column_text).
      const StoredValue name = ops[5];
      if (name.type == SQLITE_TEXT || name.type == SQLITE_BLOB) {
        const int64_t token = ops.name_token();
        if (token >= 0 && static_cast<size_t>(token) < name_of_token.size() && name_of_token[static_cast<size_t>(token)] != kNoName) {
          r.name = name_of_token[static_cast<size_t>(token)];
        } else {
          r.name = out.names.id(std::string_view(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length)));
          if (token >= 0) {
            if (static_cast<size_t>(token) >= name_of_token.size()) name_of_token.resize(static_cast<size_t>(token) + 1, kNoName);
            name_of_token[static_cast<size_t>(token)] = r.name;
          }
        }
      }
      if (const auto start = time_value(ops[6], kTable, db, "start")) {
        r.start = *start;
        r.has_start = true;
      }
      if (const auto end = time_value(ops[7], kTable, db, "end")) {
        r.end = *end;
        r.has_end = true;
      }
      if (corr.type == SQLITE_INTEGER) corrs.push_back(corr.i);
      out.rows.push_back(r);
    }
  }
  CorrSlots wanted;
  wanted.assign(corrs);
  corrs = {};

  // 2. Their launch calls (one call may issue several ops: graph launches).
  const auto launches = read_member_launches(m, conn, wanted, true, kTable);
  std::map<ThreadKey, std::vector<Call>> thread_calls;
  std::vector<int32_t> call_of_slot(wanted.size(), -1);
  for (OpRow& r : out.rows) {
    if (r.corr.type != SQLITE_INTEGER) continue;
    const int64_t found = wanted.find(r.corr.bits);
    if (found < 0) continue;
    const size_t slot = static_cast<size_t>(found);
    const LaunchCall& lc = launches[slot];
    if (!lc.found) continue;
    if (call_of_slot[slot] < 0) {
      call_of_slot[slot] = static_cast<int32_t>(out.calls.size());
      CallRow c;
      const StoredValue pid = stored_of(lc.pid), tid = stored_of(lc.tid);
      c.pid = out.cell(pid);
      c.tid = out.cell(tid);
      out.calls.push_back(c);
      if (const auto thread = thread_key(pid, tid))
        thread_calls[*thread].push_back({lc.start, lc.end, static_cast<uint32_t>(call_of_slot[slot])});
    }
    r.call = call_of_slot[slot];
  }

  // 3. The marker ranges of the threads that launched something.
  std::map<ThreadKey, std::vector<Range>> thread_ranges;
  if (!thread_calls.empty()) {
    MemberColumns apis(m, conn, TableKind::Apis, {kApisDomain, kApisPid, kApisTid, kApisStart, kApisEnd, kApisName, kApisApiId},
                       nullptr, std::pair<int, std::string>{kApisDomain, "marker"});
    uint64_t read = 0;
    while (apis.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue domain = apis[0];
      if (domain.type != SQLITE_TEXT ||
          std::string_view(static_cast<const char*>(domain.bytes), static_cast<size_t>(domain.length)) != "marker")
        continue;
      const auto start = time_value(apis[3], kTable, db, "start");
      const auto end = time_value(apis[4], kTable, db, "end");
      if (!start || !end || *end <= *start) continue;  // marks and reversed ranges enclose nothing
      const auto thread = thread_key(apis[1], apis[2]);
      if (!thread) continue;
      if (thread_calls.find(*thread) == thread_calls.end()) continue;
      uint32_t name = 0;
      const StoredValue n = apis[5];
      if (n.type == SQLITE_NULL) {
        if (out.null_range_name == kNoName) {
          out.null_range_name = out.range_names.id(std::string_view("\0null", 5));  // no text collides with it
          out.range_json.resize(out.null_range_name + 1);
          out.range_json[out.null_range_name] = "null";
        }
        name = out.null_range_name;
      } else {
        const std::string_view text(static_cast<const char*>(n.bytes), static_cast<size_t>(n.type == SQLITE_NULL ? 0 : n.length));
        name = out.range_names.id(text);
        if (name >= out.range_json.size()) {
          out.range_json.resize(name + 1);
          json_string(out.range_json[name], text);
        }
      }
      const StoredValue order = apis[6];
      thread_ranges[*thread].push_back({*start, *end, name, order.type == SQLITE_INTEGER ? order.i : 0});
    }
  }

  // 4. One sweep per thread.
  std::string json;
  for (auto& [thread, tcalls] : thread_calls) {
    if (watch.stopped()) InterruptWatch::raise();
    auto tr = thread_ranges.find(thread);
    if (tr == thread_ranges.end()) continue;  // no range: every stack is empty
    std::vector<Range>& ranges = tr->second;
    // Calls in a row under the same ranges (a loop of launches inside one operator) share one
    // stack: it is built and interned once.
    std::vector<uint32_t> last_stack;
    StackInfo last_info;
    sweep_thread(ranges, tcalls, [&](uint32_t call, std::span<const uint32_t> stack) {
      if (stack.empty()) return;
      if (std::equal(stack.begin(), stack.end(), last_stack.begin(), last_stack.end())) {
        out.calls[call].info = last_info;
        return;
      }
      json = "[";
      for (size_t k = 0; k < stack.size(); ++k) {
        if (k) json.push_back(',');
        json += out.range_json[ranges[stack[k]].name];
      }
      json.push_back(']');
      StackInfo& info = out.calls[call].info;
      info.stack = out.stacks.id(json);
      info.depth = static_cast<uint32_t>(stack.size());
      info.top = ranges[stack.front()].name;
      info.bottom = ranges[stack.back()].name;
      info.bottom_id = ranges[stack.back()].order;
      info.bottom_start = ranges[stack.back()].start;
      info.bottom_end = ranges[stack.back()].end;
      last_stack.assign(stack.begin(), stack.end());
      last_info = info;
    });
  }
  return out;
}

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  Selection sel;
  std::vector<federation::MemberPtr> members;  // in db order
  std::shared_ptr<federation::Registry> registry;
  size_t next_member = 0;                       // first member of the next batch
  std::vector<MemberStacks> batch;              // members [next_member - batch.size(), next_member)
  size_t member = 0, row = 0;                   // position in batch
  bool eof = true;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  const MemberStacks& current() const { return batch[member]; }
  const std::string& db() const { return members[next_member - batch.size() + member]->alias; }

  // The next members, two per lane, read on every core: memory holds one batch's rows.
  bool load_batch() {
    if (next_member >= members.size()) return false;
    federation::InterruptWatch watch(table().conn);
    federation::MemberPool pool(*registry, watch);
    const size_t count = std::min(members.size() - next_member, 2 * pool.lanes());
    std::vector<federation::MemberPtr> part(members.begin() + static_cast<std::ptrdiff_t>(next_member),
                                            members.begin() + static_cast<std::ptrdiff_t>(next_member + count));
    batch.clear();
    batch.resize(count);
    pool.run(part, [&](size_t i, sqlite3* conn, size_t) { batch[i] = member_stacks(*part[i], conn, sel.gpu, watch); });
    next_member += count;
    member = row = 0;
    return true;
  }

  void settle() {
    for (;;) {
      while (member < batch.size() && row >= batch[member].rows.size()) {
        ++member;
        row = 0;
      }
      if (member < batch.size()) {
        eof = false;
        return;
      }
      if (!load_batch()) {
        batch.clear();
        eof = true;
        return;
      }
    }
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, "
        "queue INTEGER, kind TEXT, name TEXT, start INTEGER, \"end\" INTEGER, depth INTEGER, stack TEXT, "
        "top_level TEXT, bottom_level TEXT, bottom_level_id INTEGER HIDDEN, bottom_level_start INTEGER HIDDEN, "
        "bottom_level_end INTEGER HIDDEN)");
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
    const auto dbs = c->sel.nothing ? std::vector<MemberRef>{} : intervals::member_dbs(c->table().conn, c->sel.db);
    c->batch.clear();
    c->next_member = c->member = c->row = 0;
    MemberSet set = member_set(c->table().conn, dbs, kTable);
    c->registry = std::move(set.registry);
    c->members = std::move(set.members);
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
void name_result(sqlite3_context* ctx, const MemberStacks& c, uint32_t id) {
  if (id == c.null_range_name) return;
  const std::string& n = c.range_names[id];
  sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const MemberStacks& ms = c->current();
    const OpRow& r = ms.rows[c->row];
    const StackInfo none;
    const StackInfo& info = r.call >= 0 ? ms.calls[static_cast<size_t>(r.call)].info : none;
    switch (col) {
      case kDb: sqlite3_result_text(ctx, c->db().data(), static_cast<int>(c->db().size()), SQLITE_TRANSIENT); break;
      case kPid:
        if (r.call >= 0) ms.result(ctx, ms.calls[static_cast<size_t>(r.call)].pid);
        break;
      case kTid:
        if (r.call >= 0) ms.result(ctx, ms.calls[static_cast<size_t>(r.call)].tid);
        break;
      case kOpId: ms.result(ctx, r.op_id); break;
      case kCorrelation: ms.result(ctx, r.corr); break;
      case kGpu: ms.result(ctx, r.gpu); break;
      case kQueue: ms.result(ctx, r.queue); break;
      case kKind: sqlite3_result_text(ctx, r.copy ? "copy" : "kernel", -1, SQLITE_STATIC); break;
      case kName:
        if (r.name != kNoName) {
          const std::string& n = ms.names[r.name];
          sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
        }
        break;
      case kStart:
        if (r.has_start) sqlite3_result_int64(ctx, r.start);
        break;
      case kEnd:
        if (r.has_end) sqlite3_result_int64(ctx, r.end);
        break;
      case kDepth: sqlite3_result_int64(ctx, info.depth); break;
      case kStack: {
        const std::string& s = ms.stacks[info.stack];
        sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        break;
      }
      case kTop:
        if (info.top != kNoName) name_result(ctx, ms, info.top);
        break;
      case kBottom:
        if (info.bottom != kNoName) name_result(ctx, ms, info.bottom);
        break;
      case kBottomId:
        if (info.depth > 0) sqlite3_result_int64(ctx, info.bottom_id);
        break;
      case kBottomStart:
        if (info.depth > 0) sqlite3_result_int64(ctx, info.bottom_start);
        break;
      case kBottomEnd:
        if (info.depth > 0) sqlite3_result_int64(ctx, info.bottom_end);
        break;
    }
    return SQLITE_OK;
  });
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  const auto* c = static_cast<Cursor*>(cur);
  *out = c->current().rows[c->row].rowid;
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
