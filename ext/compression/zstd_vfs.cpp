// Read-only VFS over compressed images. The .zst file is read with pread(2) on a descriptor of
// our own (PosixFileSource: regular files only, never blocking on a FIFO); reads are served from
// the decompressed image (rocpd::zstd::CompressedImage). Temporary files SQLite opens besides the
// main database (sorting, temp tables) pass through to the default VFS, anonymously; journals,
// WAL and super-journals are refused: nothing is ever created next to a compressed member.
#include "compression/zstd_vfs.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

#include "common/load_guard.h"
#include "common/sqlite_util.h"
#include "compression/compressed_image.h"
#include "compression/frame_cache.h"
#include "compression/plain_zstd.h"

namespace rocpd::compression {
namespace {

sqlite3_vfs g_vfs;
sqlite3_vfs* g_base = nullptr;
std::atomic<std::uint64_t> g_plain_limit{zstd::kDefaultPlainLimit};
thread_local std::string t_last_error;
thread_local int t_last_errno = 0;  // what xGetLastError reports: 0 unless a system call failed

// Errors reach users through sqlite3_log and last_vfs_error(); the VFS API has no message slot.
void record_error(int code, std::string msg, int sys_errno = 0) {
  sqlite3_log(code, "%s", msg.c_str());
  t_last_error = std::move(msg);
  t_last_errno = sys_errno;
}

struct OpenFile {
  std::string path;
  std::unique_ptr<zstd::CompressedImage> image;
};

// SQLite allocates szOsFile bytes per file and hands them to xOpen; the compressed file keeps
// only a pointer to its state there.
struct ZstdFile {
  sqlite3_file base;
  OpenFile* state;
};

OpenFile& state_of(sqlite3_file* f) { return *reinterpret_cast<ZstdFile*>(f)->state; }

int file_close(sqlite3_file* f) {
  delete reinterpret_cast<ZstdFile*>(f)->state;
  reinterpret_cast<ZstdFile*>(f)->state = nullptr;
  return SQLITE_OK;
}

int file_read(sqlite3_file* f, void* buf, int amount, sqlite3_int64 offset) {
  OpenFile& st = state_of(f);
  try {
    const std::size_t want = static_cast<std::size_t>(amount);
    const std::size_t got = st.image->read(static_cast<std::uint64_t>(offset), buf, want);
    // Header bytes 18-19 say 2 for a WAL-mode database; this file is read-only and has no WAL, so
    // present it as a rollback-journal database (the compressed bytes stay as they were).
    auto* bytes = static_cast<unsigned char*>(buf);
    for (sqlite3_int64 pos : {18, 19}) {
      if (pos >= offset && pos < offset + static_cast<sqlite3_int64>(got) && bytes[pos - offset] == 2)
        bytes[pos - offset] = 1;
    }
    if (got < want) {
      std::memset(bytes + got, 0, want - got);  // SQLite requires the unread tail zeroed
      return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
  } catch (const zstd::FormatError& e) {
    record_error(SQLITE_CORRUPT, fmt::format("rocpd_zstd: {}: {}", st.path, e.what()));
    return SQLITE_CORRUPT;
  } catch (const zstd::IoError& e) {
    record_error(SQLITE_IOERR_READ, fmt::format("rocpd_zstd: {}: {}", st.path, e.what()), e.sys_errno());
    return SQLITE_IOERR_READ;
  } catch (const std::bad_alloc&) {
    record_error(SQLITE_IOERR_NOMEM, fmt::format("rocpd_zstd: {}: out of memory while decompressing", st.path));
    return SQLITE_IOERR_NOMEM;
  } catch (const std::exception& e) {
    record_error(SQLITE_IOERR_READ, fmt::format("rocpd_zstd: {}: {}", st.path, e.what()));
    return SQLITE_IOERR_READ;
  } catch (...) {
    record_error(SQLITE_IOERR_READ, fmt::format("rocpd_zstd: {}: read failed (unknown error)", st.path));
    return SQLITE_IOERR_READ;
  }
}

// SQLite refuses writes to a read-only file before it gets here; should one arrive, say why.
int refuse_write(sqlite3_file* f) {
  record_error(SQLITE_READONLY,
               fmt::format("rocpd_zstd: {}: read-only (a compressed database cannot be written)", state_of(f).path));
  return SQLITE_READONLY;
}
int file_write(sqlite3_file* f, const void*, int, sqlite3_int64) { return refuse_write(f); }
int file_truncate(sqlite3_file* f, sqlite3_int64) { return refuse_write(f); }
int file_sync(sqlite3_file*, int) { return SQLITE_OK; }  // nothing is ever written
int file_size(sqlite3_file* f, sqlite3_int64* size) {
  *size = static_cast<sqlite3_int64>(state_of(f).image->size());
  return SQLITE_OK;
}
// Nobody can write through this VFS, so locks have nothing to protect.
int file_lock(sqlite3_file*, int) { return SQLITE_OK; }
int file_unlock(sqlite3_file*, int) { return SQLITE_OK; }
int file_check_reserved(sqlite3_file*, int* out) {
  *out = 0;
  return SQLITE_OK;
}
int file_control(sqlite3_file*, int op, void* arg) {
  if (op == SQLITE_FCNTL_VFSNAME) {
    *static_cast<char**>(arg) = sqlite3_mprintf("%s", kZstdVfsName);
    return SQLITE_OK;
  }
  return SQLITE_NOTFOUND;
}
int file_sector_size(sqlite3_file*) { return 4096; }
// Immutable: SQLite skips hot-journal probes and change detection for the file.
int file_device_characteristics(sqlite3_file*) { return SQLITE_IOCAP_IMMUTABLE; }

// Version 1: no shared memory (so no WAL) and no mmap.
const sqlite3_io_methods kIoMethods = {
    1,                            // iVersion
    file_close,                   // xClose
    file_read,                    // xRead
    file_write,                   // xWrite
    file_truncate,                // xTruncate
    file_sync,                    // xSync
    file_size,                    // xFileSize
    file_lock,                    // xLock
    file_unlock,                  // xUnlock
    file_check_reserved,          // xCheckReservedLock
    file_control,                 // xFileControl
    file_sector_size,             // xSectorSize
    file_device_characteristics,  // xDeviceCharacteristics
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

bool is_side_file(std::string_view name) {
  for (std::string_view suffix : {"-journal", "-wal", "-shm"}) {
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return true;
  }
  return false;
}

// ROCPD_ZSTD_READ_AHEAD=0 turns read-ahead off (for machines where no core is spare).
bool read_ahead_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ROCPD_ZSTD_READ_AHEAD");
    return !(v && std::string_view(v) == "0");
  }();
  return enabled;
}

// What kind of side file an open of a file other than the main database is, for the error.
const char* side_kind(int flags) {
  if (flags & SQLITE_OPEN_WAL) return "WAL file";
  if (flags & SQLITE_OPEN_SUPER_JOURNAL) return "super-journal";
  return "journal";
}

int vfs_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  if (!(flags & SQLITE_OPEN_MAIN_DB)) {
    if (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL)) {
      // These live next to the database and outlive the connection: never created here (the
      // member's directory may be read-only, and nothing may appear beside an archive).
      record_error(SQLITE_CANTOPEN, fmt::format("rocpd_zstd: {}: not created: the rocpd_zstd VFS is read-only and "
                                                "never creates a {} beside a compressed database",
                                                name ? name : "", side_kind(flags)));
      return SQLITE_CANTOPEN;
    }
    // Temporary files (sorting, temp tables, statement journals): the default VFS, in its
    // temporary directory. A name SQLite derived from the member's path is dropped, so that even
    // a delete-on-close file never appears beside it.
    if (flags & SQLITE_OPEN_DELETEONCLOSE) name = nullptr;
    const int rc = g_base->xOpen(g_base, name, file, flags, out_flags);
    if (rc != SQLITE_OK) t_last_errno = g_base->xGetLastError(g_base, 0, nullptr);
    return rc;
  }
  auto* zf = reinterpret_cast<ZstdFile*>(file);
  zf->base.pMethods = nullptr;  // SQLite does not call xClose on a failed open
  zf->state = nullptr;
  const std::string path = name ? name : "";
  t_last_error.clear();
  t_last_errno = 0;
  int rc = SQLITE_CANTOPEN;
  try {
    // A write request is served read-only (as for a read-only file on disk), so writes fail with
    // "attempt to write a readonly database"; CREATE is never honoured.
    auto image = std::make_unique<zstd::CompressedImage>(std::make_unique<zstd::PosixFileSource>(path),
                                                         g_plain_limit.load(), read_ahead_enabled());
    zf->state = new OpenFile{path, std::move(image)};
    zf->base.pMethods = &kIoMethods;
    if (out_flags)
      *out_flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
    return SQLITE_OK;
  } catch (const zstd::FormatError& e) {
    record_error(rc, fmt::format("rocpd_zstd: {}: {}", path, e.what()));
  } catch (const zstd::IoError& e) {
    record_error(rc, fmt::format("rocpd_zstd: {}: {}", path, e.what()), e.sys_errno());
  } catch (const std::bad_alloc&) {
    rc = SQLITE_NOMEM;
    record_error(rc, fmt::format("rocpd_zstd: {}: out of memory", path));
  } catch (const std::exception& e) {
    record_error(rc, fmt::format("rocpd_zstd: {}: {}", path, e.what()));
  } catch (...) {
    record_error(rc, fmt::format("rocpd_zstd: {}: cannot open (unknown error)", path));
  }
  return rc;
}

