// What the job level keeps of one member's graph (member_graph.h), which is freed after: its step
// ranges and collectives, the stretches of its binding chains that paths may run through (walked
// back from every step's end and every collective's arrival to the previous collective's end), and
// for the what-if
// each step's longest-path lengths between the points other members' collectives connect.
#pragma once
#include <cstdint>
#include <tuple>
#include <vector>

#include "critical_path/member_graph.h"

namespace rocpd::critical_path {

using analysis::CellStore;
using analysis::Strings;

// What a stretch of a path is: its kind, place and name; for a wait, the op it waited for and
// whether that edge was inferred from the timing.
struct Attribution {
  Kind kind = Kind::IdleGap;
  uint32_t place = 0;
  uint32_t name = kNone;
  uint32_t waited = kNone;
  bool inferred = false;
  auto key() const { return std::tuple(kind, place, name, waited, inferred); }
};

// The segment into a node of a chain, toward the past: it ends at `to` and starts where the entry
// before ends (`next` >= 0), at the end of collective -2 - next (decided across members), or, for
// `next` = -1, nothing is known before `to` (a root, or the walk's limit). 16 bytes: a member keeps
// one per node its chains pass.
struct Entry {
  int64_t to = 0;
  int32_t next = -1;
  uint32_t attribution = 0;  // index into MemberPaths::attributions
};

inline constexpr int64_t kNeg = INT64_MIN;  // an unreached node (longest paths)

// The longest-path lengths of one step window (its process's nodes between the step's start and
// end) between its inputs (ends of matched collectives inside it, decided across members) and
// outputs (arrivals of matched collectives inside it, then the step's end).
struct StepMatrix {
  std::vector<uint32_t> inputs, outputs;  // collective rows
  std::vector<int64_t> base;  // per output and the end: the time from fixed sources only (kNeg: none)
  std::vector<int64_t> d;     // (outputs + 1) x inputs: the longest path from an input (kNeg: none)
  int64_t matches = 0;        // ops, ranges and calls of the window whose name matched
};

struct MemberPaths {
  CellStore cells;
  Strings names;
  std::vector<Place> places;
  std::vector<MemberStep> steps;
  std::vector<int32_t> step_entry;  // per step: the entry of its end (-1 unless walked)
  std::vector<Entry> entries;
  std::vector<Attribution> attributions;
  std::vector<MemberCollective> collectives;  // as the graph read them
  std::vector<std::string> families;
  std::vector<int32_t> arrival_entry;  // per collective: its arrival's entry (-1 without one)
  std::vector<uint32_t> collective_place, collective_name;  // per collective (kNone: no op in the graph)
  std::vector<uint8_t> collective_scaled;

  // Where the segment of entry e starts (INT64_MIN: nothing known before it).
  int64_t from(const Entry& e) const {
    if (e.next >= 0) return entries[static_cast<size_t>(e.next)].to;
    if (e.next == -1) return INT64_MIN;
    return collectives[static_cast<size_t>(-2 - e.next)].end;
  }
  std::vector<StepMatrix> matrices;  // per step, for the what-if (empty otherwise)
};

struct PathsRequest {
  bool walk = true;                    // the chains from every step's end and collective's arrival
  bool matrices = false;               // the what-if's step matrices
  double factor = 1.0;
};

// Consumes `g`. `host_thread` as for build_graph.
MemberPaths member_paths(Graph&& g, const PathsRequest& request, members::InterruptWatch& watch, bool host_thread);

}  // namespace rocpd::critical_path
