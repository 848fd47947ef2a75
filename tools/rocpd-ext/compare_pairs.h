// compare's paired sections (docs/cli.md, "compare"): per kernel, API call or copy kind, the two
// runs' calls, totals and medians, a Mann-Whitney test of their durations (mann_whitney.h), and a
// ranking by the significant changes only, weighted by calls per step (or per second).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

// What a side's rates are divided by: its steps when both sides have steps, else its span.
struct RunScale {
  std::string label;
  std::int64_t steps = 0;
  std::optional<std::int64_t> span_ns;
};

// Per name: both sides' figures and the verdict.
struct PairedRow {
  std::string shown;
  std::int64_t calls[2] = {0, 0}, total[2] = {0, 0};
  std::optional<double> med[2];
  std::optional<double> p;       // the test's two-sided p value (both sides with enough calls)
  std::string verdict;           // slower, faster, within noise, too few calls, only in a, only in b
  std::optional<double> impact;  // ns per step (or per second of capture), for the ranked rows
};

struct PairedTable {
  bool per_step = false;
  double scale[2] = {0, 0};     // each side's steps, or its span in seconds (0: none)
  std::vector<PairedRow> rows;  // ranked rows first (largest |impact| first), then the others by time
};

// Pairs by raw name (kernels shown by rocpd_display_name); unless `raw_names`, a name only one
// run called then pairs with the one name only the other run called that has the same normalised
// name (name_normal.h of the name shown). API calls: runtime and driver calls only (call_class.h).
enum class PairKind { Kernels, Apis, Copies };
PairedTable pair_runs(Session& session, PairKind kind, const RunScale& a, const RunScale& b, bool raw_names);

// The table of the section: name column `key`, rows cut at `top` (a note says so).
ResultSet paired_section(const PairedTable& t, const std::string& name, const std::string& title,
                         const std::string& key, long long top);

// Significance level of the test and the sample cap per side and name (docs/cli.md, "Noise").
constexpr double kNoiseAlpha = 0.001;
constexpr size_t kSampleCap = 5000;
constexpr std::int64_t kMinCalls = 3;

}  // namespace rocpd_cli
