// The job's traps, found before its figures are read: each warning one line saying what is wrong
// and why it matters (docs/cli.md, "Warnings"):
//   a counter-collection trace     kernels carrying hardware counters, or every kernel of a member
//                                  lasting the same time: durations of serialised / replayed kernels
//   runs that share no time        members whose time ranges do not overlap: different runs opened
//                                  as one job
//   one trace opened twice         two members with the same content (and uuid)
//   different devices or world sizes
//   a member without GPU ops
#pragma once
#include <string>
#include <vector>

#include "member_facts.h"
#include "session.h"

namespace rocpd_cli {

std::vector<std::string> job_warnings(Session& session, const std::vector<MemberFacts>& facts);

}  // namespace rocpd_cli
