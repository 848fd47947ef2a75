// The dependency graph of one member (docs/critical_path.md), built on a leased member connection
// (any core) from one read of its API calls and ranges and one of its ops:
//
//   - each CPU thread is a chain of the start and end points of its ranges and API calls in time
//     order (nesting and same-thread sequence): the time between two points is spent in the
//     innermost range or call open there, or idle;
//   - a launch call's start -> its ops' starts (correlation id, docs/diagnosis.md's launch rule);
//   - the end of the op ahead on the same (gpu, queue, stream) -> an op's start (stream order);
//   - an op's end -> the end of a call that waited for it: a call whose own op ends inside it
//     (synchronous copies), a *Synchronize* call for the last op launched before it on each
//     lane of its process that ends inside it, and a call that blocked until the GPU released it
//     (launch back-pressure), inferred from the timing (gpu_waits.h);
//   - an op's end -> the start of an op made to wait for it on another stream (stream waits:
//     recorded, or inferred from the timing, stream_waits.h);
//   - an op's start -> its end (its duration).
//
// Collectives (the kernels rocpd_collectives matches) are cut at their end: the job level decides
// it from every participant's arrival once every member is read (job_paths.h). Every edge carries the
// least time it takes (min_lag); of a node's predecessors the one ready last binds it, and its
// edge takes the measured time. Recomputing the longest path with the measured lags reproduces
// every measured time, which the path walks (member_paths.h, job_paths.h) and the what-if
// (rocpd_what_if.cpp) rely on.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/big_alloc.h"
#include "analysis/cell_store.h"
#include "analysis/strings.h"
#include "members/interrupt.h"
#include "members/registry.h"

namespace rocpd::critical_path {

using analysis::Cell;
using analysis::CellStore;
using analysis::Strings;

using analysis::Cell;
using analysis::CellStore;
using analysis::Strings;

// The kinds of a path segment (column `kind` of rocpd_critical_path).
enum class Kind : uint8_t { CpuOp, Launch, Kernel, Copy, SyncWait, CollectiveWait, IdleGap, GpuWait, StreamWait };
inline constexpr int kKinds = 9;
const char* kind_name(Kind k);

// Sync: into the end of a *Synchronize* call; GpuWait: into the end of another call that waited for
// an op; StreamWait: from an op's end to the start of an op of another stream that waited for it.
enum class EdgeClass : uint8_t { Chain, Launch, Stream, Sync, Duration, GpuWait, StreamWait };

inline constexpr uint32_t kNone = UINT32_MAX;

// The what-if's times and lags saturate here (2^62 ns, 146 years): a prediction that reaches it is
// refused (job_paths.h) rather than wrapped around. Measured times lie within (-2^62, 2^62).
inline constexpr int64_t kTimeLimit = int64_t{1} << 62;
// a + b for b in [0, kTimeLimit], a in [-kTimeLimit, kTimeLimit]: at most kTimeLimit.
inline int64_t saturated_add(int64_t a, int64_t b) { return a > kTimeLimit - b ? kTimeLimit : a + b; }
// The lag d x factor, rounded, at most kTimeLimit.
inline int64_t scaled_lag(int64_t d, double factor) {
  const double x = std::round(static_cast<double>(d) * factor);
  return x >= static_cast<double>(kTimeLimit) ? kTimeLimit : static_cast<int64_t>(x);
}

// Where a segment ran: a thread (pid, tid), a lane (pid, gpu, queue, stream), or both (a launch).
struct Place {
  Cell pid, tid, gpu, queue, stream;
};

// 16 bytes: a member keeps one per edge while its graph lives (about 1.5 a node). What the edge
// belongs to (its owner) follows from its class and nodes (Graph::owner). A least time is kept up
// to 2^56 - 1 ns (2.3 years; more is taken as that: an edge may take longer, never less).
class Edge {
 public:
  uint32_t u = 0;  // the predecessor node
  uint32_t v = 0;  // the node

  Edge() = default;
  Edge(uint32_t from, uint32_t to, int64_t min_lag, EdgeClass cls, bool scaled, bool inferred)
      : u(from), v(to),
        bits_(static_cast<uint64_t>(std::min(min_lag, kMaxLag)) | static_cast<uint64_t>(cls) << 56 |
              uint64_t{scaled} << 59 | uint64_t{1} << 60 | uint64_t{inferred} << 61) {}
  int64_t min_lag() const { return static_cast<int64_t>(bits_ & static_cast<uint64_t>(kMaxLag)); }
  EdgeClass cls() const { return static_cast<EdgeClass>((bits_ >> 56) & 7); }
  bool scaled() const { return (bits_ >> 59) & 1; }  // the what-if's factor applies to its lag
  bool live() const { return (bits_ >> 60) & 1; }    // false: dropped (it would close a cycle between nodes of one instant)
  bool inferred() const { return (bits_ >> 61) & 1; }  // made from the timing alone (gpu_waits.h, stream_waits.h)
  void drop() { bits_ &= ~(uint64_t{1} << 60); }
  uint64_t bits() const { return bits_; }

