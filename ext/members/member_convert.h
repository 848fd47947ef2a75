// Members that are not SQLite files: a PyTorch profiler (Kineto) JSON trace is converted into a
// private temporary database (formats/kineto/kineto_import.h) which the member then reads like any
// other; the trace itself is only read, and nothing is written beside it.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "common/temp_file.h"
#include "members/interrupt.h"

namespace rocpd::members {

// Whether rocpd_open converts `path` rather than opening it: *.json, *.json.gz (PyTorch writes
// *.pt.trace.json[.gz]), case-insensitively.
bool is_json_trace_path(const std::string& path);

// The temporary database of one converted member: created with O_EXCL and mode 0600 in the
// first writable directory of $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp, /tmp (SQLite's own
// order for its temporary files, without the current directory), named
// rocpd-kineto-<token>-XXXXXXXX.db, and removed when the last holder lets go (the member is closed,
// or its connection is). The process holds one lock file there, rocpd-kineto-<token>.lock (flock,
// one descriptor for all its members, removed with its last member), so that a process killed before
// removing its databases leaves files the next process's first conversion there removes.
class ConversionLock {
 public:
  explicit ConversionLock(TempFile file) : file_(std::move(file)) {}
  const std::string& path() const { return file_.path(); }

 private:
  TempFile file_;  // removed (name, then lock) when the process's last member there goes
};
class ConvertedTrace {
 public:
  explicit ConvertedTrace(std::string path, std::shared_ptr<const ConversionLock> lock = nullptr)
      : path_(std::move(path)), lock_(std::move(lock)) {}
  ~ConvertedTrace();
  ConvertedTrace(const ConvertedTrace&) = delete;
  ConvertedTrace& operator=(const ConvertedTrace&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::shared_ptr<const ConversionLock> lock_;  // let go after the file is removed
};

// A converted member: its database, and how it was had (rocpd_members.conversion): "cached" (read
// from the conversion cache, members/conversion_cache.h, nothing converted), "converted, cached"
// (converted now and stored there), or "converted, not cached: <why>" (a temporary database).
struct ConvertedMember {
  std::shared_ptr<ConvertedTrace> trace;
  std::string conversion;
};

// Converts the JSON trace `json_path`, or reads its cached conversion; errors name `who`
// ("rocpd_open: 'x.json'"); stops when `watch` says so (host thread only), and writes progress lines
// through it when `progress` (rocpd_progress(1)). Nothing is left behind on error.
ConvertedMember convert_json_trace(const std::string& json_path, const std::string& who, InterruptWatch* watch,
                                   bool progress = false);

// This process's lock file `prefix`TOKEN`lock_suffix` in `dir`, guarding its files
// `prefix`TOKEN-XXXXXXXX`suffix` there (common/temp_file.h); the first call per directory and group
// removes those of processes gone. Throws std::system_error.
std::shared_ptr<const ConversionLock> process_lock(const std::string& dir, std::string_view prefix,
                                                   std::string_view lock_suffix, std::string_view suffix);

// The directory converted members are written to (see ConvertedTrace); throws when none is usable.
std::string conversion_directory();

}  // namespace rocpd::members
