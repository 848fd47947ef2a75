#include "export/trace_export.h"

#include <chrono>
#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/corr_slots.h"
#include "export/json_writer.h"
#include "export/nest_lane.h"
#include "export/out_file.h"
#include "export/pftrace_writer.h"
#include "export/profile_ahead.h"
#include "export/row_pipe.h"
#include "export/utilization_counter.h"
#include "members/interrupt.h"
#include "members/member_columns.h"
#include "members/member_files.h"
#include "members/member_sql.h"
#include "members/registry.h"
#include "names/demangle.h"
#include "names/display_name.h"

namespace rocpd::exporter {

namespace {

using members::InterruptWatch;

// Members from this size on get a shadow connection, their profile computed ahead (each a
// connection opened and its schema read: about a millisecond) and their events formatted on a
// thread of their own.
constexpr int64_t kHelpersFromBytes = 4 << 20;

bool ends_with(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

// Tracks of the output: a process per (member, pid), a thread per (member, pid, tid) of API
// calls, a thread per (member, pid, gpu, queue) of GPU ops. Trace viewers key threads by tid
// alone, so every pid and tid written is unique in the file: a real id is kept unless an earlier
// track took it (another host's process with the same pid), then a synthetic one is used.
struct Key {
  int64_t member, a, b, c;
  uint32_t kind, nulls;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const noexcept {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (uint64_t v : {uint64_t(k.member), uint64_t(k.a), uint64_t(k.b), uint64_t(k.c),
                       (uint64_t(k.kind) << 32) | k.nulls}) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ULL;
    }
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// The launch of a correlation id: the first API call with it.
struct Launch {
  std::optional<int64_t> pid, tid, start, end;
  uint64_t flow = 0;  // flows_on_slices_: the first arrow from this call not yet written
  int64_t json_pid = 0, track = -1;  // where its slice was written, once it was
};

struct Member {
  int64_t ordinal;
  std::string db;
  std::optional<std::string> hostname;
};

class Exporter {
 public:
  Exporter(sqlite3* db, const ExportRequest& req, TraceWriter& w, InterruptWatch& watch)
      : req_(req),
        w_(w),
        watch_(watch),
        registry_(members::Registry::of(db)) {
    if (!registry_) throw Error(fmt::format("{}: no members", kFn));
  }

  void member(const Member& m) {
    member_ = &m;
    member_pid_.reset();
    {
      // Read straight from the member's own tables on its connection (members/member_columns.h):
      // the federated tables' per-row work (lookups of each op's launch) is what made this slow.
      // This thread steps the member's statements; pipe_'s worker writes the events.
      const canonical::MemberPtr fm = registry_->members_named({m.db}, kFn).front();
      // An attached member is read on a private connection of its file when that reads the same
      // rows (Registry::shadow): off the host connection's mutex, taken on every call. A small
      // file is read faster than the extra connections open.
      const bool large = members::file_size_or_missing(fm->path) >= kHelpersFromBytes;
      pipe_.set_threaded(large);
      Db shadow = large ? registry_->shadow(*fm) : Db();
      members::ProgressGuard shadow_guard(shadow.get(), &watch_, true);
      members::Registry::Lease lease;
      if (!shadow) lease = registry_->acquire(fm, &watch_, true);
      sqlite3* const conn = shadow ? shadow.get() : lease.db();
      const bool whole = !req_.lo && !req_.hi;
      if (!flows_on_slices_ && (whole || unique_correlation_ids(*fm))) {
        // The calls pass records the launches the ops pass needs: all of them when every call is
        // read; in a window, those of its calls, which are all it needs when each call has a
        // correlation id of its own (an op's arrow is drawn only when its launch overlaps the
        // window). That pass needs no profile, so the member's profile is computed beside it.
        {
          ProfileAhead ahead(*registry_, fm, watch_, large);
          apis(*fm, conn, false, true);
          ahead.wait();
        }
        plan_utilization();
        const auto profile = registry_->profile(fm, &watch_);
        if (second_pass(*fm, profile->apis_unended)) apis(*fm, conn, true, true);
        ops(*fm, conn, profile.get(), false);
        if (second_pass(*fm, profile->ops_unended)) ops(*fm, conn, profile.get(), true);
      } else {
        plan_utilization();
        const auto profile = registry_->profile(fm, &watch_);
        read_launches(*fm, conn);
        ops(*fm, conn, profile.get(), false);
        if (second_pass(*fm, profile->ops_unended)) ops(*fm, conn, profile.get(), true);
        apis(*fm, conn, false, false);
        if (second_pass(*fm, profile->apis_unended)) apis(*fm, conn, true, false);
      }
      pipe_.drain();
      flush_pending_begins();
      launches_.clear();
      more_flows_.clear();
      api_lanes_.clear();
      op_links_ = {};
      lanes_.clear();
      recent_queues_ = {};
    }
    // Nothing of the member in the window: no process to hold its counter.
    if (member_pid_) result.counters += utilization_.write(w_, m.db, *member_pid_);
    utilization_.clear();
  }

  // The utilization grid, laid once before the first ops are read (it needs every member's span).
  // The worker adds ops to it only after this (the ops batches are sent later).
  void plan_utilization() {
    if (planned_) return;
    utilization_.plan(registry_->host(), req_.lo, req_.hi, req_.utilization_buckets);
    planned_ = true;
  }

  // Waits for the worker: what it wrote and counted is complete.
  void finish() { pipe_.drain(); }

  // rocpd_progress(1): the line printed about once a second (calling thread: its own counters).
  std::string progress_line(size_t done, size_t total) const {
    return fmt::format("rocpd_export_trace: {}/{} members written{}, {} rows read", done, total,
                       member_ && done < total ? ", now " + member_->db : std::string(), rows_read_);
  }
  bool progress_wanted() const { return registry_->progress; }

  ExportResult result;

 private:
  // [start, end) overlaps the window; a row whose end is NULL or not after its start covers no
  // time and is taken when its start lies in the window.
  bool overlaps(int64_t start, std::optional<int64_t> end) const {
    if (req_.hi && start >= *req_.hi) return false;
    if (!req_.lo) return true;
    if (req_.by_start) return start >= *req_.lo;
    return (end && *end > *req_.lo) || start >= *req_.lo;
  }

  int64_t synthetic(int64_t& next) {
    while (used_ids_.count(next)) ++next;
    used_ids_.insert(next);
    return next++;
  }

  // Consecutive rows mostly share their tracks: the last hit of each table is kept.
  struct LastTrack {
    bool valid = false;
    Key key{};
    int64_t id = 0;
  };
  static int64_t lookup(std::unordered_map<Key, int64_t, KeyHash>& table, LastTrack& last, const Key& key, bool& found) {
    found = true;
    if (last.valid && last.key == key) return last.id;
    if (auto it = table.find(key); it != table.end()) {
      last = {true, key, it->second};
      return it->second;
    }
    found = false;
    return 0;
  }

  int64_t process(std::optional<int64_t> pid) {
    const Key key{member_->ordinal, pid.value_or(0), 0, 0, 0, pid ? 0u : 1u};
    bool found;
    if (const int64_t id = lookup(processes_, last_process_, key, found); found) return id;
    int64_t id;
    if (pid && *pid > 0 && *pid <= INT32_MAX && used_ids_.insert(*pid).second) {
      id = *pid;
    } else {
      id = synthetic(next_pid_);
    }
    processes_.emplace(key, id);
    if (!member_pid_) member_pid_ = id;
    std::string name = pid ? fmt::format("{} pid {}", member_->db, *pid) : fmt::format("{} pid ?", member_->db);
    if (member_->hostname) name += fmt::format(" ({})", *member_->hostname);
    w_.process(id, name, static_cast<int64_t>(processes_.size()));
    return id;
  }

  int64_t thread(int64_t json_pid, std::optional<int64_t> pid, std::optional<int64_t> tid) {
    const Key key{member_->ordinal, pid.value_or(0), tid.value_or(0), 0, 1, (pid ? 0u : 1u) | (tid ? 0u : 2u)};
    bool found;
    if (const int64_t id = lookup(threads_, last_thread_, key, found); found) return id;
    int64_t id;
    if (tid && pid && *tid == *pid && json_pid == *pid) {
      id = json_pid;  // the main thread keeps tid == pid
    } else if (tid && *tid > 0 && *tid <= INT32_MAX && used_ids_.insert(*tid).second) {
      id = *tid;
    } else {
      id = synthetic(next_tid_);
    }
    threads_.emplace(key, id);
    // Room below the next thread's index for this one's overlap lanes.
    const int64_t sort = static_cast<int64_t>(threads_.size()) * 64;
    thread_sorts_.emplace(id, sort);
    w_.thread(json_pid, id, tid ? fmt::format("thread {}", *tid) : std::string("thread ?"), sort);
    return id;
  }

  // The track of a CPU thread's slice [start, start + dur): the thread's own track while the slice
  // nests with those already there (calls nest as calls do; a roctx range may cross a call of its
  // thread), else the first of its overlap lanes "thread <tid> (overlap <n>)" where it nests.
  // Instants stay on the thread's track.
  int64_t api_track(int64_t json_pid, std::optional<int64_t> pid, std::optional<int64_t> tid, int64_t start,
                    int64_t dur) {
    const int64_t own = thread(json_pid, pid, tid);
    if (dur <= 0) return own;
    const Key key{member_->ordinal, pid.value_or(0), tid.value_or(0), 0, 3, (pid ? 0u : 1u) | (tid ? 0u : 2u)};
    ApiLanes& lanes = api_lanes_[key];
    size_t lane = 0;
    while (lane < lanes.lanes.size() && !lanes.lanes[lane].try_place(start, start + dur)) ++lane;
    if (lane == lanes.lanes.size()) {
      lanes.lanes.emplace_back();
      lanes.lanes.back().try_place(start, start + dur);
    }
    if (lane == 0) return own;
    if (lanes.tids.size() < lane) lanes.tids.resize(lane, -1);
    int64_t& id = lanes.tids[lane - 1];
    if (id < 0) {
      id = synthetic(next_tid_);
      const int64_t rank = std::min<int64_t>(static_cast<int64_t>(lane), 63);
      w_.thread(json_pid, id,
                tid ? fmt::format("thread {} (overlap {})", *tid, lane) : fmt::format("thread ? (overlap {})", lane),
                thread_sorts_[own] + rank);
    }
    return id;
  }

  static Key queue_key(int64_t member, std::optional<int64_t> pid, std::optional<int64_t> gpu,
                       std::optional<int64_t> q, uint32_t lane) {
    return Key{member, pid.value_or(0), gpu.value_or(0), q.value_or(0), 2,
               (pid ? 0u : 1u) | (gpu ? 0u : 2u) | (q ? 0u : 4u) | (lane << 3)};
  }

  // The track of a GPU queue's op [start, start + dur): ops on one track may neither cross
  // (Perfetto drops a slice that starts inside another of its track and ends after it) nor nest (an
  // op inside another is no call stack). So each queue has lanes, lane 0 its own track: an op goes
  // to the first lane whose ops all ended by its start; lanes past 0 are tracks named
  // "(overlap <n>)". Zero-length ops (instants) stay on lane 0.
  int64_t queue(int64_t json_pid, std::optional<int64_t> pid, std::optional<int64_t> gpu, std::optional<int64_t> q,
                int64_t start, int64_t dur) {
    QueueLanes& lanes = lanes_of(queue_key(member_->ordinal, pid, gpu, q, 0));
    uint32_t lane = 0;
    if (dur > 0) {
      while (lane < lanes.ends.size() && lanes.ends[lane] > start) ++lane;
      if (lane == lanes.ends.size()) lanes.ends.push_back(0);
      lanes.ends[lane] = start + dur;
    }
    if (lane >= lanes.tids.size()) lanes.tids.resize(lane + 1, -1);
    int64_t& tid = lanes.tids[lane];
    if (tid < 0) tid = new_queue_track(json_pid, pid, gpu, q, lane);
    return tid;
  }

  // A queue of the member being written: per lane, the end of its last op and its track's tid.
  struct QueueLanes {
    std::vector<int64_t> ends, tids;
  };
  // Through a few recently used queues first: the ops of a few queues interleave.
  QueueLanes& lanes_of(const Key& key) {
    for (const auto& [k, lanes] : recent_queues_)
      if (lanes && k == key) return *lanes;
    QueueLanes* lanes = &lanes_[key];
    recent_queues_[next_recent_++ % recent_queues_.size()] = {key, lanes};
    return *lanes;
  }

  int64_t new_queue_track(int64_t json_pid, std::optional<int64_t> pid, std::optional<int64_t> gpu,
                          std::optional<int64_t> q, uint32_t lane) {
    const int64_t id = synthetic(next_tid_);
    threads_.emplace(queue_key(member_->ordinal, pid, gpu, q, lane), id);
    const std::string g = gpu ? std::to_string(*gpu) : "?";
    const std::string qs = q ? std::to_string(*q) : "?";
    // GPU tracks below the CPU threads, in gpu and queue order when the numbers are small, each
    // queue's overlap lanes right after it.
    int64_t sort = 1000000000 + static_cast<int64_t>(threads_.size());
    if (gpu && q && *gpu >= 0 && *gpu < 100000 && *q >= 0 && *q < 10000) sort = 1000000 + *gpu * 10000 + *q;
    sort = sort * 64 + std::min<int64_t>(lane, 63);
    w_.thread(json_pid, id,
              lane ? fmt::format("GPU {} queue {} (overlap {})", g, qs, lane) : fmt::format("GPU {} queue {}", g, qs),
              sort);
    return id;
  }

  // A value as sqlite3_column_int64 reads it; nullopt for NULL.
  [[gnu::always_inline]] static std::optional<int64_t> int_of(const StoredValue& v) {
    if (v.type == SQLITE_INTEGER) [[likely]] return v.i;
    if (v.type == SQLITE_NULL) return std::nullopt;
    return other_int_of(v);
  }
  [[gnu::noinline]] static int64_t other_int_of(const StoredValue& v) {
    if (v.type == SQLITE_FLOAT) return static_cast<int64_t>(v.d);
    const std::string t(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
    return std::strtoll(t.c_str(), nullptr, 10);
  }
  static std::string_view text(const StoredValue& v) {
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB)
      return std::string_view(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
    return {};
  }

  // The member's rows [start, end) of the window, as two passes: rows whose end reaches the
  // window (pushed into the members as ranges on end and start), then (reversed) rows ending
  // before it or without end that start inside it, i.e. zero-length and reversed rows.
  std::vector<members::IntBound> window_bounds(int start_col, int end_col, bool reversed) const {
    std::vector<members::IntBound> b;
    if (!reversed && req_.lo) b.push_back({end_col, SQLITE_INDEX_CONSTRAINT_GE, *req_.lo});
    if (!reversed && req_.lo && req_.by_start) b.push_back({start_col, SQLITE_INDEX_CONSTRAINT_GE, *req_.lo});
    if (reversed) b.push_back({start_col, SQLITE_INDEX_CONSTRAINT_GE, *req_.lo});
    if (req_.hi) b.push_back({start_col, SQLITE_INDEX_CONSTRAINT_LT, *req_.hi});
    return b;
  }
  bool in_pass(std::optional<int64_t> start, std::optional<int64_t> end, bool reversed) const {
    if (!start) return false;
    if (req_.hi && *start >= *req_.hi) return false;
    if (!reversed) return !req_.lo || (end && *end >= *req_.lo);
    return *start >= *req_.lo && (!end || *end < *req_.lo);
  }

  // Whether a window needs its second, start-bounded pass over a table of the member: only rows
  // whose end is missing or before their start (`unended` of them, as its profile counted) can
  // start in the window without their end reaching it. The profile is of the file: inside a
  // transaction of the user's, rows the user changed may be such rows, so the pass is made.
  bool second_pass(const canonical::Member& m, int64_t unended) const {
    return req_.lo && (unended > 0 || registry_->in_user_transaction(m));
  }

  // Whether each of the member's API calls has a correlation id of its own (a key of its one
  // source: rpd's API ids).
  static bool unique_correlation_ids(const canonical::Member& m) {
    const auto& shapes = members::shapes_of(canonical::TableKind::Apis, m);
    return shapes.size() == 1 && (shapes[0].indexed & (uint64_t{1} << canonical::kApisCorrelationId));
  }

  // Sends every row of `rows` to `handle` on the worker thread.
  void stream(members::MemberColumns& rows, size_t width, const RowPipe::Handler& handle) {
    std::unique_ptr<RowBatch> batch = pipe_.take(width);
    uint64_t n = 0;
    while (rows.next()) {
      ++rows_read_;
      if ((++n & 0xfff) == 0) watch_.check();
      batch->add(rows);
      if (batch->full()) {
        pipe_.send(std::move(batch), handle);
        batch = pipe_.take(width);
      }
    }
    pipe_.send(std::move(batch), handle);
  }

  // The first API call (in the member's order) of each correlation id: the launch of its ops.
  void read_launches(const canonical::Member& m, sqlite3* conn) {
    using namespace canonical;
    using namespace members;
    MemberColumns rows(m, conn, TableKind::Apis,
                       {kApisCorrelationId, kApisPid, kApisTid, kApisStart, kApisEnd, kApisDomain});
    stream(rows, 6, launch_rows_);
  }
  void launch_row(std::span<const StoredValue> row) {
    const StoredValue corr = row[0];
    if (corr.type == SQLITE_NULL || dropped(row[5])) return;
    launches_.add(*int_of(corr), int_of(row[1]), int_of(row[2]), int_of(row[3]), int_of(row[4]));
  }

  void ops(const canonical::Member& m, sqlite3* conn, const canonical::Profile* profile, bool reversed) {
    using namespace canonical;
    using namespace members;
    MemberColumns rows(m, conn, TableKind::Ops,
                       {kOpsPid, kOpsGpu, kOpsQueue, kOpsKind, kOpsName, kOpsStart, kOpsEnd, kOpsCorrelationId, kOpsOpId},
                       profile, std::nullopt, window_bounds(kOpsStart, kOpsEnd, reversed), &op_links_);
    stream(rows, 9, reversed ? reversed_op_rows_ : op_rows_);
  }
  void op_row(std::span<const StoredValue> row, bool reversed) {
    const auto start = int_of(row[5]);
    const auto end = int_of(row[6]);
    if (!in_pass(start, end, reversed)) return;
    const auto gpu = int_of(row[1]);
    utilization_.add(gpu, start, end);
    if (!overlaps(*start, end)) return;
    const auto pid = int_of(row[0]);
    const int64_t jpid = process(pid);
    int64_t dur = end && *end > *start ? *end - *start : 0;
    const auto q = int_of(row[2]);
    const StoredValue name_value = row[4];
    const std::string_view kind = text(row[3]);
    const std::string_view name = name_value.type == SQLITE_NULL ? kind : shown_name(text(name_value));
    const auto corr = int_of(row[7]);
    EventArgs args;
    if (req_.args) {
      args.correlation_id = corr;
      args.op_id = int_of(row[8]);
    }
    // The launch: the member's API call with the op's correlation id, when in the window.
    Launch* l = corr ? launches_.find(*corr) : nullptr;
    if (l && !(l->start && overlaps(*l->start, l->end))) l = nullptr;
    if (l) {
      args.flow_in = ++result.flows;
      // An arrow binds to a slice: a zero-length op it ends at is written 1 ns long.
      if (dur == 0) {
        args.recorded_dur = 0;  // kept with option args false: it says the 1 ns is not recorded
        dur = 1;
      }
    }
    const int64_t jtid = queue(jpid, pid, gpu, q, *start, dur);
    w_.slice(jpid, jtid, kind, name, *start, dur, args);
    ++result.ops;
    if (!l) return;
    if (flows_on_slices_) {
      // The call's slice carries the arrow (written later, in apis()).
      if (!l->flow) l->flow = args.flow_in;
      else more_flows_[*corr].push_back(args.flow_in);
      return;
    }
    w_.flow_end(args.flow_in, jpid, jtid, *start);
    // Inside the call (the middle, or the op's start when earlier), so the arrow binds to it.
    int64_t from = *l->start;
    if (l->end && *l->end > *l->start) from = *l->start + (*l->end - *l->start) / 2;
    if (*start < from && *start >= *l->start) from = *start;
    // The call's track (a lane of its thread) is known once its slice is written.
    if (l->track >= 0) w_.flow_begin(args.flow_in, l->json_pid, l->track, from);
    else pending_begins_[*corr].push_back({args.flow_in, from});
  }

  // Whether an API call's domain is one option drop_domains leaves out (compared in lower case).
  bool dropped(const StoredValue& domain) const {
    if (req_.drop_domains.empty() || domain.type != SQLITE_TEXT) return false;
    const std::string_view d = text(domain);
    for (const std::string& x : req_.drop_domains) {
      if (x.size() != d.size()) continue;
      bool same = true;
      for (size_t i = 0; i < d.size() && same; ++i)
        same = std::tolower(static_cast<unsigned char>(d[i])) == static_cast<unsigned char>(x[i]);
      if (same) return true;
    }
    return false;
  }

  // An op's name as the export shows it (ExportRequest::names), through a cache of this export.
  std::string_view shown_name(std::string_view raw) {
    if (req_.names == NameForm::raw) return raw;
    auto it = shown_names_.find(raw);
    if (it != shown_names_.end()) return it->second;
    if (shown_names_.size() >= 65536) shown_names_.clear();  // bounded: hostile columns of distinct names
    std::string shown = req_.names == NameForm::display ? names::display_name(raw) : names::demangle(raw);
    return shown_names_.emplace(std::string(raw), std::move(shown)).first->second;
  }

  // `launches`: also record each correlation id's launch (the first call with it, as
  // read_launches), for an ops pass that follows.
  void apis(const canonical::Member& m, sqlite3* conn, bool reversed, bool launches) {
    using namespace canonical;
    using namespace members;
    MemberColumns rows(m, conn, TableKind::Apis,
                       {kApisPid, kApisTid, kApisDomain, kApisName, kApisArgs, kApisStart, kApisEnd, kApisCorrelationId},
                       nullptr, std::nullopt, window_bounds(kApisStart, kApisEnd, reversed));
    stream(rows, 8, launches ? (reversed ? reversed_api_launch_rows_ : api_launch_rows_)
                             : (reversed ? reversed_api_rows_ : api_rows_));
  }
  void api_row(std::span<const StoredValue> row, bool reversed, bool launches) {
    // A call left out launches no arrow: the launch of its id is the first call written.
    if (dropped(row[2])) return;
    if (launches && row[7].type != SQLITE_NULL)
      launches_.add(*int_of(row[7]), int_of(row[0]), int_of(row[1]), int_of(row[5]), int_of(row[6]));
    const auto start = int_of(row[5]);
    const auto end = int_of(row[6]);
    if (!in_pass(start, end, reversed)) return;
    if (!overlaps(*start, end)) return;
    const auto pid = int_of(row[0]);
    const auto tid = int_of(row[1]);
    const int64_t jpid = process(pid);
    const int64_t dur = end && *end > *start ? *end - *start : 0;
    const int64_t jtid = api_track(jpid, pid, tid, *start, dur);
    const auto corr = int_of(row[7]);
    EventArgs args;
    if (req_.args) args.correlation_id = corr;
    const StoredValue a = row[4];
    if (req_.args && a.type != SQLITE_NULL) {
      const std::string_view t = text(a);
      if (!t.empty()) args.text = t;
    }
    // The launch of its correlation id (the first call with it; a later one has equal values at most).
    Launch* l = corr ? launches_.find(*corr) : nullptr;
    if (l && (l->track >= 0 || l->pid != pid || l->tid != tid || l->start != start || l->end != end)) l = nullptr;
    if (l) {
      l->json_pid = jpid;
      l->track = jtid;
    }
    if (flows_on_slices_ && l) args.flows_out = launched_flows(*l, *corr, flows_out_);
    w_.slice(jpid, jtid, text(row[2]), text(row[3]), *start, dur, args);
    ++result.apis;
    if (l && !flows_on_slices_) write_pending_begins(*corr, *l);
  }

  // The starts of arrows whose ops were written before their launch's slice.
  void write_pending_begins(int64_t corr, const Launch& l) {
    const auto it = pending_begins_.find(corr);
    if (it == pending_begins_.end()) return;
    for (const auto& [id, from] : it->second) w_.flow_begin(id, l.json_pid, l.track, from);
    pending_begins_.erase(it);
  }

  // After a member: arrows whose launch's slice was not written (none should be) start on its
  // thread's own track.
  void flush_pending_begins() {
    for (const auto& [corr, begins] : pending_begins_) {
      Launch* l = launches_.find(corr);
      if (!l) continue;
      const int64_t jpid = process(l->pid);
      const int64_t jtid = thread(jpid, l->pid, l->tid);
      for (const auto& [id, from] : begins) w_.flow_begin(id, jpid, jtid, from);
    }
    pending_begins_.clear();
  }

  // The flows leaving a launch's slice (flows_on_slices_).
  std::span<const uint64_t> launched_flows(Launch& l, int64_t corr, std::vector<uint64_t>& out) {
    if (!l.flow) return {};
    out.assign(1, l.flow);
    l.flow = 0;  // written once
    if (const auto more = more_flows_.find(corr); more != more_flows_.end()) {
      out.insert(out.end(), more->second.begin(), more->second.end());
      more_flows_.erase(more);
    }
    return out;
  }

  const ExportRequest& req_;
  TraceWriter& w_;
  InterruptWatch& watch_;
  const Member* member_ = nullptr;
  std::shared_ptr<members::Registry> registry_;
  // The launch of each correlation id of the member being written: the first call added with it.
  class Launches {
   public:
    void add(int64_t corr, std::optional<int64_t> pid, std::optional<int64_t> tid, std::optional<int64_t> start,
             std::optional<int64_t> end) {
      if (slots_.add(corr) == list_.size()) list_.push_back({pid, tid, start, end, 0, 0, -1});
    }
    Launch* find(int64_t corr) {
      const int64_t slot = slots_.find(corr);
      return slot < 0 ? nullptr : &list_[static_cast<size_t>(slot)];
    }
    void clear() {  // and frees the memory
      slots_ = CorrSlots();
      list_ = std::vector<Launch>();
    }

   private:
    CorrSlots slots_;
    std::vector<Launch> list_;
  };
  Launches launches_;
  members::MemberColumns::LinkCache op_links_;  // of the member being written: its two ops passes
  std::unordered_map<int64_t, std::vector<uint64_t>> more_flows_;  // a launch's further arrows
  // JSON: arrows (id, start time) of ops written before their launch's slice, by correlation id.
  std::unordered_map<int64_t, std::vector<std::pair<uint64_t, int64_t>>> pending_begins_;
  // A CPU thread's overlap lanes (api_track), by the thread's key: lane 0 is the thread's track.
  struct ApiLanes {
    std::vector<NestLane> lanes;
    std::vector<int64_t> tids;  // of lanes 1, 2, ...
  };
  std::unordered_map<Key, ApiLanes, KeyHash> api_lanes_;
  std::unordered_map<int64_t, int64_t> thread_sorts_;  // a thread track's sort index
  std::unordered_map<std::string, std::string, NameHash, std::equal_to<>> shown_names_;
  const bool flows_on_slices_ = w_.flows_on_slices();
  std::optional<int64_t> member_pid_;
  std::unordered_map<Key, int64_t, KeyHash> processes_, threads_;
  LastTrack last_process_, last_thread_;
  std::unordered_map<Key, QueueLanes, KeyHash> lanes_;  // the member's queues, by lane 0's key
  std::array<std::pair<Key, QueueLanes*>, 8> recent_queues_{};
  size_t next_recent_ = 0;
  std::unordered_set<int64_t> used_ids_;
  UtilizationCounter utilization_;
  bool planned_ = false;
  int64_t next_pid_ = 4194305;       // above Linux's largest pid_max
  int64_t next_tid_ = 1000000000;
  std::vector<uint64_t> flows_out_;  // the current call's arrows (flows_on_slices_)
  uint64_t rows_read_ = 0;           // by the calling thread, for progress lines

  // What the worker does with each pass's rows.
  const RowPipe::Handler launch_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) launch_row(b.row(r));
  };
  const RowPipe::Handler op_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) op_row(b.row(r), false);
  };
  const RowPipe::Handler reversed_op_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) op_row(b.row(r), true);
  };
  const RowPipe::Handler api_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) api_row(b.row(r), false, false);
  };
  const RowPipe::Handler reversed_api_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) api_row(b.row(r), true, false);
  };
  const RowPipe::Handler api_launch_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) api_row(b.row(r), false, true);
  };
  const RowPipe::Handler reversed_api_launch_rows_ = [this](const RowBatch& b) {
    for (size_t r = 0; r < b.size(); ++r) api_row(b.row(r), true, true);
  };
  // Last, so it stops first: its worker uses everything above.
  RowPipe pipe_;
};

