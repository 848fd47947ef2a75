// Fuzz target: any bytes as a trace file x.rpd, opened with rocpd_open(path) and read through
// the federation's tables: rocpd_members, rocpd_ops, rocpd_apis, rocpd_busy (and the kernel
// summary view, which calls demangle/median/stddev on what the file holds). Errors are fine
// (most inputs are not SQLite files); crashes, hangs and leaks are not.
#include <cstdint>
#include <string>

#include "fuzz_connection.h"
#include "fuzz_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = rocpd::fuzz::write_input_file("x.rpd", data, size);
  rocpd::fuzz::Connection db;
  if (db.run("SELECT rocpd_open(?1)", {path}) != SQLITE_OK) return 0;
  db.run("SELECT * FROM rocpd_members");
  db.run("SELECT * FROM rocpd_ops LIMIT 2000");
  db.run("SELECT kind, count(*), sum(duration), min(start), max(\"end\") FROM rocpd_ops GROUP BY kind");
  db.run("SELECT * FROM rocpd_ops WHERE start > 0 AND gpu = 1 LIMIT 100");
  db.run("SELECT * FROM rocpd_apis LIMIT 2000");
  db.run("SELECT * FROM rocpd_busy");
  db.run("SELECT * FROM rocpd_kernel_summary");
  db.run("SELECT rocpd_close()");
  return 0;
}