 private:
  static constexpr int64_t kMaxLag = (int64_t{1} << 56) - 1;
  uint64_t bits_ = 0;
};

enum class CpuType : uint8_t { Range, Launch, Sync, Other };

struct CpuEvent {
  int64_t start = 0, end = 0;
  uint32_t thread = 0;  // index into Graph::threads (its own, for places)
  uint32_t name = kNone;
  CpuType type = CpuType::Other;
  bool scaled = false;
};

struct GpuOp {
  int64_t start = 0, end = 0;
  uint32_t lane = 0;
  uint32_t name = kNone;
  int32_t call = -1;         // index of its launch call in Graph::cpu, or -1
  int32_t collective = -1;   // its index in Graph::collectives (its end is cut), or -1
  Kind kind = Kind::Kernel;  // Kernel, Copy or CollectiveWait
  bool scaled = false;
};

// A step range of a member process (its n-th range whose name is LIKE the pattern).
struct MemberStep {
  uint32_t proc = 0;
  int64_t index = 0, start = 0, end = 0;
  uint32_t name = kNone;
  uint32_t place = 0;  // its thread
  uint32_t end_node = 0;
  int64_t inferred = 0;  // edges inferred from the timing into its process's nodes inside it
};

// A collective of the member: a kernel rocpd_collectives counts (docs/ranks.md), with what the job
// level matches it by.
struct MemberCollective {
  int64_t rowid = 0, start = 0, end = 0;
  Cell pid, gpu;
  uint32_t family = 0;  // index into Graph::families
  int32_t op = -1;      // its op in the graph (-1: it ends before it starts, no place in time)
};

struct GraphRequest {
  std::string step_pattern;
  std::optional<std::string> scale_pattern;  // the what-if's name pattern
};

struct Graph {
  CellStore cells;
  Strings names;
  std::vector<Cell> proc_pid;                   // per process
  std::vector<std::pair<uint32_t, Cell>> threads;  // per thread: process, tid
  std::vector<std::pair<uint32_t, std::array<Cell, 3>>> lanes;  // per lane: process, gpu, queue, stream
  BigVector<CpuEvent> cpu;
  BigVector<GpuOp> ops;
  std::vector<MemberStep> steps;  // per process in start order
  // Nodes: CPU event e has 2e (start) and 2e+1 (end); op o has base + 2o and base + 2o + 1. A
  // node's time, process and cut come from its event or op (no array per node but these three).
  BigVector<uint32_t> pred_begin;   // CSR: preds of node v are preds[pred_begin[v] .. pred_begin[v+1])
  BigVector<Edge> preds;            // by v
  BigVector<int32_t> bind;          // per node: index into preds of its binding edge, -1 for a root
  BigVector<uint32_t> chain_owner;  // per CPU node: the innermost CPU event open before it (kNone: idle)
  BigVector<uint32_t> order;        // a topological order (by time, then fixed within an instant)
  std::vector<MemberCollective> collectives;  // in read order
  std::vector<std::string> families;          // member-local family ids
  std::vector<int32_t> arrival;     // per collective: its start node, -1 without one

  uint32_t op_base() const { return static_cast<uint32_t>(2 * cpu.size()); }
  uint32_t op_start(size_t o) const { return op_base() + static_cast<uint32_t>(2 * o); }
  bool is_op_node(uint32_t v) const { return v >= op_base(); }
  size_t nodes() const { return 2 * cpu.size() + 2 * ops.size(); }
  int64_t time(uint32_t v) const {
    if (v < op_base()) return v & 1 ? cpu[v >> 1].end : cpu[v >> 1].start;
    const GpuOp& op = ops[(v - op_base()) >> 1];
    return v & 1 ? op.end : op.start;
  }
  uint32_t proc_of(uint32_t v) const {
    return v < op_base() ? threads[cpu[v >> 1].thread].first : lanes[ops[(v - op_base()) >> 1].lane].first;
  }
  // What edge e belongs to: Chain: the innermost open CPU event (kNone: idle); Launch, Sync, GpuWait:
  // the call; Stream: the lane; Duration, StreamWait: the op (the one waiting).
  uint32_t owner(const Edge& e) const {
    switch (e.cls()) {
      case EdgeClass::Chain: return chain_owner[e.v];
      case EdgeClass::Launch: return e.u / 2;
      case EdgeClass::Sync:
      case EdgeClass::GpuWait: return e.v / 2;
      case EdgeClass::Stream: return ops[(e.v - op_base()) / 2].lane;
      case EdgeClass::Duration:
      case EdgeClass::StreamWait: return (e.v - op_base()) / 2;
    }
    return kNone;
  }
  // The collective whose end node v is (decided across members), else -1.
  int32_t cut(uint32_t v) const { return v >= op_base() && (v & 1) ? ops[(v - op_base()) >> 1].collective : -1; }
  // The lag of pred edge i into v: the measured difference when it binds v, else its min_lag;
  // times `factor` when the edge is scaled (at most kTimeLimit).
  int64_t lag(uint32_t v, uint32_t i, double factor) const;
};

// Reads member `m` and builds its graph. Errors name `table` and the member. `host_thread`: the
// caller runs on the host connection's thread (it then polls `watch` itself for an interrupt).
Graph build_graph(const canonical::Member& m, sqlite3* conn, const GraphRequest& request,
                  members::InterruptWatch& watch, bool host_thread, const canonical::Profile* profile,
                  const char* table);

}  // namespace rocpd::critical_path