std::vector<Member> members_to_export(sqlite3* db, const ExportRequest& req) {
  Stmt s = prepare(db, "SELECT rowid, db, hostname FROM temp.rocpd_members ORDER BY rowid", kFn);
  std::vector<Member> all;
  while (step(s.get(), kFn)) {
    Member m{sqlite3_column_int64(s.get(), 0), std::string(column_text(s.get(), 1)), std::nullopt};
    if (sqlite3_column_type(s.get(), 2) != SQLITE_NULL) m.hostname = std::string(column_text(s.get(), 2));
    all.push_back(std::move(m));
  }
  if (!req.member_globs.empty()) {
    for (const std::string& g : req.member_globs)
      if (std::none_of(all.begin(), all.end(), [&](const Member& m) { return sqlite3_strglob(g.c_str(), m.db.c_str()) == 0; }))
        throw Error(fmt::format("{}: option members: no member matches '{}' (a GLOB pattern, case-sensitive)", kFn, g));
    std::erase_if(all, [&](const Member& m) {
      return std::none_of(req.member_globs.begin(), req.member_globs.end(),
                          [&](const std::string& g) { return sqlite3_strglob(g.c_str(), m.db.c_str()) == 0; });
    });
  }
  if (!req.dbs) return all;
  std::vector<Member> chosen;
  for (const std::string& name : *req.dbs) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Member& m) { return m.db == name; });
    if (it == all.end())
      throw Error(fmt::format("{}: option db: no member is named '{}'{}", kFn, name,
                              req.member_globs.empty() ? "" : " among those option members keeps"));
    if (std::none_of(chosen.begin(), chosen.end(), [&](const Member& m) { return m.db == name; })) chosen.push_back(*it);
  }
  std::sort(chosen.begin(), chosen.end(), [](const Member& a, const Member& b) { return a.ordinal < b.ordinal; });
  return chosen;
}

