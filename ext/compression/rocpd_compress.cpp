// rocpd_compress(src, dst [, level [, frame_kib]]): writes the seekable zstd layout of a SQLite
// database. The source is read inside a read transaction (a consistent snapshot even while a
// tracer writes to it), never modified, and nothing is created beside it (compress_source.h);
// dst appears atomically when complete and is never overwritten; an interrupt stops the call
// within milliseconds and leaves nothing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "common/temp_file.h"
#include "compression/byte_source.h"
#include "compression/compress_source.h"
#include "compression/host_interrupt.h"
#include "compression/snapshot_file.h"
#include "compression/seekable_writer.h"

namespace rocpd::compression {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string& msg) { throw Error("rocpd_compress: " + msg); }

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

sqlite3_int64 pragma_int(sqlite3* db, const char* sql, const std::string& src) {
  Stmt st = prepare(db, sql, fmt::format("rocpd_compress: source '{}'", src));
  step(st.get(), fmt::format("rocpd_compress: source '{}'", src));
  return sqlite3_column_int64(st.get(), 0);
}

// Streams the database image [0, bytes) through `read` into the writer in frame-sized pieces.
template <class Read>
void stream_image(Read&& read, std::uint64_t bytes, std::size_t piece, zstd::SeekableWriter& writer) {
  std::vector<unsigned char> buf(piece);
  for (std::uint64_t off = 0; off < bytes; off += piece) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(piece, bytes - off));
    read(off, buf.data(), n);
    writer.write(buf.data(), n);
  }
}

// The file a source name refers to: the name itself, or the path part of a "file:" URI
// (percent-decoded), so that it can be checked before SQLite opens it.
std::string source_path(const std::string& src) {
  if (src.rfind("file:", 0) != 0) return src;
  std::string rest = src.substr(5);
  if (rest.rfind("//", 0) == 0) {
    const std::size_t slash = rest.find('/', 2);
    rest = slash == std::string::npos ? std::string() : rest.substr(slash);
  }
  rest = rest.substr(0, rest.find_first_of("?#"));
  std::string path;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      path += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += rest[i];
    }
  }
  return path;
}

// The directory a file name lies in ("." for a bare name).
std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A busy handler that waits for a writer's commit (up to 10 s, as a busy timeout would) but
// gives up at once when the user interrupts.
struct BusyWait {
  HostInterrupt* interrupt;
  static int handler(void* p, int count) {
    auto* self = static_cast<BusyWait*>(p);
    if (count >= 2000 || self->interrupt->interrupted_now()) return 0;
    sqlite3_sleep(5);
    return 1;
  }
};

// A fresh partial file in `dir`, after removing those that killed calls left there.
rocpd::TempFile create_partial(const std::string& dir, const std::string& dst) {
  try {
    remove_stale_temps(dir, kPartialPrefix, kPartialSuffix);
    return rocpd::TempFile::create(dir, kPartialPrefix, kPartialSuffix, 0644);
  } catch (const std::system_error& e) {
    fail(fmt::format("cannot create '{}': {}", dst, std::strerror(e.code().value())));
  }
}

// The committed snapshot of `db` (its -wal pages included) copied by SQLite's backup API into
// `snapshot`, stopping when the user interrupts.
void copy_snapshot(sqlite3* db, SnapshotFile& snapshot, const std::string& src, HostInterrupt& interrupt) {
  Db snap = snapshot.open();
  sqlite3_backup* backup = sqlite3_backup_init(snap.get(), "main", db, "main");
  if (!backup) fail(fmt::format("snapshot of '{}' failed: {}", src, sqlite3_errmsg(snap.get())));
  int rc = SQLITE_OK;
  do {
    if (interrupt.interrupted_now()) {
      sqlite3_backup_finish(backup);
      HostInterrupt::raise();
    }
    rc = sqlite3_backup_step(backup, 256);
  } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
  const int finish_rc = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE || finish_rc != SQLITE_OK)
    fail(fmt::format("snapshot of '{}' failed: {}", src, sqlite3_errstr(rc != SQLITE_DONE ? rc : finish_rc)));
}

// link() publishes the finished file atomically and, unlike rename(), never replaces a dst
// created meanwhile. Filesystems without hard links fall back to rename().
void publish(rocpd::TempFile& partial, const std::string& dst) {
  if (::link(partial.path().c_str(), dst.c_str()) == 0) return;
  const int err = errno;
  if (err == EEXIST) fail(fmt::format("'{}' already exists (rocpd_compress never overwrites)", dst));
  if (::rename(partial.path().c_str(), dst.c_str()) != 0)
    fail(fmt::format("cannot create '{}': {}", dst, std::strerror(errno)));
  partial.release();
}

