#include "diagnosis/launch_stacks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "analysis/member_read.h"
#include "diagnosis/stack_sweep.h"
#include "members/page_cache_boost.h"

namespace rocpd::diagnosis {

using namespace analysis;

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kSpecial[32] = {0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r', 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0,   0,   0,   0, 0,   0,   0, 0};
  out.push_back('"');
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(ch));
    } else if (ch < 0x20) {
      out.push_back('\\');
      if (kSpecial[ch]) {
        out.push_back(kSpecial[ch]);
      } else {
        out += "u00";
        out.push_back("0123456789abcdef"[ch >> 4]);
        out.push_back("0123456789abcdef"[ch & 0xf]);
      }
    } else {
      out.push_back(static_cast<char>(ch));
    }
  }
  out.push_back('"');
}

StackCell MemberStacks::other_cell(const StoredValue& v) {
  StackCell c;
  c.type = v.type;
  if (v.type == SQLITE_FLOAT) std::memcpy(&c.bits, &v.d, sizeof v.d);
  else if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
    c.text = static_cast<uint32_t>(texts.size());
    texts.emplace_back(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
  }
  return c;
}

StoredValue MemberStacks::stored(const StackCell& c) const {
  StoredValue v;
  v.type = c.type;
  if (c.type == SQLITE_INTEGER) v.i = c.bits;
  else if (c.type == SQLITE_FLOAT) std::memcpy(&v.d, &c.bits, sizeof v.d);
  else if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) {
    v.bytes = texts[c.text].data();
    v.length = static_cast<int>(texts[c.text].size());
  }
  return v;
}