// The file at `path` must not be one the export reads: a member (or its journal, WAL or shared
// memory), or a database of the connection. Compared by device and inode, so another name of the
// same file (a link, a relative path) is recognised.
void refuse_reading_destination(sqlite3* db, const std::string& path) {
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) return;  // a new file
  auto same = [&](const std::string& other) {
    struct stat st {};
    return !other.empty() && ::stat(other.c_str(), &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino;
  };
  auto same_or_side = [&](const std::string& file) {
    for (const char* side : {"", "-wal", "-shm", "-journal"})
      if (same(file + side)) return true;
    return false;
  };
  if (auto registry = members::Registry::of(db)) {
    for (const auto& m : registry->members())
      if (same_or_side(m->path))
        throw Error(fmt::format("{}: '{}' is the file of member {} ('{}'), which the export reads; write the trace to "
                                "another file",
                                kFn, path, m->alias, m->path));
  }
  Stmt s = prepare(db, "SELECT name, file FROM pragma_database_list", kFn);
  while (step(s.get(), kFn)) {
    if (same_or_side(std::string(column_text(s.get(), 1))))
      throw Error(fmt::format("{}: '{}' is the file of database '{}' of this connection; write the trace to another "
                              "file",
                              kFn, path, column_text(s.get(), 0)));
  }
}

