#include "output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace rocpd_cli {

namespace {
std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}
}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw CliError("--output '" + path_ + "': is a directory");
  struct stat own {};
  if (::lstat(path_.c_str(), &own) == 0 && (S_ISCHR(own.st_mode) || S_ISBLK(own.st_mode) || S_ISFIFO(own.st_mode))) {
    out_.open(path_, std::ios::binary);
    if (!out_) throw CliError("--output '" + path_ + "': cannot write it: " + std::strerror(errno));
    return;
  }
  std::string dir = dir_of(path_);
  // A short temporary name: `.rocpd-ext-XXXXXX` fits wherever FILE's own name fits.
  std::string pattern = (dir == "." ? "" : dir) + ".rocpd-ext-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  int fd = ::mkstemp(buf.data());
  if (fd < 0) throw CliError("--output '" + path_ + "': cannot create a file in " + dir + ": " + std::strerror(errno));
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  temp_ = buf.data();
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    ::unlink(temp_.c_str());
    throw CliError("--output '" + path_ + "': cannot write " + temp_);
  }
}

OutputFile::~OutputFile() {
  if (!committed_ && !temp_.empty()) {
    out_.close();
    ::unlink(temp_.c_str());
  }
}

void OutputFile::check_not_member(Session& session) const {
  struct stat target {};
  if (::stat(path_.c_str(), &target) != 0) return;
  ResultSet rs = session.run("SELECT db, path FROM rocpd_members");
  for (const auto& r : rs.rows) {
    struct stat member {};
    if (::stat(r[1].text.c_str(), &member) == 0 && member.st_dev == target.st_dev && member.st_ino == target.st_ino)
      throw CliError("--output '" + path_ + "' is the trace of member " + r[0].text + ": it is read, never replaced");
  }
}

void OutputFile::commit() {
  out_.flush();
  bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw CliError("--output '" + path_ + "': cannot write the output (" + std::strerror(errno) + ")");
  if (temp_.empty()) {  // written in place
    committed_ = true;
    return;
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0)
    throw CliError("--output '" + path_ + "': cannot replace it: " + std::strerror(errno));
  committed_ = true;
}

}  // namespace rocpd_cli