// Nothing this VFS knows of exists under a name: journals and WAL files are never created, and
// temporary files delete themselves. So nothing is ever deleted, whatever lies beside a member.
int vfs_delete(sqlite3_vfs*, const char*, int) { return SQLITE_IOERR_DELETE_NOENT; }

int vfs_access(sqlite3_vfs*, const char* name, int flags, int* out) {
  // No journal or WAL ever belongs to a compressed image, whatever lies next to it on disk.
  if (is_side_file(name)) {
    *out = 0;
    return SQLITE_OK;
  }
  return g_base->xAccess(g_base, name, flags, out);
}

int vfs_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_base->xFullPathname(g_base, name, n, out);
}
void* vfs_dlopen(sqlite3_vfs*, const char* name) { return g_base->xDlOpen(g_base, name); }
void vfs_dlerror(sqlite3_vfs*, int n, char* msg) { g_base->xDlError(g_base, n, msg); }
void (*vfs_dlsym(sqlite3_vfs*, void* handle, const char* sym))(void) { return g_base->xDlSym(g_base, handle, sym); }
void vfs_dlclose(sqlite3_vfs*, void* handle) { g_base->xDlClose(g_base, handle); }
int vfs_randomness(sqlite3_vfs*, int n, char* out) { return g_base->xRandomness(g_base, n, out); }
int vfs_sleep(sqlite3_vfs*, int us) { return g_base->xSleep(g_base, us); }
int vfs_current_time(sqlite3_vfs*, double* t) { return g_base->xCurrentTime(g_base, t); }
// The errno behind this thread's last failure (SQLite records it for sqlite3_system_errno(); the
// default VFS would report whatever errno holds by then).
int vfs_get_last_error(sqlite3_vfs*, int n, char* msg) {
  if (msg && n > 0) msg[0] = '\0';
  return t_last_errno;
}
int vfs_current_time64(sqlite3_vfs*, sqlite3_int64* t) {
  if (g_base->iVersion >= 2 && g_base->xCurrentTimeInt64) return g_base->xCurrentTimeInt64(g_base, t);
  double d = 0;
  int rc = g_base->xCurrentTime(g_base, &d);
  *t = static_cast<sqlite3_int64>(d * 86400000.0);
  return rc;
}

}  // namespace

