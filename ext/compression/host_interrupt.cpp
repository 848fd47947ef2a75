#include "compression/host_interrupt.h"

namespace rocpd::compression {

namespace {
// Well inside the 0.5 s promise, rare enough to cost nothing.
constexpr auto kPollInterval = std::chrono::milliseconds(5);
}  // namespace

// SQLite 3.40 has no sqlite3_is_interrupted(): while a statement of the host runs (ours does), the
// flag stays set and any statement started on the host fails with SQLITE_INTERRUPT at its first step.
bool HostInterrupt::interrupted_now() {
  if (stopped_) return true;
  if (!host_) return false;
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(host_, "SELECT 1", -1, &raw, nullptr);
  Stmt stmt(raw);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt.get());
  stopped_ = rc == SQLITE_INTERRUPT;
  return stopped_;
}

void HostInterrupt::check() {
  if (stopped_) raise();
  const auto now = std::chrono::steady_clock::now();
  if (now < next_) return;
  next_ = now + kPollInterval;
  if (interrupted_now()) raise();
}

void HostInterrupt::raise() { throw Error("interrupted", SQLITE_INTERRUPT); }

}  // namespace rocpd::compression
