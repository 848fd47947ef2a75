// Stopping long compression work (rocpd_compress, rocpd_zstd_verify) when the user interrupts the
// calling connection: the host's flag is looked at every few milliseconds. (The federation's
// InterruptWatch does the same for member reads; this capability sits below it.)
#pragma once
#include <chrono>

#include "common/sqlite_util.h"

namespace rocpd::compression {

class HostInterrupt {
 public:
  explicit HostInterrupt(sqlite3* host) : host_(host) {}
  // Throws Error("interrupted", SQLITE_INTERRUPT) once the host connection was interrupted; reads
  // the flag at most every few milliseconds.
  void check();
  // Reads the flag now.
  bool interrupted_now();
  [[noreturn]] static void raise();

 private:
  sqlite3* host_;
  std::chrono::steady_clock::time_point next_{};
  bool stopped_ = false;
};

}  // namespace rocpd::compression