void MemberStacks::result(sqlite3_context* ctx, const StackCell& c) const {
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

const StackInfo& MemberStacks::info(const OpRow& r) const {
  static const StackInfo none;
  return r.call >= 0 ? calls[static_cast<size_t>(r.call)].info : none;
}

namespace {

using ThreadKey = std::tuple<bool, int64_t, bool, int64_t>;  // pid null, pid, tid null, tid
// A hostile pid or tid gives no thread: the call has no thread, so no range encloses it.
std::optional<ThreadKey> thread_key(const StoredValue& pid, const StoredValue& tid) {
  if ((pid.type != SQLITE_INTEGER && pid.type != SQLITE_NULL) || (tid.type != SQLITE_INTEGER && tid.type != SQLITE_NULL))
    return std::nullopt;
  return ThreadKey{pid.type == SQLITE_NULL, pid.i, tid.type == SQLITE_NULL, tid.i};
}

}  // namespace

namespace {

// Every 64k rows: a look at the stop flag, and the rows into the progress count.
struct RowCounter {
  const members::InterruptWatch& watch;
  std::atomic<int64_t>* rows_read;
  void row(uint64_t& read) const {
    if ((++read & 0xffff) != 0) return;
    if (watch.stopped()) members::InterruptWatch::raise();
    if (rows_read) rows_read->fetch_add(0x10000, std::memory_order_relaxed);
  }
  void rest(uint64_t read) const {
    if (rows_read) rows_read->fetch_add(static_cast<int64_t>(read & 0xffff), std::memory_order_relaxed);
  }
};

// 1. The kernels and copies into out.rows; the correlation ids of those that have one.
BigVector<int64_t> read_ops(const canonical::Member& m, sqlite3* conn, const StackOptions& options, const char* table,
                            const RowCounter& count, MemberStacks& out) {
  using namespace canonical;
  using namespace members;
  const std::string& db = m.alias;
  BigVector<int64_t> corrs;
  TokenNames op_names;
  // Columns by position: op_id, correlation_id, kind, name, start, end, then gpu and queue when
  // wanted (the gpu too when filtered on).
  enum { kId, kCorr, kKind, kName, kStart, kEnd, kGpu, kQueue };
  const bool gpu = options.places || options.gpu.has_value();
  std::vector<int> columns{kOpsOpId, kOpsCorrelationId, kOpsKind, kOpsName, kOpsStart, kOpsEnd};
  if (gpu) columns.push_back(kOpsGpu);
  if (options.places) columns.push_back(kOpsQueue);
  MemberColumns ops(m, conn, TableKind::Ops, std::move(columns));
  uint64_t read = 0;
  while (ops.next()) {
    count.row(read);
    const StoredValue kind = ops[kKind];
    if (kind.type != SQLITE_TEXT) continue;
    const std::string_view k(static_cast<const char*>(kind.bytes), static_cast<size_t>(kind.length));
    if (k != "kernel" && (!options.copies || k != "copy")) continue;
    const StoredValue g = gpu ? ops[kGpu] : StoredValue{};
    if (options.gpu && !equals_int(g, *options.gpu)) continue;
    const StoredValue op_id = ops[kId];
    if (options.keep_op && !options.keep_op(op_id)) continue;
    OpRow r;
    if (options.rowids) r.rowid = ops.rowid();
    r.op_id = out.cell(op_id);
    const StoredValue corr = ops[kCorr];
    r.corr = out.cell(corr);
    r.gpu = out.cell(g);
    if (options.places) r.queue = out.cell(ops[kQueue]);
    r.copy = k == "copy";
    // A TEXT column: numbers arrive converted, blobs read as their bytes (as column_text).
    r.name = op_names.id(ops, ops[kName], out.names);
    if (const auto start = time_value(ops[kStart], table, db, "start")) {
      r.start = *start;
      r.has_start = true;
    }
    if (const auto end = time_value(ops[kEnd], table, db, "end")) {
      r.end = *end;
      r.has_end = true;
    }
    if (corr.type == SQLITE_INTEGER) corrs.push_back(corr.i);
    out.rows.push_back(r);
  }
  count.rest(read);
  return corrs;
}

using ThreadCalls = std::map<ThreadKey, BigVector<Call>>;

// 2. The ops' launch calls into out.calls (one call may issue several ops: graph launches), and
// per thread the calls it made.
ThreadCalls link_calls(const canonical::Member& m, sqlite3* conn, const CorrSlots& wanted, const char* table,
                       MemberStacks& out) {
  const auto launches = read_member_launches(m, conn, wanted, true, table);
  ThreadCalls thread_calls;
  BigVector<int32_t> call_of_slot(wanted.size(), -1);
  out.calls.reserve(wanted.size());  // at most one call per correlation id
  for (OpRow& r : out.rows) {
    if (r.corr.type != SQLITE_INTEGER) continue;
    const int64_t found = wanted.find(r.corr.bits);
    if (found < 0) continue;
    const size_t slot = static_cast<size_t>(found);
    const LaunchCall& lc = launches.calls[slot];
    if (!lc.found) continue;
    if (call_of_slot[slot] < 0) {
      call_of_slot[slot] = static_cast<int32_t>(out.calls.size());
      CallRow c;
      const StoredValue pid = launches.cells.stored(lc.pid), tid = launches.cells.stored(lc.tid);
      c.pid = out.cell(pid);
      c.tid = out.cell(tid);
      out.calls.push_back(c);
      if (const auto thread = thread_key(pid, tid))
        thread_calls[*thread].push_back({lc.start, lc.end, static_cast<uint32_t>(call_of_slot[slot])});
    }
    r.call = call_of_slot[slot];
  }
  return thread_calls;
}

// 3. The marker ranges of the threads that launched something, with their names' JSON texts.
std::map<ThreadKey, std::vector<Range>> read_thread_ranges(const canonical::Member& m, sqlite3* conn,
                                                           const ThreadCalls& thread_calls, const char* table,
                                                           const RowCounter& count, MemberStacks& out) {
  using namespace canonical;
  using namespace members;
  const std::string& db = m.alias;
  std::map<ThreadKey, std::vector<Range>> thread_ranges;
  if (thread_calls.empty()) return thread_ranges;
  MemberColumns apis(m, conn, TableKind::Apis, {kApisDomain, kApisPid, kApisTid, kApisStart, kApisEnd, kApisName, kApisApiId},
                     nullptr, std::pair<int, std::string>{kApisDomain, "marker"});
  uint64_t read = 0;
  while (apis.next()) {
    count.row(read);
    const StoredValue domain = apis[0];
    if (domain.type != SQLITE_TEXT ||
        std::string_view(static_cast<const char*>(domain.bytes), static_cast<size_t>(domain.length)) != "marker")
      continue;
    const auto start = time_value(apis[3], table, db, "start");
    const auto end = time_value(apis[4], table, db, "end");
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
      const std::string_view text(static_cast<const char*>(n.bytes), static_cast<size_t>(n.length));
      name = out.range_names.id(text);
      if (name >= out.range_json.size()) {
        out.range_json.resize(name + 1);
        append_json_string(out.range_json[name], text);
      }
    }
    const StoredValue order = apis[6];
    thread_ranges[*thread].push_back({*start, *end, name, order.type == SQLITE_INTEGER ? order.i : 0});
  }
  count.rest(read);
  return thread_ranges;
}

// 4. One sweep per thread: the stack of each call.
void sweep_stacks(ThreadCalls& thread_calls, std::map<ThreadKey, std::vector<Range>>& thread_ranges,
                  const StackOptions& options, const members::InterruptWatch& watch, MemberStacks& out) {
  using namespace canonical;
  using namespace members;
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
      StackInfo& info = out.calls[call].info;
      if (options.stack_texts) {
        json = "[";
        for (size_t k = 0; k < stack.size(); ++k) {
          if (k) json.push_back(',');
          json += out.range_json[ranges[stack[k]].name];
        }
        json.push_back(']');
        info.stack = out.stacks.id(json);
      }
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
}

}  // namespace

MemberStacks member_stacks(const canonical::Member& m, sqlite3* conn, const StackOptions& options,
                           const members::InterruptWatch& watch, const char* table, std::atomic<int64_t>* rows_read) {
  MemberStacks out;
  out.stacks.id("[]");
  const RowCounter count{watch, rows_read};
  CorrSlots wanted;
  {
    BigVector<int64_t> corrs = read_ops(m, conn, options, table, count, out);
    wanted.assign(corrs);
  }
  // The API table is read twice (launch calls, then markers): its pages stay cached in between.
  const members::PageCacheBoost cache(m, conn);
  ThreadCalls thread_calls = link_calls(m, conn, wanted, table, out);
  auto thread_ranges = read_thread_ranges(m, conn, thread_calls, table, count, out);
  sweep_stacks(thread_calls, thread_ranges, options, watch, out);
  return out;
}

}  // namespace rocpd::diagnosis
