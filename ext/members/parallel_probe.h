// rocpd_open's probing threads (opt-in: ROCPD_OPEN_THREADS). Probing a member file (its header,
// schema and metadata: a few pages and 0.6-0.9 ms of CPU, 40 % of it SQLite parsing the schema) one
// after another takes 10,000 members 6-9 s. With ROCPD_OPEN_THREADS=N, N-1 threads probe the
// files ahead of the host thread, in pattern order, at most a window ahead (bounded memory and
// connections), and the host thread probes any file no thread has taken yet. The host thread takes
// the results one by one in pattern order and does everything that depends on the order exactly
// as a serial open does (names, ordinals, duplicates, skipped files, the pool's count, which error
// is raised). Files converted first (Kineto JSON, nsys reports) are still opened by the host.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "canonical/member.h"
#include "members/interrupt.h"

namespace rocpd::members {

// What probing one file found.
struct ProbedFile {
  canonical::FileStamp stamp;           // the file before the probe read it
  canonical::MemberPtr member;          // without name or ordinal; null: no trace (or on_host, or error)
  std::exception_ptr error;  // the probe's error, raised by the host only if it reaches this file
  bool on_host = false;      // converted first (converted_first): the host opens it itself
};

// How many threads probe (the host thread included): ROCPD_OPEN_THREADS, else 1 (the host thread
// alone). Not more by default: on the project's 2-core machine, busy with other work, two threads
// gained nothing (bench/bench_federation.py --many: 0.93x cold, 1.10x warm); the probe is CPU work,
// and Debian's SQLite counts memory (SQLITE_DEFAULT_MEMSTATUS), so every allocation of the schema
// parse takes one process-wide mutex, which an extension cannot turn off once SQLite is initialised.
// Throws Error naming the variable when it is not a count from 1 to 64.
size_t open_threads();

class ParallelProbe {
 public:
  // Probes `files` (which must outlive this object) on `threads` - 1 threads beside the host
  // thread, at most `window` files ahead of the last take(). running() is false when no thread
  // could be started (ROCPD_FAULT=thread_start simulates that).
  ParallelProbe(const std::vector<std::string>& files, size_t threads, size_t window);
  // Stops the probes under way (their statements are interrupted) and joins every thread.
  ~ParallelProbe();
  ParallelProbe(const ParallelProbe&) = delete;
  ParallelProbe& operator=(const ParallelProbe&) = delete;

  bool running() const { return !workers_.empty(); }
  // The probe of files[index], waiting for it while polling `watch` (which throws once the host is
  // interrupted). Indices must increase from one call to the next; the results of files not asked
  // for (duplicates the host passed over) are dropped with their connections.
  ProbedFile take(size_t index, InterruptWatch* watch);
  // The host keeps no more probing connections (the pool is full): the threads close theirs
  // themselves, on the thread that opened them (freeing across threads added half the probes' CPU).
  void keep_no_connections() { keep_connections_.store(false, std::memory_order_relaxed); }

 private:
  void work() noexcept;
  // `watch`: the caller's on the host thread, stopping_ on workers.
  ProbedFile probe(const std::string& path, InterruptWatch* watch, bool host_thread);

  const std::vector<std::string>& files_;
  const size_t window_;
  std::mutex mutex_;
  std::condition_variable may_take_;  // workers: the window moved, or stop
  std::condition_variable probed_;    // host: a result came
  size_t next_ = 0;                   // the next file a worker takes
  size_t reached_ = 0;                // the host's file: workers stay below reached_ + window_
  bool stop_ = false;
  std::atomic<bool> keep_connections_{true};
  std::map<size_t, ProbedFile> done_;  // results the host has not taken yet (< window_ of them)
  // The workers' member statements stop when it does (only its stop flag is read off the host).
  InterruptWatch stopping_{nullptr};
  std::vector<std::thread> workers_;
};

}  // namespace rocpd::members
