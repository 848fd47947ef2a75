// The members of one host connection: its schemas that hold traces (found anew on every query,
// so ATTACH/DETACH just work) and the files opened by rocpd_open() on private read-only
// connections, kept in a bounded pool so that 1000 members never need 1000 descriptors.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "members/interrupt.h"
#include "members/member_files.h"
#include "canonical/member.h"

namespace rocpd::members {

// How many member connections a registry keeps open by default: a quarter of the descriptor limit
// (RLIMIT_NOFILE's soft value when the registry is made), at least 16 and at most 1024.
size_t default_pool_bound();

// Members are numbered below this (the ordinal is packed into rowids).
inline constexpr uint32_t kMaxMembers = 1u << 14;  // row_ids.h packs the ordinal in 14 bits

class Registry {
 public:
  explicit Registry(sqlite3* host) : host_(host) {}
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The registry of connection `host` (made when the extension was loaded on it), for the
  // capabilities that reach members through SQL but want the member threads (rocpd_utilization);
  // null when none is alive.
  static std::shared_ptr<Registry> of(sqlite3* host);
  static void remember(const std::shared_ptr<Registry>& registry);
  // Whether the whole extension loaded on `host` (set by the entry point once every capability
  // registered): a second load then changes nothing, so members opened before stay visible.
  static bool loaded_on(sqlite3* host);
  void mark_loaded() { loaded_ = true; }

  sqlite3* host() const { return host_; }

  // Every member (attached schemas and opened files) in natural order of their names
  // (common/natural_order.h: rank2 before rank10), with each name's index: one immutable list that
  // statements share, made again only when a member comes, goes or is re-probed (sorting and
  // indexing 10,000 names, or copying 10,000 pointers, on every query cost more than reading the
  // few members a query picks).
  struct MemberList {
    std::vector<canonical::MemberPtr> members;
    std::unordered_map<std::string, size_t> index;  // alias -> index in members
    std::vector<std::string_view> names;            // members[i]->alias
  };
  // A schema that looks like a trace but cannot be read raises its error on every call.
  // `check_files`: opened files changed on disk since their probe are probed again (one stat per
  // opened member); without it, the caller checks those it reads with fresh() and the call costs
  // what the attached schemas cost, however many files are opened.
  std::shared_ptr<const MemberList> member_list(bool check_files = true);
  // member_list()'s members, copied.
  std::vector<canonical::MemberPtr> members(bool check_files = true);
  // Opened member `m` as its file is now: `m`, or its new description when the file changed since
  // it was probed (as members() does for all). Attached members are returned as they are.
  canonical::MemberPtr fresh(const canonical::MemberPtr& m);
  // The members named `aliases`, in that order (one members() call); a name no member has is an
  // error naming `who` and the name.
  std::vector<canonical::MemberPtr> members_named(const std::vector<std::string>& aliases, const char* who);

  // Keeps a member's connection usable while a statement runs on it. Member connections are
  // opened without SQLite's per-call mutex (it cost a third of a scan's time), so a connection
  // serves one lease at a time: a second concurrent lease of the same member gets a connection
  // of its own, closed with the lease. With a watch, the member's statements stop when it says so.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& o) noexcept { *this = std::move(o); }
    Lease& operator=(Lease&& o) noexcept;
    ~Lease() { release(); }
    sqlite3* db() const { return db_; }
    const canonical::MemberPtr& member() const { return member_; }

   private:
    friend class Registry;
    void release();
    Registry* registry_ = nullptr;
    canonical::MemberPtr member_;
    Db own_;  // set for an extra connection, not the member's pooled one
    sqlite3* db_ = nullptr;
    ProgressGuard progress_;
  };
  // `host_thread`: whether the lease is used on the host connection's thread (its progress handler
  // may then poll the host's interrupt flag; other threads only read the watch's stop flag).
  Lease acquire(const canonical::MemberPtr& m, InterruptWatch* watch = nullptr, bool host_thread = true);

