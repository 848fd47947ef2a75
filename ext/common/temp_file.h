// Files the extension writes under a temporary name before they are complete (defined in
// temp_file.cpp): created with a fresh random name of fixed length (so any final name that fits a
// directory fits it too), O_EXCL and O_NOFOLLOW (never following or replacing anything), the mode
// cut by the umask as for any new file.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

namespace rocpd {

class TempFile {
 public:
  TempFile() = default;
  // Creates `dir`/`prefix`XXXXXXXX`suffix` (dir "" for the current directory) opened read-write.
  // Throws std::system_error carrying errno when it cannot.
  static TempFile create(const std::string& dir, std::string_view prefix, std::string_view suffix, mode_t mode);
  TempFile(TempFile&& o) noexcept { *this = std::move(o); }
  TempFile& operator=(TempFile&& o) noexcept;
  ~TempFile() { remove(); }  // the name is removed unless released
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  // Closes the descriptor now (its errors are the caller's to check: a write error may surface
  // only at close); the name stays.
  int close_fd();
  // The file is kept under its name (it was published, or renamed away).
  void release() { path_.clear(); }
  // Removes the name (if still ours) and closes the descriptor.
  void remove();

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace rocpd