int register_zstd_vfs() {
  static std::mutex m;
  std::lock_guard lock(m);
  if (sqlite3_vfs_find(kZstdVfsName)) return SQLITE_OK;
  g_base = sqlite3_vfs_find(nullptr);
  if (!g_base) return SQLITE_ERROR;
  // SQLite unloads an extension when the connection that loaded it closes, but a VFS outlives any
  // one connection: this library stays mapped for the life of the process.
  pin_library();
  g_vfs = sqlite3_vfs{};
  g_vfs.iVersion = 2;
  g_vfs.szOsFile = std::max<int>(static_cast<int>(sizeof(ZstdFile)), g_base->szOsFile);
  g_vfs.mxPathname = g_base->mxPathname;
  g_vfs.zName = kZstdVfsName;
  g_vfs.xOpen = vfs_open;
  g_vfs.xDelete = vfs_delete;
  g_vfs.xAccess = vfs_access;
  g_vfs.xFullPathname = vfs_full_pathname;
  g_vfs.xDlOpen = vfs_dlopen;
  g_vfs.xDlError = vfs_dlerror;
  g_vfs.xDlSym = vfs_dlsym;
  g_vfs.xDlClose = vfs_dlclose;
  g_vfs.xRandomness = vfs_randomness;
  g_vfs.xSleep = vfs_sleep;
  g_vfs.xCurrentTime = vfs_current_time;
  g_vfs.xGetLastError = vfs_get_last_error;
  g_vfs.xCurrentTimeInt64 = vfs_current_time64;
  return sqlite3_vfs_register(&g_vfs, 0);
}

std::string last_vfs_error() { return t_last_error; }
std::uint64_t plain_limit() { return g_plain_limit.load(); }
void set_plain_limit(std::uint64_t bytes) { g_plain_limit.store(bytes); }
std::uint64_t cache_limit() { return zstd::FrameCache::global()->limit(); }
void set_cache_limit(std::uint64_t bytes) { zstd::FrameCache::global()->set_limit(bytes); }

}  // namespace rocpd::compression
