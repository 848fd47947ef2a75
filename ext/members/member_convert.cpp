#include "members/member_convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/temp_file.h"
#include "formats/kineto/kineto_import.h"
#include "members/conversion_cache.h"
#include "members/member_files.h"
#include "members/progress.h"

namespace rocpd::members {

// What processes that died left in `dir` is removed once per process, directory and group: a
// sweep lists the directory, and a job converts thousands of members.
std::shared_ptr<const ConversionLock> process_lock(const std::string& dir, std::string_view prefix,
                                                   std::string_view lock_suffix, std::string_view suffix) {
  static std::mutex mutex;
  // Never destroyed: conversions may run at exit.
  static auto* swept = new std::set<std::string>();
  static auto* locks = new std::map<std::string, std::weak_ptr<const ConversionLock>>();
  std::lock_guard lock(mutex);
  const std::string key = dir + '\n' + std::string(prefix);
  if (swept->insert(key).second) remove_stale_grouped_temps(dir, prefix, lock_suffix, suffix);
  if (auto held = (*locks)[key].lock()) return held;
  auto made = std::make_shared<const ConversionLock>(TempFile::create(dir, prefix, lock_suffix, 0600));
  (*locks)[key] = made;
  return made;
}

namespace {
// Converted members are rocpd-kineto-<token>-XXXXXXXX.db, guarded by rocpd-kineto-<token>.lock.
constexpr std::string_view kConvertedPrefix = "rocpd-kineto-", kLockSuffix = ".lock", kConvertedSuffix = ".db";

// This process's lock file in `dir`, made on its first conversion there (and again after its last
// member there was closed).
std::shared_ptr<const ConversionLock> conversion_lock(const std::string& dir) {
  return process_lock(dir, kConvertedPrefix, kLockSuffix, kConvertedSuffix);
}
}  // namespace

bool is_json_trace_path(const std::string& path) { return formats::kineto::is_json_trace_name(path); }

ConvertedTrace::~ConvertedTrace() {
  if (!path_.empty()) ::unlink(path_.c_str());  // the name first; then lock_ goes
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

namespace {
// Writes the conversion of `json_path` into the new, empty database `name`.
void import_into(const std::string& name, const std::string& json_path, const std::string& who,
                 InterruptWatch* watch, bool progress) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("{}: cannot open the database '{}' to convert into: {}", who, name,
                            raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
                rc);
  formats::kineto::ImportProgress counts;
  counts.file_size = file_size_or_missing(json_path);  // the total of every line, the first included
  // The line reads `counts` on this thread, from the watch's poll inside the import; it goes with it.
  struct LineGuard {
    InterruptWatch* watch;
    ~LineGuard() {
      if (watch) watch->report_progress({});
    }
  } line_guard{progress ? watch : nullptr};
  if (line_guard.watch)
    watch->report_progress([&counts, &json_path] {
      ProgressCounts c;
      c.what = "rocpd_open";
      c.members_total = 1;
      c.now = json_path;
      c.rows = counts.rows;
      const std::string detail =
          fmt::format("converting: {:.1f}/{:.1f} MB read{}", static_cast<double>(counts.file_bytes) / 1e6,
                      static_cast<double>(std::max<int64_t>(counts.file_size, 0)) / 1e6,
                      counts.linking ? ", linking launches and flows" : "");
      c.detail = detail;
      return progress_line(c);
    });
  try {
    formats::kineto::import_trace(json_path, db.get(), who, [watch] { return watch && watch->poll(); }, {}, &counts);
  } catch (const Error& e) {
    if (e.code() == SQLITE_INTERRUPT) InterruptWatch::raise();  // as every interrupted query ends
    throw;
  }
}

// The conversion into a private temporary database (conversion_directory()).
std::shared_ptr<ConvertedTrace> convert_to_temporary(const std::string& json_path, const std::string& who,
                                                     InterruptWatch* watch, bool progress) {
  const std::string dir = conversion_directory();
  std::shared_ptr<ConvertedTrace> converted;
  try {
    auto lock = conversion_lock(dir);
    // O_CREAT | O_EXCL, mode 0600: a name nobody else had, readable by us alone, guarded by our lock.
    std::string prefix(kConvertedPrefix);
    prefix += temp_token(lock->path(), kConvertedPrefix, kLockSuffix) + "-";
    converted = std::make_shared<ConvertedTrace>(create_unlocked_file(dir, prefix, kConvertedSuffix, 0600),
                                                 std::move(lock));  // removes the file on every error below
  } catch (const std::system_error& e) {
    throw Error(fmt::format("{}: cannot create a temporary database in '{}': {}", who, dir,
                            std::strerror(e.code().value())),
                SQLITE_CANTOPEN);
  }
  import_into(converted->path(), json_path, who, watch, progress);
  return converted;
}
}  // namespace

ConvertedMember convert_json_trace(const std::string& json_path, const std::string& who, InterruptWatch* watch,
                                   bool progress) {
  ConvertedMember out;
  CacheOutcome cached = cached_conversion(json_path, {"kineto", formats::kineto::kImportVersion}, [&](const std::string& db) {
    import_into(db, json_path, who, watch, progress);
  });
  out.conversion = conversion_label(cached);
  out.trace = cached.trace ? std::move(cached.trace) : convert_to_temporary(json_path, who, watch, progress);
  return out;
}

}  // namespace rocpd::members
