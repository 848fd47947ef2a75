// What the job level keeps of one member's graph (member_graph.h), which is freed after: its step
// ranges, the stretches of its binding chains that paths may run through (walked back from every
// step's end and from the arrivals of the collectives other ranks wait for), and for the what-if
// each step's longest-path lengths between the points other members' collectives connect.
#pragma once
#include <cstdint>
#include <vector>

#include "critical_path/member_graph.h"

namespace rocpd::critical_path {

// The segment into a node of a chain, toward the past: [from, to) spent as `kind` at `place`.
struct Entry {
  int64_t from = 0, to = 0;  // from = INT64_MIN: nothing known before `to` (a root, or the walk's limit)
  int32_t next = -1;         // the entry before (>= 0); -1: none; <= -2: the end of collective row -2 - next
  uint32_t place = 0;
  uint32_t name = kNone;
  Kind kind = Kind::IdleGap;
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
  std::vector<int32_t> arrival_entry;  // per collective row: its arrival's entry (-1 unless walked)
  std::vector<uint32_t> collective_place, collective_name;  // per collective row (kNone: not read)
  std::vector<uint8_t> collective_scaled;
  std::vector<StepMatrix> matrices;  // per step, for the what-if (empty otherwise)
};

struct PathsRequest {
  std::vector<uint8_t> walk_arrivals;  // per collective row: walk back from its arrival
  bool walk = true;                    // the chains (rocpd_critical_path)
  bool matrices = false;               // the what-if's step matrices
  double factor = 1.0;
};

// Consumes `g`.
MemberPaths member_paths(Graph&& g, const PathsRequest& request, const federation::InterruptWatch& watch);

}  // namespace rocpd::critical_path
