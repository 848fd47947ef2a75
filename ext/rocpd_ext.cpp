// Entry point of librocpd_ext. SQLite derives the name sqlite3_rocpdext_init from the file
// name, so `.load ./build/librocpd_ext` needs no entry-point argument. Each capability (a folder
// of ext/) exposes one rocpd_register_<folder>() that registers its SQL names.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <mutex>

#include "common/load_guard.h"
#include "common/sqlite_util.h"
#include "members/registry.h"

#define ROCPD_CAPABILITY(name) int rocpd_register_##name(sqlite3* db, char** err);
#include "capabilities.inc"
#undef ROCPD_CAPABILITY

extern "C" __attribute__((visibility("default"))) int sqlite3_rocpdext_init(
    sqlite3* db, char** err, const sqlite3_api_routines* api) {
  // Written once: connections loading the library on several threads at once would otherwise
  // write the (same) pointer while other threads' SQL functions read it, a data race.
  static std::once_flag api_set;
  std::call_once(api_set, [api] { SQLITE_EXTENSION_INIT2(api); });
  // Loading again into the same connection changes nothing: one member registry per connection,
  // so members opened before stay visible and closable (docs/guarantees.md).
  if (rocpd::members::Registry::loaded_on(db)) return SQLITE_OK;
  // Another copy of the library (another file) on this connection: refused before anything is
  // registered, since SQLite unloads a copy whose load failed.
  if (const std::string other = rocpd::other_copy_loaded(db, rocpd::members::Registry::of(db) != nullptr);
      !other.empty()) {
    if (err) *err = rocpd::sqlite_strdup(other);
    return SQLITE_ERROR;
  }
  int rc = SQLITE_OK;
#define ROCPD_CAPABILITY(name) \
  if (rc == SQLITE_OK) rc = rocpd_register_##name(db, err);
#include "capabilities.inc"
#undef ROCPD_CAPABILITY
  if (rc == SQLITE_OK) {
    if (auto registry = rocpd::members::Registry::of(db)) registry->mark_loaded();
  } else {
    // What the capabilities before the failing one registered stays on the connection: the
    // library must stay mapped for it.
    rocpd::pin_library();
  }
  return rc;
}
