// One member's collective kernels as read for rocpd_collectives (ext/ranks/job_collectives.h):
// its ops of kind 'kernel' whose name rocpd_comm_classes counts as communication, with a start and
// an end, in start order, their families and participants numbered within the member. The job's
// matching numbers them across members. Here, not in ranks/, because a pass of another capability
// may read them in its own visit of the member (members/registry.h, stash).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cell_store.h"
#include "analysis/collective_match.h"
#include "analysis/member_read.h"
#include "members/interrupt.h"

namespace rocpd::analysis {

struct CollectiveRow {
  int64_t rowid = 0;  // the op's rocpd_ops rowid
  Cell pid, gpu, queue, stream, op_id, name;
  int64_t start = 0, end = 0;
  uint32_t participant = 0;  // index into JobCollectives::participants
  uint32_t family = 0;       // index into JobCollectives::families
  MatchedCollective match;
};

struct MemberCollectives {
  CellStore cells;
  std::vector<CollectiveRow> rows;  // in start order (then rowid)
};

// A member's collectives as read, families and participants numbered within the member.
struct MemberCollectivesRead {
  MemberCollectives collectives;
  std::vector<std::string> families;  // member-local family ids
  std::vector<uint32_t> local_family;  // per row
  std::vector<uint32_t> local_participant;  // per row
  std::vector<GpuKey> participant_pid;  // per member-local participant
};

// The stash tag (members::Registry::stash) of a MemberCollectivesRead read for a later
// rocpd_collectives pass.
inline constexpr const char* kCollectivesStash = "collectives";

// `profile`: the member's, when its format needs one for the pid (else null: a lookup per op).
// Errors name `table`.
MemberCollectivesRead read_member_collectives(const canonical::Member& m, sqlite3* conn,
                                              const members::InterruptWatch& watch,
                                              const canonical::Profile* profile, const char* table);

}  // namespace rocpd::analysis