  // The member's profile, computed on first use and again when its file changed.
  std::shared_ptr<const canonical::Profile> profile(const canonical::MemberPtr& m, InterruptWatch* watch = nullptr);
  // Computes the missing or stale profiles of `members` on every core (MemberPool).
  // The profile of member `m` computed on the calling thread, which need not be the host's: the
  // registry stays unlocked during the pass, so the host thread may lease and read meanwhile. An
  // opened member leases a connection; an attached one needs `shadow` (see shadow()).
  std::shared_ptr<const canonical::Profile> profile_off_host(const canonical::MemberPtr& m, InterruptWatch& watch, sqlite3* shadow = nullptr);
  // Attached member `m`'s file on a private read-only connection, under the same schema name (its
  // SQL runs there unchanged), for work that would otherwise hold the host connection's mutex on
  // every call and could not leave the host thread. Null when that would not read exactly what
  // the host reads: no file (an in-memory or temp schema), the host inside a transaction of the
  // user's that read or wrote it, or the file not openable read-only as it is. Host thread only.
  Db shadow(const canonical::Member& m);
  // Whether the host reads attached `m` inside a transaction of the user's (a snapshot of its own,
  // or its own uncommitted changes, which no profile computed from the file knows). Host thread.
  bool in_user_transaction(const canonical::Member& m) const;
  // Whether `m`'s profile must be computed (none yet, or its file changed since).
  bool profile_stale(const canonical::MemberPtr& m);
  // Reads a pass makes in its visit of member `m` for a later pass, so that the later one need not
  // visit `m` again (at job scale every pass reopens most members): stash() keeps `value` under
  // `tag` (replacing what was there), `stamp` being the file before the read (stamp());
  // take_stash() gives it once, and only while the file and the member's clock offset are as they
  // were: else null, and the later pass reads the member itself. Attached members keep nothing
  // (the host's transactions are the user's). Any thread.
  canonical::FileStamp stamp(const canonical::MemberPtr& m) const;
  void stash(const canonical::MemberPtr& m, const std::string& tag, const canonical::FileStamp& stamp,
             int64_t clock_offset, std::shared_ptr<void> value);
  std::shared_ptr<void> take_stash(const canonical::MemberPtr& m, const std::string& tag);
  // take_stash() for each of `members`: `taken(i, value)` gets what members[i] had; the others are
  // returned (in order, with their indices), to be visited.
  struct ToVisit {
    std::vector<canonical::MemberPtr> members;
    std::vector<size_t> index;  // into `members` of the call
  };
  ToVisit take_stashes(const std::vector<canonical::MemberPtr>& members, const std::string& tag,
                       const std::function<void(size_t, std::shared_ptr<void>)>& taken);
  // The profile member `m`'s format needs to read `ops_columns` (a mask of rocpd_ops columns) of
  // its ops, or null when it needs none: computed on `db` (a connection the caller leased for `m`,
  // on any thread) when missing or stale. A pass that needs the profiles computes them in its own
  // visit of each member, not in a pass of their own (at job scale every pass reopens most members).
  std::shared_ptr<const canonical::Profile> profile_on(const canonical::MemberPtr& m, sqlite3* db, InterruptWatch& watch,
                                                       uint64_t ops_columns);
  void profile_all(const std::vector<canonical::MemberPtr>& members, InterruptWatch& watch);

  // rocpd_open(pattern): returns how many files were added; all-or-nothing on error. SQLite
  // files holding no trace found in a directory or glob are skipped (last_skipped).
  int open(const std::string& pattern, InterruptWatch* watch = nullptr);
  // rocpd_close(db): 1 if closed; throws when no opened member has that name.
  int close(const std::string& alias);
  int close_all();

  // Member connections kept open between leases: a quarter of the process's descriptor limit,
  // 16 to 1024 (default_pool_bound); members past it are opened for each lease.
  size_t max_open_connections = default_pool_bound();
  // rocpd_progress(1): long scans and profile passes write a line a second to stderr.
  bool progress = false;

  // The clock offset of member `alias` (ns added to its times); setting one keeps it for the
  // member's life (an attached schema keeps it across re-probes). Throws for an unknown member.
  int64_t clock_offset(const std::string& alias);
  void set_clock_offset(const std::string& alias, int64_t offset);

  // For query planning, without reading anything: how many members the last members() call
  // found, and the mean op / API rows of the members profiled so far (0 when none is).
  size_t known_members() const;
  double mean_rows(bool ops) const;

