// The members of one host connection: its schemas that hold traces (found anew on every query,
// so ATTACH/DETACH just work) and the files opened by rocpd_open() on private read-only
// connections, kept in a bounded pool so that 1000 members never need 1000 descriptors.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "federation/member.h"

namespace rocpd::federation {

class Registry {
 public:
  explicit Registry(sqlite3* host) : host_(host) {}

  // Every member: attached schemas in PRAGMA database_list order, then opened files in open order.
  std::vector<MemberPtr> members();

  // Keeps a member's connection usable while a statement runs on it. Member connections are
  // opened without SQLite's per-call mutex (it cost a third of a scan's time), so a connection
  // serves one lease at a time: a second concurrent lease of the same member gets a connection
  // of its own, closed with the lease.
  class Lease {
   public:
    Lease() = default;
    Lease(Registry* r, MemberPtr m, sqlite3* db) : registry_(r), member_(std::move(m)), db_(db) {}
    Lease(Registry* r, MemberPtr m, Db own) : registry_(r), member_(std::move(m)), own_(std::move(own)) {
      db_ = own_.get();
    }
    Lease(Lease&& o) noexcept { *this = std::move(o); }
    Lease& operator=(Lease&& o) noexcept;
    ~Lease() { release(); }
    sqlite3* db() const { return db_; }
    const MemberPtr& member() const { return member_; }

   private:
    void release();
    Registry* registry_ = nullptr;
    MemberPtr member_;
    Db own_;  // set for an extra connection, not the member's pooled one
    sqlite3* db_ = nullptr;
  };
  Lease acquire(const MemberPtr& m);

  // The member's profile, computed on first use and again when its file changed.
  std::shared_ptr<const Profile> profile(const MemberPtr& m);

  // rocpd_open(pattern): returns how many files were added; all-or-nothing on error.
  int open(const std::string& pattern);
  // rocpd_close(db): 1 if closed; throws when no opened member has that name.
  int close(const std::string& alias);
  int close_all();

  size_t max_open_connections = 64;

  // What the last rocpd_ops/rocpd_apis scan read, for rocpd_last_scan() (EXPLAIN ANALYZE-like).
  struct ScanStats {
    std::string table;
    int64_t members = 0;  // members of the connection when the scan was planned
    int64_t skipped = 0;  // members ruled out by db, gpu or time constraints without being read
    int64_t ranges = 0;   // queries run (one per member source, or per rowid range)
    int64_t rows = 0;     // rows returned by members
    bool parallel = false;  // opened members were read by a prefetch thread
  };
  ScanStats last_scan;

 private:
  struct Attached {
    std::string file;
    int64_t cookie = -1;
    MemberPtr member;  // null: the schema holds no trace
  };
  MemberPtr open_file(const std::string& path, const std::string& alias);
  Db open_connection(const Member& m) const;
  std::string unique_alias(const std::string& stem, std::set<std::string>& taken) const;
  void trim_pool();

  // Prefetch threads acquire and release member connections while the host connection's
  // thread plans other scans: every member and pool operation holds this lock.
  mutable std::recursive_mutex mutex_;
  sqlite3* host_;
  std::vector<MemberPtr> opened_;
  std::map<std::string, Attached> attached_;
  size_t open_connections_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace rocpd::federation
