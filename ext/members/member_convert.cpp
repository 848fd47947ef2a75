#include "members/member_convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/temp_file.h"
#include "formats/kineto_import.h"

namespace rocpd::federation {

namespace {
// Converted members are rocpd-kineto-XXXXXXXX.db (common/temp_file.h).
constexpr std::string_view kConvertedPrefix = "rocpd-kineto-", kConvertedSuffix = ".db";

// What processes that died converting left in `dir` is removed once per process and directory:
// a sweep lists the directory, and a job converts thousands of members into the same one.
void remove_stale_conversions_once(const std::string& dir) {
  static std::mutex mutex;
  static auto* swept = new std::set<std::string>();  // never destroyed: conversions may run at exit
  std::lock_guard lock(mutex);
  if (swept->insert(dir).second) remove_stale_temps(dir, kConvertedPrefix, kConvertedSuffix);
}
}  // namespace

bool is_json_trace_path(const std::string& path) { return kineto::is_json_trace_name(path); }

ConvertedTrace::~ConvertedTrace() {
  if (!file_.path().empty()) file_.remove();  // the name first, then the lock
  else if (!path_.empty()) ::unlink(path_.c_str());
}

std::string conversion_directory() {
  std::vector<std::string> candidates;
  for (const char* var : {"SQLITE_TMPDIR", "TMPDIR"})
    if (const char* v = std::getenv(var); v && *v) candidates.emplace_back(v);
  for (const char* d : {"/var/tmp", "/usr/tmp", "/tmp"}) candidates.emplace_back(d);
  for (const auto& dir : candidates) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(dir.c_str(), W_OK | X_OK) == 0) return dir;
  }
  throw Error("rocpd_open: no writable temporary directory for converting a JSON trace (tried $SQLITE_TMPDIR, "
              "$TMPDIR, /var/tmp, /usr/tmp, /tmp)",
              SQLITE_CANTOPEN);
}

std::shared_ptr<ConvertedTrace> convert_json_trace(const std::string& json_path, const std::string& who,
                                                   InterruptWatch* watch) {
  const std::string dir = conversion_directory();
  TempFile file;
  try {
    remove_stale_conversions_once(dir);  // nobody holds the locks of those files
    // O_CREAT | O_EXCL, mode 0600: a name nobody else had, readable by us alone, locked while ours.
    file = TempFile::create(dir, kConvertedPrefix, kConvertedSuffix, 0600);
  } catch (const std::system_error& e) {
    throw Error(fmt::format("{}: cannot create a temporary database in '{}': {}", who, dir,
                            std::strerror(e.code().value())),
                SQLITE_CANTOPEN);
  }
  const std::string name = file.path();
  auto converted = std::make_shared<ConvertedTrace>(std::move(file));  // removes the file on every error below
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("{}: cannot open the temporary database '{}': {}", who, name,
                            raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
                rc);
  try {
    kineto::import_trace(json_path, db.get(), who, [watch] { return watch && watch->poll(); });
  } catch (const Error& e) {
    if (e.code() == SQLITE_INTERRUPT) InterruptWatch::raise();  // as every interrupted query ends
    throw;
  }
  db.reset();  // closed before the member opens it read-only
  return converted;
}

}  // namespace rocpd::federation
