#include "compression/snapshot_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace rocpd::compression {

namespace {

constexpr const char* kVfsName = "rocpd_snapshot";

// Live snapshot files by token: a connection can open nothing else through the VFS (an ATTACH
// naming this VFS finds no file).
std::mutex g_mutex;
std::map<std::string, int>& files() {
  static std::map<std::string, int> m;
  return m;
}
std::atomic<std::uint64_t> g_counter{0};

struct SinkFile {
  sqlite3_file base;
  int fd;
};
int fd_of(sqlite3_file* f) { return reinterpret_cast<SinkFile*>(f)->fd; }

int sink_close(sqlite3_file*) { return SQLITE_OK; }  // the descriptor belongs to SnapshotFile
int sink_read(sqlite3_file* f, void* buf, int amount, sqlite3_int64 offset) {
  auto* p = static_cast<char*>(buf);
  size_t got = 0;
  while (got < static_cast<size_t>(amount)) {
    const ssize_t n = ::pread(fd_of(f), p + got, static_cast<size_t>(amount) - got, offset + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SQLITE_IOERR_READ;
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < static_cast<size_t>(amount)) {
    std::memset(p + got, 0, static_cast<size_t>(amount) - got);  // SQLite requires the tail zeroed
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}
int sink_write(sqlite3_file* f, const void* buf, int amount, sqlite3_int64 offset) {
  const auto* p = static_cast<const char*>(buf);
  size_t put = 0;
  while (put < static_cast<size_t>(amount)) {
    const ssize_t n = ::pwrite(fd_of(f), p + put, static_cast<size_t>(amount) - put, offset + static_cast<off_t>(put));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    put += static_cast<size_t>(n);
  }
  return SQLITE_OK;
}
int sink_truncate(sqlite3_file* f, sqlite3_int64 size) {
  return ::ftruncate(fd_of(f), size) == 0 ? SQLITE_OK : SQLITE_IOERR_TRUNCATE;
}
int sink_sync(sqlite3_file*, int) { return SQLITE_OK; }  // never read after a crash
int sink_size(sqlite3_file* f, sqlite3_int64* size) {
  struct stat st {};
  if (::fstat(fd_of(f), &st) != 0) return SQLITE_IOERR_FSTAT;
  *size = st.st_size;
  return SQLITE_OK;
}
int sink_lock(sqlite3_file*, int) { return SQLITE_OK; }  // one private connection
int sink_check_reserved(sqlite3_file*, int* out) {
  *out = 0;
  return SQLITE_OK;
}
int sink_control(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int sink_sector_size(sqlite3_file*) { return 4096; }
int sink_characteristics(sqlite3_file*) { return 0; }

const sqlite3_io_methods kMethods = {1,         sink_close, sink_read,           sink_write,  sink_truncate,
                                     sink_sync, sink_size,  sink_lock,           sink_lock,   sink_check_reserved,
                                     sink_control, sink_sector_size, sink_characteristics,
                                     nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

sqlite3_vfs g_vfs;
sqlite3_vfs* g_base = nullptr;

int vfs_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  file->pMethods = nullptr;
  if (!name || !(flags & SQLITE_OPEN_MAIN_DB)) return SQLITE_CANTOPEN;  // no journal, no temp file
  std::lock_guard lock(g_mutex);
  const auto it = files().find(name);
  if (it == files().end()) return SQLITE_CANTOPEN;
  reinterpret_cast<SinkFile*>(file)->fd = it->second;
  file->pMethods = &kMethods;
  if (out_flags) *out_flags = flags;
  return SQLITE_OK;
}
int vfs_delete(sqlite3_vfs*, const char*, int) { return SQLITE_IOERR_DELETE_NOENT; }
int vfs_access(sqlite3_vfs*, const char*, int, int* out) {
  *out = 0;  // no journal or WAL beside the snapshot
  return SQLITE_OK;
}
int vfs_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  sqlite3_snprintf(n, out, "%s", name);
  return SQLITE_OK;
}
int vfs_randomness(sqlite3_vfs*, int n, char* out) { return g_base->xRandomness(g_base, n, out); }
int vfs_sleep(sqlite3_vfs*, int us) { return g_base->xSleep(g_base, us); }
int vfs_current_time(sqlite3_vfs*, double* t) { return g_base->xCurrentTime(g_base, t); }
int vfs_last_error(sqlite3_vfs*, int, char*) { return 0; }

void register_vfs() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_base = sqlite3_vfs_find(nullptr);
    g_vfs = sqlite3_vfs{};
    g_vfs.iVersion = 1;
    g_vfs.szOsFile = static_cast<int>(sizeof(SinkFile));
    g_vfs.mxPathname = 512;
    g_vfs.zName = kVfsName;
    g_vfs.xOpen = vfs_open;
    g_vfs.xDelete = vfs_delete;
    g_vfs.xAccess = vfs_access;
    g_vfs.xFullPathname = vfs_full_pathname;
    g_vfs.xRandomness = vfs_randomness;
    g_vfs.xSleep = vfs_sleep;
    g_vfs.xCurrentTime = vfs_current_time;
    g_vfs.xGetLastError = vfs_last_error;
    if (g_base) sqlite3_vfs_register(&g_vfs, 0);
  });
  if (!g_base || !sqlite3_vfs_find(kVfsName)) throw Error("rocpd_compress: cannot register the snapshot VFS");
}

}  // namespace

SnapshotFile::SnapshotFile(const std::string& dir) {
  register_vfs();
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // No O_TMPFILE here: a fresh random name (mkostemp creates it with O_EXCL, so it never follows
    // or replaces anything), unlinked before anything is written to it.
    std::string name = dir + "/.rocpd-snapshot-XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ >= 0) ::unlink(name.c_str());
  }
  if (fd_ < 0)
    throw Error(fmt::format("rocpd_compress: cannot create a temporary file in '{}': {}", dir, std::strerror(errno)));
  // Unguessable, so that no other statement of the process can reach the file through the VFS.
  std::uint64_t nonce = 0;
  sqlite3_randomness(sizeof nonce, &nonce);
  token_ = fmt::format("snapshot-{}-{:016x}", g_counter.fetch_add(1), nonce);
  std::lock_guard lock(g_mutex);
  files()[token_] = fd_;
}

SnapshotFile::~SnapshotFile() {
  {
    std::lock_guard lock(g_mutex);
    files().erase(token_);
  }
  ::close(fd_);
}

Db SnapshotFile::open() {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(token_.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, kVfsName);
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_compress: cannot open the snapshot: {}", raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  exec(db.get(), "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", "rocpd_compress: snapshot");
  return db;
}

std::uint64_t SnapshotFile::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error(fmt::format("rocpd_compress: snapshot: {}", std::strerror(errno)));
  return static_cast<std::uint64_t>(st.st_size);
}

void SnapshotFile::read(std::uint64_t offset, void* dst, std::size_t n) const {
  auto* p = static_cast<char*>(dst);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::pread(fd_, p + got, n - got, static_cast<off_t>(offset + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) throw Error(fmt::format("rocpd_compress: snapshot: {}", std::strerror(errno)));
    if (k == 0) throw Error("rocpd_compress: snapshot: shorter than its database");
    got += static_cast<std::size_t>(k);
  }
}

}  // namespace rocpd::compression
