// Registers the SQL names of the compression capability: the rocpd_zstd VFS (process-wide),
// rocpd_compress, rocpd_zstd_verify, rocpd_zstd_last_error, rocpd_zstd_plain_limit and the
// cache budget functions.
#include "common/sqlite_util.h"
#include "compression/zstd_vfs.h"

namespace rocpd::compression {
int register_rocpd_compress(sqlite3* db);
int register_rocpd_zstd_functions(sqlite3* db);
int register_rocpd_zstd_cache(sqlite3* db);
}  // namespace rocpd::compression

int rocpd_register_compression(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    int rc = rocpd::compression::register_zstd_vfs();
    if (rc != SQLITE_OK) throw rocpd::Error("rocpd_ext: cannot register the rocpd_zstd VFS", rc);
    rc = rocpd::compression::register_rocpd_compress(db);
    if (rc == SQLITE_OK) rc = rocpd::compression::register_rocpd_zstd_functions(db);
    if (rc == SQLITE_OK) rc = rocpd::compression::register_rocpd_zstd_cache(db);
    if (rc != SQLITE_OK) throw rocpd::Error("rocpd_ext: cannot register the compression functions", rc);
    return SQLITE_OK;
  });
}
