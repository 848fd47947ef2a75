#include "members/member_convert.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "formats/kineto_import.h"

namespace rocpd::federation {

bool is_json_trace_path(const std::string& path) { return kineto::is_json_trace_name(path); }

ConvertedTrace::~ConvertedTrace() {
  if (!path_.empty()) ::unlink(path_.c_str());
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
  std::string name = conversion_directory() + "/rocpd-kineto-XXXXXX.db";
  // mkstemps: O_CREAT | O_EXCL, mode 0600: a name nobody else had, readable by us alone.
  const int fd = ::mkstemps(name.data(), 3);
  if (fd < 0)
    throw Error(fmt::format("{}: cannot create a temporary database in '{}': {}", who, conversion_directory(),
                            std::strerror(errno)),
                SQLITE_CANTOPEN);
  ::close(fd);
  auto converted = std::make_shared<ConvertedTrace>(name);  // removes the file on every error below
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
