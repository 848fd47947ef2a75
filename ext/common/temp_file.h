// Files the extension writes under a temporary name before they are complete (defined in
// temp_file.cpp): created with a fresh random name of fixed length (so any final name that fits a
// directory fits it too), O_EXCL and O_NOFOLLOW (never following or replacing anything), the mode
// cut by the umask as for any new file.
//
// A process killed before it removes its temporary files (SIGKILL, a host's SIGTERM) leaves them:
// the next call that writes in that directory removes those whose creator is gone. Whether it is
// gone is asked of a lock (flock) the creator holds while alive, never of a pid: pids repeat, and
// containers sharing a directory see other pid namespaces.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

namespace rocpd {

// How rocpd_import, rocpd_compress and rocpd_export_trace name the file they write beside its
// destination until it is complete: .rocpd-XXXXXXXX.partial.
inline constexpr std::string_view kPartialPrefix = ".rocpd-", kPartialSuffix = ".partial";

class TempFile {
 public:
  TempFile() = default;
  // Creates `dir`/`prefix`XXXXXXXX`suffix` (dir "" for the current directory) opened read-write,
  // and holds a lock on it until removed or released: while held, stale-file sweeps pass it over.
  // Throws std::system_error carrying errno when it cannot.
  static TempFile create(const std::string& dir, std::string_view prefix, std::string_view suffix, mode_t mode);
  TempFile(TempFile&& o) noexcept { *this = std::move(o); }
  TempFile& operator=(TempFile&& o) noexcept;
  ~TempFile() { remove(); }  // the name is removed unless released
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  // The locked descriptor: write through it, or through a dup() (closing a dup keeps the lock).
  int fd() const { return fd_; }
  // The file is kept under its name (it was renamed away, or is published); the lock goes.
  void release();
  // Removes the name (if still ours), then lets the lock go.
  void remove();

 private:
  std::string path_;
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// Removes the files of `dir` named `prefix` + 8 letters or digits + `suffix` whose creator's lock
// (TempFile) is gone, if they belong to this user; never follows a link. Returns how many.
int remove_stale_temps(const std::string& dir, std::string_view prefix, std::string_view suffix);

// Creates `dir`/`prefix`XXXXXXXX`suffix` (O_EXCL, O_NOFOLLOW, `mode`) and closes it, holding no
// descriptor: for files guarded by one lock file of their process (a TempFile named
// `prefix`, 8 random characters, `lock_suffix`) rather than a lock each. Throws std::system_error.
std::string create_unlocked_file(const std::string& dir, std::string_view prefix, std::string_view suffix,
                                 mode_t mode);

// Makes `dir`/`prefix`XXXXXXXX`suffix` a new hard link to the file `target` (same file system):
// a name of the same group as create_unlocked_file's, for a file another name may lose (a cache
// entry evicted while read). Throws std::system_error (ENOENT: `target` is gone).
std::string link_unlocked_file(const std::string& target, const std::string& dir, std::string_view prefix,
                               std::string_view suffix);

// The 8 random characters of a TempFile's name made with `prefix` and `suffix` ("" if not one).
std::string temp_token(std::string_view file_name, std::string_view prefix, std::string_view suffix);

// Removes the files of `dir` named `prefix`TOKEN-XXXXXXXX`suffix` (TOKEN and X: 8 letters or digits)
// whose process lock file `prefix`TOKEN`lock_suffix` is absent or locked by nobody, then those
// lock files nobody holds; only regular files of this user, never a link, never opening the
// guarded files themselves (SQLite's POSIX locks on them would drop). Returns how many.
int remove_stale_grouped_temps(const std::string& dir, std::string_view prefix, std::string_view lock_suffix,
                               std::string_view suffix);

}  // namespace rocpd
