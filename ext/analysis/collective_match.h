// Matching collectives across ranks (docs/ranks.md, "Matching"), without SQLite: every rank
// issues the collectives of one family in the same order, so the n-th collective of a family on
// one participant (a member's process and gpu) is the n-th on every other. Participants that
// disagree on the count are matched on the common prefix; the instances beyond it stay unmatched
// (reported, never shifted onto the next one).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rocpd::analysis {

struct Collective {
  uint32_t participant = 0;  // dense id of (member, pid, gpu)
  uint32_t family = 0;       // dense id of the family (collective_family.h)
  int64_t start = 0, end = 0;
  int64_t tiebreak = 0;      // orders collectives of a participant that start together (the op's rowid)
};

struct MatchedCollective {
  int64_t instance = 0;        // position among its participant's collectives of its family (from 0)
  int64_t family_count = 0;    // collectives of its participant and family
  int64_t matched_count = 0;   // the family's common prefix: its fewest collectives on one participant
  // The rest only for instance < matched_count (nullopt beyond: unmatched).
  std::optional<int64_t> participants;  // participants of the family
  std::optional<int64_t> arrival;       // 1 + participants that started strictly earlier
  std::optional<int64_t> late_ns;       // start - the instance's first start
  std::optional<int64_t> wait_ns;       // the instance's last start - start
  std::optional<int64_t> caused_wait_ns;  // when it arrived last: the others' wait_ns summed; else 0
};

// out[i] describes in[i]. A difference or sum beyond int64 is an error (rocpd::Error naming
// `table`), never a wrapped number. `poll` (may be empty) is called now and then and may throw to stop.
std::vector<MatchedCollective> match_collectives(std::span<const Collective> in, const char* table,
                                                 void (*poll)(const void*) = nullptr, const void* poll_arg = nullptr);

}  // namespace rocpd::analysis
