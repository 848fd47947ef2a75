// compare's first table (docs/cli.md, "compare"): per run the step time (count, mean, median,
// p90 of the step ranges) or, without steps, the work per second of capture (GPU ops and the top
// kernels' calls per second), the GPUs' busy share and where their time went (compute,
// communication, copies, idle: rocpd_time_breakdown), and the change from a to b.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "compare_pairs.h"
#include "display.h"
#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

struct TimeSide {
  std::string label;
  std::int64_t ops = 0;
  std::optional<std::int64_t> span_ns;
};

struct TimeTable {
  ResultSet section;     // "time": measure, [unit,] a, b, change
  std::string headline;  // the one line that leads the human formats
};

// `kernels`: the paired kernels (their calls per second when the runs have no steps), or nullptr.
// `human`: cells formatted for table, md and html (durations in `unit`); else raw numbers and a
// unit column.
TimeTable time_section(Session& session, const TimeSide& a, const TimeSide& b, const PairedTable* kernels,
                       bool human, TimeUnit unit);

// The step durations of a run's step ranges (those rocpd_run_steps counts), sorted.
std::vector<double> step_durations(Session& session, const std::string& run);
// Nearest-rank quantile of sorted values: v[ceil(q n) - 1]; the median is the usual middle.
std::optional<double> nearest_rank(const std::vector<double>& sorted, double q);

}  // namespace rocpd_cli
