// Fuzz target: any bytes as a PyTorch profiler (Kineto) JSON trace x.json (plain, or gzip when
// they start with its magic), converted by rocpd_open and read through the federation's tables:
// rocpd_members, rocpd_ops, rocpd_apis, rocpd_kernels, rocpd_copies, rocpd_counters and the
// kernel stacks. Errors are fine (most inputs are not traces); crashes, hangs, leaks, unbounded
// allocations and a temporary database left behind after the member is closed are not.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_check.h"
#include "fuzz_connection.h"
#include "fuzz_files.h"

namespace {

// The converted members of this process go to a directory of their own, checked empty after each
// input (the conversion must remove its temporary database on every path).
const std::string& conversion_dir() {
  static const std::string dir = [] {
    const std::string d = rocpd::fuzz::write_input_file("kineto_tmp_marker", nullptr, 0) + ".d";
    mkdir(d.c_str(), 0700);
    setenv("SQLITE_TMPDIR", d.c_str(), 1);
    return d;
  }();
  return dir;
}

bool empty_dir(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (!d) return true;
  bool empty = true;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") empty = false;
  closedir(d);
  return empty;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& tmp = conversion_dir();
  const std::string path = rocpd::fuzz::write_input_file("x.json", data, size);
  {
    rocpd::fuzz::Connection db;
    if (db.run("SELECT rocpd_open(?1)", {path}) == SQLITE_OK) {
      db.run("SELECT * FROM rocpd_members");
      db.run("SELECT * FROM rocpd_ops LIMIT 2000");
      db.run("SELECT kind, count(*), sum(duration), min(start), max(\"end\") FROM rocpd_ops GROUP BY kind");
      db.run("SELECT * FROM rocpd_apis LIMIT 2000");
      db.run("SELECT * FROM rocpd_kernels LIMIT 200");
      db.run("SELECT * FROM rocpd_copies LIMIT 200");
      db.run("SELECT * FROM rocpd_counters LIMIT 200");
      db.run("SELECT * FROM rocpd_kernel_stacks LIMIT 200");
      db.run("SELECT * FROM rocpd_busy");
      db.run("SELECT rocpd_close()");
    }
  }
  rocpd::fuzz::fuzz_check(empty_dir(tmp), "a converted member's temporary database outlived it");
  return 0;
}
