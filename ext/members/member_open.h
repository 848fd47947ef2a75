// Opening a member file on a private read-only connection without creating anything beside it.
//
// A plain read-only open of a WAL-mode database creates `-wal` and `-shm` files next to it (or
// fails in a read-only directory). So: a WAL-mode file whose `-wal` is missing or empty holds all
// its content in the main file and is opened `immutable` (no locks, no side files); one with
// committed content still in its `-wal` is read through the existing `-shm`; with a non-empty `-wal`
// and no `-shm`, reading would create the `-shm`, so the member is refused with the remedy.
#pragma once
#include <string>

#include "common/sqlite_util.h"
#include "members/member_files.h"

namespace rocpd::members {

// Opens `path` read-only (through `vfs` when not empty) with the options above. `who` prefixes
// errors ("rocpd_open: 'x.rpd'", "member r0 (x.rpd)"); errors carry the system's reason.
// `source`: the file `path` was converted from (a report, a JSON trace), given to the format
// probes as the URI parameter kSourceParameter of the connection's file name, so that what the
// user's file name says (nsys: a rank, report_%q{RANK}) is read from it, not from the name of a
// cache entry or a temporary database.
Db open_member_db(const std::string& path, const std::string& vfs, const std::string& who,
                  const std::string& source = {});
// The same file under schema name `schema` of a private connection (whose main database is an
// empty in-memory one unless `schema` is "main"), so that SQL written for a schema of the host
// connection runs there unchanged.
Db open_member_db_as(const std::string& path, const std::string& vfs, const std::string& schema,
                     const std::string& who);

}  // namespace rocpd::members
