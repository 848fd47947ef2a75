#include "members/member_convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
#include "formats/kineto_import.h"

namespace rocpd::federation {

// The lock file a process holds in a temporary directory while it has converted members there.
class ConversionLock {
 public:
  explicit ConversionLock(TempFile file) : file_(std::move(file)) {}
  const std::string& path() const { return file_.path(); }

 private:
  TempFile file_;  // removed (name, then lock) when the process's last member there goes
};

namespace {
// Converted members are rocpd-kineto-<token>-XXXXXXXX.db, guarded by rocpd-kineto-<token>.lock.
constexpr std::string_view kConvertedPrefix = "rocpd-kineto-", kLockSuffix = ".lock", kConvertedSuffix = ".db";

// This process's lock file in `dir`, made on its first conversion there (and again after its last
// member there was closed). What processes that died converting left in `dir` is removed once per
// process and directory: a sweep lists the directory, and a job converts thousands of members.
std::shared_ptr<const ConversionLock> conversion_lock(const std::string& dir) {
  static std::mutex mutex;
  // Never destroyed: conversions may run at exit.
  static auto* swept = new std::set<std::string>();
  static auto* locks = new std::map<std::string, std::weak_ptr<const ConversionLock>>();
  std::lock_guard lock(mutex);
  if (swept->insert(dir).second) remove_stale_grouped_temps(dir, kConvertedPrefix, kLockSuffix, kConvertedSuffix);
  if (auto held = (*locks)[dir].lock()) return held;
  auto made = std::make_shared<const ConversionLock>(TempFile::create(dir, kConvertedPrefix, kLockSuffix, 0600));
  (*locks)[dir] = made;
  return made;
}
}  // namespace

bool is_json_trace_path(const std::string& path) { return kineto::is_json_trace_name(path); }

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

std::shared_ptr<ConvertedTrace> convert_json_trace(const std::string& json_path, const std::string& who,
                                                   InterruptWatch* watch) {
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
  const std::string& name = converted->path();
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
