// The per-file part of rocpd_open: a member of one file, its connection and its format probe.
// It touches no registry state, so the probing threads (parallel_probe.h) run it as the host
// thread does; what depends on the order of the files (names, ordinals, duplicates, the pool's
// count) stays with Registry::open.
#pragma once
#include <string>

#include "canonical/member.h"
#include "members/interrupt.h"

namespace rocpd::members {

// Files converted before they are read: an nsys report (when ROCPD_NSYS_EXPORT allows) and a
// Kineto JSON trace. Those are opened on the host thread only (their conversions write progress
// lines and use the conversion cache).
bool exported_nsys_report(const std::string& path);
bool converted_json_trace(const std::string& path);
inline bool converted_first(const std::string& path) {
  return exported_nsys_report(path) || converted_json_trace(path);
}

// A new opened member of file `path`, without name or ordinal.
canonical::MemberPtr new_opened_member(const std::string& path);
// `m`'s file is read in place: a .zst member reads through the compression VFS (checked here).
void read_in_place(canonical::Member& m, const std::string& who);
// Scans stream each member once: a small page cache per member connection keeps 64 pooled
// connections far below SQLite's default 2 MB each.
void limit_page_cache(sqlite3* db);

// `m` probed on its new connection `db` (its format and sources), which it keeps; `stamp` is its
// file as seen before the probe read it. Null when the file is an SQLite database without a
// trace. Errors name `who`; once `watch` stops (on the host thread: the host is interrupted) the
// probe ends with the "interrupted" error. `host_thread`: as for ProgressGuard.
canonical::MemberPtr probe_member(canonical::MemberPtr m, Db db, const canonical::FileStamp& stamp, InterruptWatch* watch, bool host_thread,
                       const std::string& who);

}  // namespace rocpd::members
