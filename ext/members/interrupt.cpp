#include "members/interrupt.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace rocpd::members {

namespace {
// How stale the host flag may get: well inside the 0.5 s promise, rare enough to cost nothing.
constexpr auto kPollInterval = std::chrono::milliseconds(5);
// Between two lines of rocpd_progress(1), unless ROCPD_PROGRESS_INTERVAL says otherwise.
constexpr auto kReportInterval = std::chrono::seconds(1);

// ROCPD_PROGRESS_INTERVAL's value, or the error it gives.
struct Interval {
  std::chrono::steady_clock::duration value = kReportInterval;
  std::string error;
};
Interval read_interval() {
  Interval out;
  const char* v = std::getenv("ROCPD_PROGRESS_INTERVAL");
  if (!v || !*v) return out;
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(v, &end);
  // At most a day: a larger value is a typo, and would overflow the clock's arithmetic.
  if (end == v || *end || errno || !(seconds >= 0 && seconds <= 86400)) {
    out.error = fmt::format("ROCPD_PROGRESS_INTERVAL='{}': not a number of seconds from 0 to 86400", v);
    return out;
  }
  out.value = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  return out;
}
const Interval& interval() {
  static const Interval read = read_interval();
  return read;
}
// Virtual-machine steps between progress callbacks on member connections.
constexpr int kProgressSteps = 1000;

// True when the host connection has been interrupted. SQLite 3.40 has no sqlite3_is_interrupted():
// while a statement of the host runs (ours does), the flag stays set and any statement started on
// the host fails with SQLITE_INTERRUPT at its first step.
bool host_interrupted(sqlite3* host) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(host, "SELECT 1", -1, &raw, nullptr);
  Stmt stmt(raw);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt.get());
  return rc == SQLITE_INTERRUPT;
}

// A SQLite compiled with SQLITE_OMIT_PROGRESS_CALLBACK (better-sqlite3, Node's most used binding,
// docs/bindings.md) leaves sqlite3_progress_handler's entry of the API table null: calling it
// would jump to address 0. Without the handler, member statements are still stopped at the
// watch's checks between rows (InterruptWatch::check), only not inside one long step.
bool progress_handler_available() { return sqlite3_api && sqlite3_api->progress_handler; }
}  // namespace

bool InterruptWatch::poll() {
  if (stopped()) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_poll_) return false;
  next_poll_ = now + kPollInterval;
  if (host_interrupted(host_)) stop();
  if (progress_line_ && now >= next_report_) {
    next_report_ = now + interval().value;
    const double seconds = std::chrono::duration<double>(now - started_).count();
    try {
      std::fprintf(stderr, "rocpd: %s, %.1f s\n", progress_line_().c_str(), seconds);
    } catch (...) {
      // A progress line is never worth an error.
    }
  }
  return stopped();
}

void InterruptWatch::report_progress(std::function<std::string()> line, std::chrono::steady_clock::time_point since) {
  progress_line_ = std::move(line);
  started_ = since;
  const auto every = interval().value;
  next_report_ = std::max(since, std::chrono::steady_clock::now() - every / 2) + every;
}

std::chrono::steady_clock::duration progress_interval() {
  if (!interval().error.empty()) throw Error(interval().error);
  return interval().value;
}

void InterruptWatch::check() {
  if (stopped()) raise();
  if (++calls_ % 16 == 1 && poll()) raise();
}

bool InterruptWatch::host_interrupted_now() const { return host_ && host_interrupted(host_); }

void InterruptWatch::raise() { throw Error("interrupted", SQLITE_INTERRUPT); }

ProgressGuard::ProgressGuard(sqlite3* member_db, InterruptWatch* watch, bool host_thread) {
  if (!member_db || !watch || !progress_handler_available()) return;
  db_ = member_db;
  context_ = std::make_unique<Context>(Context{watch, host_thread});
  sqlite3_progress_handler(
      db_, kProgressSteps,
      [](void* p) -> int {
        auto* c = static_cast<Context*>(p);
        return c->host_thread ? c->watch->poll() : c->watch->stopped();
      },
      context_.get());
}

ProgressGuard& ProgressGuard::operator=(ProgressGuard&& o) noexcept {
  if (this != &o) {
    release();
    db_ = o.db_;
    context_ = std::move(o.context_);
    o.db_ = nullptr;
  }
  return *this;
}

void ProgressGuard::release() noexcept {
  if (db_) sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  db_ = nullptr;
  context_.reset();
}

}  // namespace rocpd::members