// The error of a window that holds nothing: most often times relative to the job's start given
// where the members' own ns are expected.
[[noreturn]] void empty_window(sqlite3* db, const ExportRequest& req, const std::vector<Member>& members) {
  auto bound = [](const std::optional<int64_t>& v, const char* open) {
    return v ? std::to_string(*v) : std::string(open);
  };
  std::optional<int64_t> first, last;
  {
    Stmt s = prepare(db, "SELECT first_ns, last_ns FROM temp.rocpd_members WHERE db = ?1", kFn);
    for (const Member& m : members) {
      sqlite3_reset(s.get());
      sqlite3_bind_text(s.get(), 1, m.db.data(), static_cast<int>(m.db.size()), SQLITE_TRANSIENT);
      if (!step(s.get(), kFn)) continue;
      if (sqlite3_column_type(s.get(), 0) == SQLITE_INTEGER)
        first = std::min(first.value_or(INT64_MAX), static_cast<int64_t>(sqlite3_column_int64(s.get(), 0)));
      if (sqlite3_column_type(s.get(), 1) == SQLITE_INTEGER)
        last = std::max(last.value_or(INT64_MIN), static_cast<int64_t>(sqlite3_column_int64(s.get(), 1)));
    }
  }
  const std::string window = fmt::format("[{}, {})", bound(req.lo, "-inf"), bound(req.hi, "+inf"));
  if (!first || !last)
    throw Error(fmt::format("{}: no op or API call in the window {} ns: the members exported hold none", kFn, window));
  auto rel = [](const std::optional<int64_t>& v) {
    return v ? fmt::format("rocpd_job_start() + {}", *v) : std::string("NULL");
  };
  throw Error(fmt::format("{}: no op or API call in the window {} ns; the job runs from {} to {} ns (the members' "
                          "own clock, not time since the job began: for a window relative to the job's start add "
                          "rocpd_job_start(), e.g. rocpd_export_trace('{}', {}, {}))",
                          kFn, window, *first, *last, req.path, rel(req.lo), rel(req.hi)));
}

