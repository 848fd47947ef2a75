// rocpd_open's probing threads. Probing a member file (its header, schema and metadata: a few
// pages and ~0.5 ms of CPU) one after another made 10,000 members take 5.5 s warm and 7-15 s
// with the page cache cold (one disk round trip after another). A few threads probe the files
// ahead of the host thread, in pattern order, at most a window ahead (bounded memory and
// connections); the host thread takes their results one by one in pattern order and does
// everything that depends on the order exactly as a serial open does (names, ordinals,
// duplicates, skipped files, the pool's count, which error is raised).
#pragma once
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

namespace rocpd::federation {

// What probing one file found.
struct ProbedFile {
  FileStamp stamp;           // the file before the probe read it
  MemberPtr member;          // without name or ordinal; null: no trace (or on_host, or error)
  std::exception_ptr error;  // the probe's error, raised by the host only if it reaches this file
  bool on_host = false;      // converted first (converted_first): the host opens it itself
};

// How many probing threads rocpd_open uses: ROCPD_OPEN_THREADS when set (1: the host thread
// probes alone, as before), else twice the cores (the waits for the disk overlap), at most 16.
// Throws Error naming the variable when it is not a count from 1 to 64.
size_t open_threads();

class ParallelProbe {
 public:
  // Probes `files` (which must outlive this object) on `threads` threads, at most `window` files
  // ahead of the last take(). running() is false when no thread could be started.
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
  std::map<size_t, ProbedFile> done_;  // results the host has not taken yet (< window_ of them)
  // The workers' member statements stop when it does (only its stop flag is read off the host).
  InterruptWatch stopping_{nullptr};
  std::vector<std::thread> workers_;
};

}  // namespace rocpd::federation
