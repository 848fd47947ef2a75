// Every member's collective kernels read on every core (members/member_pool.h) and matched across
// members (collective_match.h): the rows of rocpd_collectives, which rocpd_steps and
// rocpd_align('collectives') build on (docs/ranks.md).
//
// A collective is an op of rocpd_ops of kind 'kernel' whose name rocpd_comm_classes counts as
// communication (nccl, rccl, cross_device_reduce, any case), with a start and an end (an op
// missing either cannot be placed and is left out). Its participant is (member, pid, gpu); its
// family is collective_family(name). Times are as rocpd_ops returns them: the member's clock
// offset included.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/member_collectives.h"

namespace rocpd::ranks {

using analysis::Cell;
using analysis::CellStore;
using analysis::CollectiveRow;
using analysis::MatchedCollective;
using analysis::MemberCollectives;
using analysis::MemberRef;

struct JobCollectives {
  std::vector<MemberRef> members;             // analysis::query_members order
  std::vector<MemberCollectives> per_member;  // same order
  std::vector<std::string> families;
  std::vector<uint32_t> participant_member;   // per participant: index into members
  std::vector<analysis::GpuKey> participant_pid;  // per participant: its pid as rocpd_ops returns it
};

// Reads and matches every member of `conn`. Errors name `table` (a start or end that is not an
// integer names the member, as the diagnosis tables do).
JobCollectives read_job_collectives(sqlite3* conn, const char* table);

}  // namespace rocpd::ranks
