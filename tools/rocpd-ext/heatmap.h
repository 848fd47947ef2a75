// The utilization heatmap of the html summary: per member GPU, the busy share of each of N
// equal buckets of the job's span (rocpd_utilization), drawn as inline SVG.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "session.h"

namespace rocpd_cli {

// Ten colour classes, light (idle) to dark (busy): class k holds the buckets whose busy time is
// at least k tenths of the bucket and less than k + 1 tenths (class 9 includes a full bucket).
extern const char* const kHeatColors[10];
int heat_class(std::int64_t busy_ns, std::int64_t bucket_ns);

struct Heatmap {
  std::int64_t lo = 0, hi = 0;  // the job's window [first timestamp, last timestamp)
  long long buckets = 0;
  struct Row {
    std::string label;  // "<db> gpu <gpu>"
    std::vector<std::int64_t> busy_ns, bucket_ns;
  };
  std::vector<Row> rows;
  std::string note;  // why there is no heatmap, when the job has a span but none can be drawn
};

// rocpd_utilization(NULL, lo, hi, buckets) over the whole job (fewer buckets when the span has
// fewer ns); no rows when the job has no span, or a span longer than an int64 of ns (then `note`).
Heatmap read_heatmap(Session& session, long long buckets);
void write_heatmap_svg(std::ostream& out, const Heatmap& h);

}  // namespace rocpd_cli
