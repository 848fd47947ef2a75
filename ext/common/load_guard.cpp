#include "common/load_guard.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace rocpd {

std::string library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_path), &info) && info.dli_fname) return info.dli_fname;
  return {};
}

void pin_library() {
  const std::string path = library_path();
  if (!path.empty()) dlopen(path.c_str(), RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
}

std::string other_copy_loaded(sqlite3* db, bool same_copy_started) {
  if (same_copy_started) return {};
  // rocpd_version() has been registered by every version of the extension; preparing a call to it
  // runs nothing of the other copy's, stepping it asks that copy's version.
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT rocpd_version()", -1, &raw, nullptr) != SQLITE_OK) {
    sqlite3_finalize(raw);
    return {};
  }
  Stmt stmt(raw);
  std::string version = "unknown version";
  if (sqlite3_step(stmt.get()) == SQLITE_ROW && sqlite3_column_type(stmt.get(), 0) == SQLITE_TEXT)
    version = fmt::format("version {}", column_text(stmt.get(), 0));
  const std::string path = library_path();
  return fmt::format(
      "rocpd_ext: cannot load {}: another copy of rocpd_ext ({}) is already loaded on this connection; "
      "this copy registered nothing and the loaded one keeps working. Load one copy per connection "
      "(open a new connection for the other)",
      path.empty() ? "this copy" : path, version);
}

}  // namespace rocpd
