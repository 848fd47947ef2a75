// Where the GPUs' time went (compute, communication, copies, idle) per member GPU: the rows of
// the summary's breakdown section and its headline, kept in temp.cli_breakdown for one run.
#pragma once
#include <string>
#include <vector>

#include "session.h"

namespace rocpd_cli {

// Fills temp.cli_breakdown with the whole-gpu rows of rocpd_time_breakdown (db, gpu, start, end,
// span_ns, busy_ns, compute_ns, comm_ns, copy_ns, overlap_ns, idle_ns and the four shares) once
// per session.
void prepare_breakdown(Session& session);

// One headline: the shares of the summed GPU spans of the job (db empty) or of one member.
struct Shares {
  std::string db;
  long long gpus = 0;
  double span_ns = 0, compute = 0, comm = 0, copy = 0, idle = 0;  // percent of span_ns
};
Shares job_shares(Session& session);
// --by-rank: per member, or per process of a member that holds several ("db pid N"), most idle first.
std::vector<Shares> member_shares(Session& session);
// "GPU time (2 GPUs, 1.939 s): compute 2.3 %, communication 0.0 %, copies 97.0 %, idle 0.7 %"
// (a member's line starts with its name instead of "GPU time"; the time is the GPUs' summed spans)
// with " (kinds running at once count in each: +N %)" when the shares add up past 100 %
std::string shares_line(const Shares& s);

}  // namespace rocpd_cli
