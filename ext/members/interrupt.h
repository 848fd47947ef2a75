// Stopping long member work when the user interrupts the host connection.
//
// sqlite3_interrupt() (Ctrl-C in the shell, Connection.interrupt() in Python) sets a flag on the
// host connection only. Opened members are read on private connections, by the host thread or by
// prefetch threads, which never see that flag. An InterruptWatch carries it over: the host thread
// polls the host's flag (at most every few milliseconds) and raises a shared stop flag that the
// progress handlers of the member connections check, so any query stops within a fraction of a
// second (docs/federation.md, "Guarantees").
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "common/sqlite_util.h"

namespace rocpd::members {

class InterruptWatch {
 public:
  explicit InterruptWatch(sqlite3* host) : host_(host) {}
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  // Host thread only. Looks at the host connection's interrupt flag when the last look is older
  // than the poll interval; returns true (and stays stopped) once it was set.
  bool poll();
  // Host thread only: poll() and throw the "interrupted" error if the host was interrupted. For
  // calls made millions of times (a join's filters), the clock itself is read every 16th time.
  void check();
  bool stopped() const noexcept { return stopped_.load(std::memory_order_relaxed); }
  // Host thread only: whether the host connection is interrupted right now (no poll interval;
  // stopped() may also mean that work was stopped after another error).
  bool host_interrupted_now() const;
  // rocpd_progress(1): while the watched work runs, poll() writes `line()` to stderr about once
  // a second (progress_interval(); host thread only, so the line may read the work's own counters without locks),
  // with the seconds since `since` (the statement's start, for work done in several watches; by
  // default now). members/progress.h formats the line.
  void report_progress(std::function<std::string()> line,
                       std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now());
  void stop() noexcept { stopped_.store(true, std::memory_order_relaxed); }
  // The error every interrupted query ends with (SQLITE_INTERRUPT, as SQLite's own).
  [[noreturn]] static void raise();

 private:
  sqlite3* host_;
  std::atomic<bool> stopped_{false};
  std::chrono::steady_clock::time_point next_poll_{};
  std::function<std::string()> progress_line_;
  std::chrono::steady_clock::time_point started_{}, next_report_{};
  unsigned calls_ = 0;  // the clock is read on every 16th call only: a join filters millions of times
};

// The time between two progress lines: ROCPD_PROGRESS_INTERVAL seconds (a decimal number >= 0; 0:
// a line at every poll, every few milliseconds), default 1 s. Read once per process; throws Error
// naming the variable when its value is not such a number (rocpd_progress(1) refuses to start).
std::chrono::steady_clock::duration progress_interval();

// While alive, a progress handler on `member_db` stops its statements when `watch` says so: on
// the host thread it polls the host connection itself, on other threads it reads the stop flag.
// Never installed on the host connection (attached members): the host's own flag stops those,
// and the user's progress handler stays untouched.
class ProgressGuard {
 public:
  ProgressGuard() = default;
  ProgressGuard(sqlite3* member_db, InterruptWatch* watch, bool host_thread);
  ProgressGuard(ProgressGuard&& o) noexcept { *this = std::move(o); }
  ProgressGuard& operator=(ProgressGuard&& o) noexcept;
  ~ProgressGuard() { release(); }

 private:
  void release() noexcept;
  sqlite3* db_ = nullptr;
  // The handler's argument; heap-held so that moving the guard keeps the pointer valid.
  struct Context {
    InterruptWatch* watch;
    bool host_thread;
  };
  std::unique_ptr<Context> context_;
};

}  // namespace rocpd::members