// A JSON string literal of option text (valid UTF-8: it came through SQLite's JSON functions).
std::string json_string(std::string_view t) {
  std::string out = "\"";
  for (const char c : t) {
    if (c == '"' || c == '\\') out += {'\\', c};
    else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    else out += c;
  }
  return out + "\"";
}

std::string other_data(const ExportRequest& req, const ExportResult& r) {
  auto bound = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("null"); };
  // What a reader of the file needs to know was left out or how rows were chosen.
  std::string dropped;
  for (const std::string& d : req.drop_domains) dropped += (dropped.empty() ? "" : ",") + json_string(d);
  return fmt::format(
      "{{\"exporter\":\"rocpd_export_trace\",\"start_ns\":{},\"end_ns\":{},\"members\":{},\"ops\":{},\"apis\":{},"
      "\"flows\":{},\"counters\":{},\"utilization_buckets\":{},\"rows\":\"{}\",\"drop_domains\":[{}],\"args\":{}}}",
      bound(req.lo), bound(req.hi), r.members, r.ops, r.apis, r.flows, r.counters, req.utilization_buckets,
      req.by_start ? "starting" : "overlapping", dropped, req.args ? "true" : "false");
}

}  // namespace

std::vector<std::string> export_member_names(sqlite3* db, const ExportRequest& req) {
  std::vector<std::string> names;
  for (const Member& m : members_to_export(db, req)) names.push_back(m.db);
  return names;
}