std::int64_t compress_database(HostInterrupt& interrupt, const std::string& src, const std::string& dst, int level,
                               std::size_t frame_size) {
  struct stat st {};
  if (::lstat(dst.c_str(), &st) == 0) fail(fmt::format("'{}' already exists (rocpd_compress never overwrites)", dst));
  // SQLite's default VFS would block opening a FIFO until a writer appears.
  const std::string path = source_path(src);
  try {
    zstd::require_regular_file(path);
  } catch (const zstd::IoError& e) {
    fail(fmt::format("source '{}': {}", src, e.what()));
  }

  CompressSource source = open_compress_source(src, path);
  sqlite3* db = source.db.get();
  // A tracer still writing holds its lock only while it commits: wait for it rather than fail.
  BusyWait busy{&interrupt};
  sqlite3_busy_handler(db, BusyWait::handler, &busy);
  const std::string what = fmt::format("rocpd_compress: source '{}'", src);
  // The read transaction pins one snapshot: rollback-journal writers cannot commit while it is
  // held, and WAL readers keep seeing the pages of its start.
  exec(db, "BEGIN", what);
  {
    Stmt probe = prepare(db, "SELECT count(*) FROM sqlite_schema", what);
    if (!step(probe.get(), what) && interrupt.interrupted_now()) HostInterrupt::raise();
  }
  const auto page_size = static_cast<std::uint64_t>(pragma_int(db, "PRAGMA main.page_size", src));
  const auto page_count = static_cast<std::uint64_t>(pragma_int(db, "PRAGMA main.page_count", src));
  const std::uint64_t image_bytes = page_size * page_count;

  // The output is written under a short fresh random name beside dst (created with O_EXCL, so it
  // never follows or replaces anything; short, so that any dst name that fits the directory fits it
  // too) and published only when complete: a failed or interrupted call leaves nothing, and one
  // killed leaves a file that the next call here removes (common/temp_file.h).
  const std::string dir = directory_of(dst);
  rocpd::TempFile partial = create_partial(dir, dst);
  // Written through a descriptor of its own, whose close reports write errors; the partial's own
  // descriptor keeps its lock until the partial name is gone.
  Fd out(::dup(partial.fd()));
  if (out.get() < 0) fail(fmt::format("cannot create '{}': {}", dst, std::strerror(errno)));
  std::uint64_t written = 0;
  // Read in pieces small enough to look at the interrupt flag often.
  const std::size_t piece = std::min<std::size_t>(frame_size, 1 << 20);
  try {
    zstd::SeekableWriter writer([&](const void* p, std::size_t n) { write_all(out.get(), p, n, partial.path()); },
                                level, frame_size, [&] { interrupt.check(); });
    if (source.file_is_image) {
      // The file itself is the snapshot while the read lock is held (or, immutable, while nothing
      // writes to it): copy its bytes exactly (so `zstd -d` gives back the original file).
      sqlite3_file* file = nullptr;
      if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file ||
          !file->pMethods)
        fail(fmt::format("source '{}': cannot reach its file", src));
      stream_image(
          [&](std::uint64_t off, unsigned char* buf, std::size_t n) {
            interrupt.check();
            int r = file->pMethods->xRead(file, buf, static_cast<int>(n), static_cast<sqlite3_int64>(off));
            if (r != SQLITE_OK) fail(fmt::format("source '{}': read failed at offset {} ({})", src, off, sqlite3_errstr(r)));
          },
          image_bytes, piece, writer);
    } else {
      // Committed pages live in the -wal file: SQLite assembles the snapshot (backup API) into an
      // unnamed temporary file, which is then compressed.
      SnapshotFile snapshot(dir);
      copy_snapshot(db, snapshot, src, interrupt);
      stream_image(
          [&](std::uint64_t off, unsigned char* buf, std::size_t n) {
            interrupt.check();
            snapshot.read(off, buf, n);
          },
          snapshot.size(), piece, writer);
    }
    written = writer.finish();
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  } catch (const zstd::FormatError& e) {
    fail(fmt::format("snapshot of '{}': {}", src, e.what()));
  } catch (const zstd::IoError& e) {
    fail(fmt::format("snapshot of '{}': {}", src, e.what()));
  }
  if (::fsync(out.get()) != 0) fail(fmt::format("cannot sync '{}': {}", partial.path(), std::strerror(errno)));
  if (::close(out.release()) != 0) fail(fmt::format("cannot close '{}': {}", partial.path(), std::strerror(errno)));
  // The last moment an interrupt can still leave nothing behind.
  if (interrupt.interrupted_now()) HostInterrupt::raise();
  publish(partial, dst);
  return static_cast<std::int64_t>(written);
}

void rocpd_compress_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_type(argv[1]) != SQLITE_TEXT)
      fail("src and dst must be file names (text)");
    const std::string src(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])));
    const std::string dst(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])));
    if (src.empty() || dst.empty()) fail("src and dst must be non-empty file names");
    int level = zstd::kDefaultLevel;
    std::int64_t frame_kib = zstd::kDefaultFrameKiB;
    if (argc >= 3 && sqlite3_value_type(argv[2]) != SQLITE_NULL) {
      if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER) fail("level must be an integer");
      const sqlite3_int64 l = sqlite3_value_int64(argv[2]);
      if (l < -1000000 || l > 1000000) fail(fmt::format("level {} is outside zstd's range", l));
      level = static_cast<int>(l);
    }
    if (argc >= 4 && sqlite3_value_type(argv[3]) != SQLITE_NULL) {
      if (sqlite3_value_type(argv[3]) != SQLITE_INTEGER) fail("frame_kib must be an integer");
      frame_kib = sqlite3_value_int64(argv[3]);
      if (frame_kib < 1 || frame_kib > 65536) fail(fmt::format("frame_kib {} is outside 1..65536", frame_kib));
    }
    HostInterrupt interrupt(sqlite3_context_db_handle(ctx));
    std::int64_t written = 0;
    try {
      written = compress_database(interrupt, src, dst, level, static_cast<std::size_t>(frame_kib) * 1024);
    } catch (const Error&) {
      // A wait or statement the interrupt cut short fails in its own words ("database is locked"):
      // the call ends with SQLite's plain "interrupted", as every other statement does.
      if (interrupt.interrupted_now()) HostInterrupt::raise();
      throw;
    }
    sqlite3_result_int64(ctx, written);
  });
}

}  // namespace

int register_rocpd_compress(sqlite3* db) {
  int rc = SQLITE_OK;
  for (int n : {2, 3, 4}) {
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_compress", n, kFileFunction, nullptr, rocpd_compress_fn, nullptr,
                                      nullptr, nullptr);
  }
  return rc;
}

}  // namespace rocpd::compression
