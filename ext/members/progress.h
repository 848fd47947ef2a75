// The progress line of long statements (rocpd_progress(1), docs/federation.md). Every long
// statement reports through one InterruptWatch::report_progress(line) while it runs; the watch
// writes, about once a second, "rocpd: " + line() + ", <seconds since the statement began> s" to
// stderr. This header is the one format every table uses, so that a user reads the same words
// whatever runs:
//   rocpd: rocpd_kernel_stacks: 3/16 members done, 412345 rows, 2.0 s
//   rocpd: rocpd_apis: 1/2 members done, now rank1, 1234567 rows, inner side of a join: 1201438 lookups, 3.0 s
// Stable API for every capability (export included): build the text with progress_line().
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "members/member_pool.h"

namespace rocpd::members {

struct ProgressCounts {
  std::string_view what;     // the SQL name the user queried or that runs (rocpd_ops, rocpd_export_trace, ...)
  size_t members_done = 0;   // members finished
  size_t members_total = 0;  // members the statement reads (0: not counted)
  int64_t rows = -1;         // rows so far, read from members or made from them (< 0: not counted)
  std::string_view now;      // the member being read, when there is one to name
  std::string_view detail;   // anything else worth a word ("inner side of a join: 12 lookups")
};

// "<what>: <done>/<total> members done[, now <member>][, <rows> rows][, <detail>]"
std::string progress_line(const ProgressCounts& counts);
// The same for work run by MemberPool over `total` members.
std::string progress_line(std::string_view what, const PoolProgress& progress, size_t total, size_t done_before = 0);

}  // namespace rocpd::members
