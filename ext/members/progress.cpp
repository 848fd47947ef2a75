#include "members/progress.h"

#include <fmt/format.h>

namespace rocpd::members {

std::string progress_line(const ProgressCounts& c) {
  std::string line = fmt::format("{}: {}/{} members done", c.what, c.members_done, c.members_total);
  if (!c.now.empty()) line += fmt::format(", now {}", c.now);
  if (c.rows >= 0) line += fmt::format(", {} rows", c.rows);
  if (!c.detail.empty()) line += fmt::format(", {}", c.detail);
  return line;
}

std::string progress_line(std::string_view what, const PoolProgress& progress, size_t total, size_t done_before) {
  ProgressCounts c;
  c.what = what;
  c.members_done = done_before + progress.members_done.load(std::memory_order_relaxed);
  c.members_total = total;
  c.rows = progress.rows.load(std::memory_order_relaxed);
  return progress_line(c);
}

}  // namespace rocpd::members
