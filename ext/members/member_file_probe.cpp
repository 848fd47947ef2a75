#include "members/member_file_probe.h"

#include <fmt/format.h>

#include <optional>

#include "common/read_transaction.h"
#include "members/member_convert.h"
#include "members/member_files.h"
#include "members/member_probe.h"
#include "members/member_sql.h"
#include "members/nsys_report.h"

namespace rocpd::members {

namespace {
// The VFS of the compression capability; used for *.zst members.
constexpr const char* kZstdVfs = "rocpd_zstd";
}  // namespace

bool exported_nsys_report(const std::string& path) {
  return nsys_export_enabled() && !is_sqlite_file(path) && is_nsys_report_file(path);
}

bool converted_json_trace(const std::string& path) { return is_json_trace_path(path) && !is_sqlite_file(path); }

canonical::MemberPtr new_opened_member(const std::string& path) {
  auto m = std::make_shared<canonical::Member>();
  m->path = path;
  m->attached = false;
  m->schema = "main";
  return m;
}

void read_in_place(canonical::Member& m, const std::string& who) {
  if (!is_zstd_path(m.path)) return;
  if (!sqlite3_vfs_find(kZstdVfs))
    throw Error(fmt::format("{}: compressed members need the {} VFS, which is not registered", who, kZstdVfs));
  check_regular_file(m.path, who);
  m.vfs = kZstdVfs;
}

void limit_page_cache(sqlite3* db) { sqlite3_exec(db, "PRAGMA cache_size = -512", nullptr, nullptr, nullptr); }

canonical::MemberPtr probe_member(canonical::MemberPtr m, Db db, const canonical::FileStamp& stamp, InterruptWatch* watch, bool host_thread,
                       const std::string& who) {
  std::optional<canonical::FormatInfo> info;
  try {
    // A hostile file's metadata may be a view that never ends: probing stops on interrupt.
    ProgressGuard progress(db.get(), watch, host_thread);
    ReadTransaction snapshot(db.get());  // one file lock for the probe's many small queries
    info = probe_format(db.get(), "main", who);
  } catch (const Error& e) {
    if (e.code() == SQLITE_INTERRUPT || (watch && watch->stopped())) InterruptWatch::raise();
    throw Error(e.what() + zstd_reason(m->path) + hot_journal_reason(m->path), e.code());
  }
  if (!info) return nullptr;
  m->info = std::move(*info);
  shape_sources(*m);
  m->conn = std::move(db);
  m->conn_stamp = stamp;
  m->probe_stamp = stamp;
  return m;
}

}  // namespace rocpd::members
