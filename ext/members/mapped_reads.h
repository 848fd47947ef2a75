// While a computation reads a whole member on a leased connection (the diagnosis tables' member
// batches), SQLite reads the member's pages through a memory map of the file instead of one
// pread() and one 4 KiB copy per page: on 16 x 100k ops, rocpd_kernel_sequences spent a tenth of
// its CPU time in those reads (docs/diagnosis.md). The map lasts as long as this guard, so an idle
// pooled connection holds no mapping and RSS grows by at most the pages of the members being read
// at that moment (one per core).
#pragma once
#include <sqlite3.h>

#include "canonical/member.h"

namespace rocpd::federation {

class MappedReads {
 public:
  // A member read through the host's own connection (attached) keeps the user's settings: no map.
  MappedReads(const Member& m, sqlite3* db);
  ~MappedReads();
  MappedReads(const MappedReads&) = delete;
  MappedReads& operator=(const MappedReads&) = delete;

 private:
  sqlite3* db_ = nullptr;  // the connection whose map this guard set, else null
};

}  // namespace rocpd::federation
