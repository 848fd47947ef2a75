// The html summary's heatmap: for every member GPU three lanes, compute, communication and copies,
// each bucket of the job's span coloured by the share of the bucket that class kept the GPU busy
// (the union of the class's op intervals clipped to the bucket), drawn as inline SVG.
#pragma once
#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "session.h"

namespace rocpd_cli {

// The classes of GPU time, as the breakdown counts them: compute (kernels that are not
// communication), communication (NCCL/RCCL kernels, cross_device_reduce: rocpd_comm_classes'
// test), copies (copies and fills).
enum HeatLane { kCompute = 0, kComm = 1, kCopy = 2 };
inline constexpr const char* kLaneNames[3] = {"compute", "communication", "copies"};

// Ten colour classes per lane, light (idle) to dark (busy), one hue per lane: class k holds the
// buckets whose busy time is at least k tenths of the bucket and less than k + 1 tenths (class 9
// includes a full bucket). No colour is white, grey or another lane's.
extern const char* const kHeatColors[3][10];
int heat_class(std::int64_t busy_ns, std::int64_t bucket_ns);

struct Heatmap {
  std::int64_t lo = 0, hi = 0;  // the job's window [first timestamp, last timestamp)
  long long buckets = 0;
  struct Row {
    std::string label;  // "<db> gpu <gpu>"
    std::array<std::vector<std::int64_t>, 3> busy_ns;  // per lane, per bucket
  };
  std::vector<Row> rows;
  std::vector<std::int64_t> bucket_ns;  // the width of each bucket
  std::string note;  // why there is no heatmap, when the job has a span but none can be drawn
};

// Buckets as rocpd_utilization(NULL, lo, hi, buckets) divides the job's span (fewer when the span
// has fewer ns), each lane's busy time per bucket from rocpd_ops read once in time order; no rows
// when the job has no span, or a span longer than an int64 of ns (then `note`). The `max_rows`
// GPUs most idle (temp.cli_breakdown, filled first) get a row, worst first; `note` says when there
// were more.
Heatmap read_heatmap(Session& session, long long buckets, long long max_rows);
void write_heatmap_svg(std::ostream& out, const Heatmap& h);

}  // namespace rocpd_cli
