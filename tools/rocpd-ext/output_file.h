// -o FILE: the output goes to a new file beside FILE, renamed over FILE once the command is done,
// so that a command that fails leaves FILE as it was; and FILE is never one of the traces read.
// FILE that is a device, FIFO or socket (`-o /dev/null`, `-o /dev/stdout`) is written in place:
// renamed over, the device node itself would be replaced by a regular file.
#pragma once
#include <fstream>
#include <string>

#include "session.h"

namespace rocpd_cli {

class OutputFile {
 public:
  // Creates the temporary file (mode 0666 less the umask, as a shell redirection would).
  explicit OutputFile(std::string path);
  ~OutputFile();  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return out_; }
  // Refuses (CliError) when FILE is a member of `session` (by device and inode).
  void check_not_member(Session& session) const;
  // Flushes, checks and renames the file over FILE.
  void commit();

 private:
  std::string path_, temp_;  // temp_ empty: FILE written in place
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace rocpd_cli
