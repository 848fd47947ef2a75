// A larger page cache on a member's private connection while one computation reads it. The launch
// stacks (diagnosis/launch_stacks.h) read a member's ops, links and API table, the API table twice
// (launch calls, then markers), and look names up at random: with the 512 KiB cache member
// connections keep (members/registry.cpp: scans stream a member once) every page came from the
// file again (measured: 8-13 % of rocpd_kernel_sequences' CPU time on 16 members of 100k ops).
// Undone when the computation ends, so that memory holds the pages of the members being computed
// only, and later statements cache exactly as before. A single pass over a table gains nothing from
// it (it only allocates more pages): use it where pages are read again. Attached members are left
// alone: their cache is the user's connection's.
#pragma once
#include <cstdint>
#include <optional>

#include "canonical/member.h"
#include "common/sqlite_util.h"

namespace rocpd::members {

class PageCacheBoost {
 public:
  // The cache may grow to `kib` KiB (SQLite allocates pages only as they are read).
  static constexpr int64_t kDefaultKib = 128 * 1024;
  PageCacheBoost(const canonical::Member& m, sqlite3* db, int64_t kib = kDefaultKib);
  ~PageCacheBoost();
  PageCacheBoost(const PageCacheBoost&) = delete;
  PageCacheBoost& operator=(const PageCacheBoost&) = delete;

 private:
  sqlite3* db_ = nullptr;
  std::optional<int64_t> previous_;  // the cache_size to restore; none: nothing was changed
};

}  // namespace rocpd::members