ExportResult export_trace(sqlite3* db, const ExportRequest& req) {
  // Progress lines count from here: the members' list and the checks below are the statement's time too.
  const auto began = std::chrono::steady_clock::now();
  OutFile::Compression compression = OutFile::Compression::none;
  const bool pftrace = ends_with(req.path, ".pftrace");
  if (ends_with(req.path, ".json") || pftrace) {
  } else if (ends_with(req.path, ".json.gz")) {
    compression = OutFile::Compression::gzip;
  } else {
    const auto slash = req.path.rfind('/');
    const std::string_view base = std::string_view(req.path).substr(slash == std::string::npos ? 0 : slash + 1);
    const auto dot = base.find('.');
    throw Error(fmt::format("{}: unknown file extension '{}' of '{}' (use .json, .json.gz or .pftrace)", kFn,
                            dot == std::string_view::npos ? std::string_view() : base.substr(dot), req.path));
  }
  if (req.lo && req.hi && *req.hi <= *req.lo) {
    throw Error(fmt::format("{}: end_ns ({}) must be greater than start_ns ({})", kFn, *req.hi, *req.lo));
  }
  const std::vector<Member> members = members_to_export(db, req);
  // An export holding nothing is an error, never an empty file over a previous one.
  if (members.empty())
    throw Error(fmt::format("{}: no member to export (rocpd_open a job or ATTACH a trace first); '{}' was not written",
                            kFn, req.path));
  refuse_reading_destination(db, req.path);
  InterruptWatch watch(db);
  OutFile out(req.path, compression, kFn);
  JsonWriter json(out);
  PftraceWriter proto(out);
  TraceWriter& w = pftrace ? static_cast<TraceWriter&>(proto) : json;
  Exporter e(db, req, w, watch);
  size_t done = 0;
  if (e.progress_wanted()) watch.report_progress([&] { return e.progress_line(done, members.size()); }, began);
  w.begin();
  try {
    for (const Member& m : members) {
      e.member(m);
      ++done;
    }
    e.finish();
  } catch (const Error&) {
    // A member statement stopped by the user's interrupt reports it in the member's words; the
    // export ends with SQLite's plain "interrupted", as every other statement does.
    if (watch.host_interrupted_now()) InterruptWatch::raise();
    throw;
  }
  e.result.members = members.size();
  if (e.result.ops == 0 && e.result.apis == 0) {
    if (req.allow_empty) return ExportResult{};  // `out` removes its partial file
    if (req.lo || req.hi) empty_window(db, req, members);
    throw Error(fmt::format("{}: the {} exported hold no op or API call; '{}' was not written", kFn,
                            members.size() == 1 ? fmt::format("member {}", members[0].db)
                                                : fmt::format("{} members", members.size()),
                            req.path));
  }
  w.end(other_data(req, e.result));
  e.result.events = w.events();
  e.result.bytes = out.bytes();
  // The last moment an interrupt still leaves nothing behind (one after this finds the file whole).
  if (watch.host_interrupted_now()) InterruptWatch::raise();
  out.commit();
  return e.result;
}

}  // namespace rocpd::exporter
