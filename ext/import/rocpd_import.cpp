// rocpd_import(src, dst): converts the JSON trace `src` (PyTorch profiler / Kineto, plain or
// gzip) into the SQLite database `dst` (schema/kineto.sql), which rocpd_open and ATTACH then read
// directly, without parsing the JSON again. dst must not exist; it is written under a temporary
// name beside it (created with O_EXCL, never through a symlink) and appears, complete, only at
// the end: a failed or interrupted import leaves nothing behind. Returns the number of trace
// events read. DIRECTONLY: it writes a file.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "common/temp_file.h"
#include "formats/kineto/kineto_import.h"
#include "members/interrupt.h"

namespace rocpd::importer {

namespace {

[[noreturn]] void fail(const std::string& msg, int code = SQLITE_ERROR) { throw Error("rocpd_import: " + msg, code); }

// The directory a file name lies in ("" for a bare name: the current directory).
std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? "/" : path.substr(0, slash);
}

int64_t import_file(sqlite3* host, const std::string& src, const std::string& dst) {
  struct stat st {};
  // lstat: a dangling symlink is a name that exists too.
  if (::lstat(dst.c_str(), &st) == 0) fail(fmt::format("'{}' already exists (rocpd_import never overwrites)", dst));
  if (errno != ENOENT) fail(fmt::format("'{}': {}", dst, std::strerror(errno)), SQLITE_CANTOPEN);
  // A short name of fixed length (any dst name that fits the directory fits it too), created with
  // mode 0666 cut by the umask, as dst would be.
  TempFile partial;
  try {
    // Partial files of processes that died writing here go first (their locks are gone).
    remove_stale_temps(directory_of(dst), kPartialPrefix, kPartialSuffix);
    partial = TempFile::create(directory_of(dst), kPartialPrefix, kPartialSuffix, 0666);
  } catch (const std::system_error& e) {
    fail(fmt::format("cannot create a file beside '{}': {}", dst, std::strerror(e.code().value())), SQLITE_CANTOPEN);
  }
  const std::string& name = partial.path();
  int64_t events = 0;
  {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    Db db(raw);
    if (rc != SQLITE_OK)
      fail(fmt::format("cannot open '{}': {}", name, raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)), rc);
    members::InterruptWatch watch(host);
    try {
      events = formats::kineto::import_trace(src, db.get(), fmt::format("rocpd_import: '{}'", src), [&] { return watch.poll(); })
                   .events;
    } catch (const Error& e) {
      if (e.code() == SQLITE_INTERRUPT) members::InterruptWatch::raise();
      throw;
    }
    if (sqlite3_close(db.release()) != SQLITE_OK) fail(fmt::format("cannot close '{}'", name));
  }
  if (::fsync(partial.fd()) != 0)
    fail(fmt::format("cannot write '{}': {}", name, std::strerror(errno)), SQLITE_IOERR);
  // link() publishes the finished file and, unlike rename(), never replaces a dst created
  // meanwhile; filesystems without hard links use rename without replacing.
  if (::link(name.c_str(), dst.c_str()) == 0) return events;
  if (errno == EEXIST) fail(fmt::format("'{}' already exists (rocpd_import never overwrites)", dst));
  if (::renameat2(AT_FDCWD, name.c_str(), AT_FDCWD, dst.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) fail(fmt::format("'{}' already exists (rocpd_import never overwrites)", dst));
    fail(fmt::format("cannot create '{}': {}", dst, std::strerror(errno)), SQLITE_CANTOPEN);
  }
  partial.release();
  return events;
}

void rocpd_import_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_type(argv[1]) != SQLITE_TEXT)
      fail("src and dst must be file names (text)");
    const std::string src(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])));
    const std::string dst(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])));
    if (src.empty() || dst.empty()) fail("src and dst must be non-empty file names");
    sqlite3_result_int64(ctx, import_file(sqlite3_context_db_handle(ctx), src, dst));
  });
}

}  // namespace

int register_rocpd_import(sqlite3* db) {
  return sqlite3_create_function_v2(db, "rocpd_import", 2, kFileFunction, nullptr, rocpd_import_fn, nullptr, nullptr,
                                    nullptr);
}

}  // namespace rocpd::importer