  // What the last rocpd_ops/rocpd_apis scan read, for rocpd_last_scan() (EXPLAIN ANALYZE-like).
  struct ScanStats {
    std::string table;
    int64_t members = 0;  // members of the connection when the scan was planned
    int64_t skipped = 0;  // members ruled out by db, gpu or time constraints without being read
    int64_t ranges = 0;   // queries run (one per member source, or per rowid range)
    int64_t rows = 0;     // rows returned by members
    bool parallel = false;  // opened members were read by a prefetch thread
    // Over the whole statement, for the cursor that made this scan (a join's inner side is
    // filtered once per outer row): its filters, the member statements it prepared, and the
    // lookups answered from an in-memory index.
    int64_t filters = 0, prepared = 0, indexed_lookups = 0;
    // A grouped scan (a GROUP BY or DISTINCT handed to the scan): its groups (-1: not grouped) and
    // whether its rows went to a temporary database (past the memory budget).
    int64_t groups = -1;
    bool spilled = false;
  };
  ScanStats last_scan;

  // What the last rocpd_open call passed over, for rocpd_skipped.
  struct Skipped {
    std::string pattern;
    std::vector<SkippedFile> files;
  };
  Skipped last_skipped;
  // Attached schemas that are not members because their file is already one (another name of it:
  // a hard link, a bind mount, the same path attached twice), as of the last members() call.
  struct SkippedSchema {
    std::string schema;
    SkippedFile file;
  };
  std::vector<SkippedSchema> skipped_schemas() const;

 private:
  struct Attached {
    std::string file;
    int64_t cookie = -1;  // schema cookie of the last successful probe
    uint32_t ordinal = 0;
    canonical::MemberPtr member;  // null: the schema holds no trace
    std::string duplicate_of;  // not a member: the file is that member's ("" when it is a member)
  };
  // The member of file `path`, probed; null when it is an SQLite database without a trace. Errors
  // start with `who`.
  canonical::MemberPtr open_file(const std::string& path, const std::string& alias, InterruptWatch* watch,
                      const std::string& who, const canonical::FileStamp* stamped = nullptr);  // its stamp, if taken
  // A new description of opened member `old`, whose file changed since it was probed (same name
  // and ordinal); `old` is retired. Throws, naming the member, when the new file cannot be read.
  canonical::MemberPtr reprobe(const canonical::MemberPtr& old);
  // member_list()'s parts (mutex_ held).
  void probe_attached(Attached& entry, const std::string& schema, const std::string& file, int64_t cookie);
  void forget_detached(const std::set<std::string>& seen);
  std::shared_ptr<const MemberList> make_list(std::vector<canonical::MemberPtr> attached);
  // Opens a private connection of `m`; when descriptors run out, closes idle pooled connections
  // and tries once more.
  Db connect(const canonical::Member& m, const std::string& who);
  std::string unique_alias(const std::string& stem, std::set<std::string>& taken) const;
  void trim_pool(size_t limit);
  // Closes up to `count` idle pooled connections, least recently used first; returns how many.
  size_t close_idle(size_t count);
  uint32_t take_ordinal();
  void give_back_ordinal(uint32_t ordinal);

  // Prefetch threads acquire and release member connections while the host connection's
  // thread plans other scans: every member and pool operation holds this lock.
  mutable std::recursive_mutex mutex_;
  sqlite3* host_;
  bool loaded_ = false;
  std::vector<canonical::MemberPtr> opened_;
  std::map<std::string, Attached> attached_;
  size_t open_connections_ = 0;
  uint64_t clock_ = 0;
  size_t known_members_ = 0;
  // The last member_list(); null once opened_ changed. The attached members it holds (in schema
  // order), to tell whether ATTACH or DETACH changed it.
  std::shared_ptr<const MemberList> list_;
  std::vector<canonical::MemberPtr> list_attached_;
  // The opened members' files by (device, inode) as probed, for attached schemas naming one of
  // them; valid while opened_ is unchanged.
  std::map<std::pair<uint64_t, uint64_t>, const canonical::Member*> opened_ids_;
  bool opened_ids_valid_ = false;
  // mean_rows()'s answers, valid until a member or a profile changes.
  mutable bool mean_rows_valid_ = false;
  mutable double mean_ops_ = 0, mean_apis_ = 0;
  // Forgets what was derived from opened_ (called whenever it changes).
  void opened_changed();
  std::map<std::string, int64_t> attached_offsets_;  // by schema name
  std::set<uint32_t> free_ordinals_;
  uint32_t next_ordinal_ = 0;
};

}  // namespace rocpd::members
