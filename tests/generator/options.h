// Command line of rocpd_gen (a contract: tests, fixtures, demo and bench call it).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocpd_gen {

enum class Format { Rpd2, Rpd3, Rocpd, Rocpd4, Rocprofsys, Mixed, Nsys, Kineto, Vendors };

struct Options {
  std::string out;
  int procs = 0;
  Format format = Format::Rpd2;
  std::string format_name;  // as given: rpd2 | rpd3 | rocpd | rocpd4 | rocprofsys | mixed | nsys | kineto | vendors
  int64_t ops = 0;
  uint64_t seed = 0;
  int gpus = 4;
  int queues = 2;
  int sessions = 1;
  int64_t apis_extra = -1;  // -1: ops / 4
  int64_t markers = -1;     // -1: ops / 50
  // rocpd layout: "" (not given) or "3" = the generator's original schema-3 layout; "3.0.0" ..
  // "3.0.5" = rocprofv3's layout of that revision (see docs/generator.md).
  std::string rocpd_version;
  int rocpd_patch = -1;     // -1: the original layout; else the 3.0.x revision
  int counters = 0;         // performance counters per kernel dispatch (rocpd files)
  int rpd_counters = 0;     // counters per kernel op in rpd schema 3 files (rocpd_counter)
  int merge = 0;            // 0: one file per process; K: K consecutive processes per merged<j>.db
  int rpd_nodes = 0;        // 0: hostnames node<rank/2>, no encoding; N: rank on node rank % N
  int64_t host_skew = 0;    // ns; 0: one clock for every rank, no final collective
  bool diagnosis = false;   // --diagnosis 1: host stalls, event waits, helper-thread ranges (docs/generator.md)
  int memsets = 0;          // cudaMemsetAsync calls and memsets per process in nsys files
  // --nsys-schema Y: the export schema generation of nsys files, by the Nsight Systems year that
  // writes it: 2022 (2.9.1), 2023 (3.4.0), 2025 (3.20.3), 2026 (3.25.0, the default).
  int nsys_schema = 2026;
  // --kineto-version V: kineto files as PyTorch V's profiler writes them ("": the original layout).
  std::string kineto_version;
  bool diagnosis_edges = false;  // --diagnosis 2: also touching ops and host waits below the threshold
  // --steps N (docs/generator.md, "Training steps"): ProfilerStep#k ranges with collectives every
  // rank issues in one order; a planted straggler (--straggler RANK:NS) and clock jitter.
  int steps = 0;
  int step_collectives = 4;     // --step-collectives C
  int64_t collective_jitter = 1'000;  // --collective-jitter NS
  int straggler_rank = -1;      // --straggler RANK:NS
  int64_t straggler_delay = 0;
  int straggler_pct = 50;       // --straggler RANK:NS:PCT: the share of steps straggled
  // --critical-path SHAPE (docs/generator.md, "Critical path shapes"): steps whose critical path is
  // known by construction, instead of the canonical workload; --loader RANK:NS for the loader shape.
  std::string critical_path;  // "" | a shape of critical_shapes.h
  int loader_rank = -1;
  int64_t loader_ns = 0;
  int queue_depth = 0;   // --queue-depth (queue shape; 0: not given, then 8)
  int64_t gemm_ns = 0;   // --gemm (queue, event, event_untraced, copy; 0: not given, then 200 us)
  bool help = false;
};

// A bad command line; what() is the message shown after "rocpd_gen: ".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Options parse_options(const std::vector<std::string_view>& args);
std::string_view usage_text();

// The node (host) of a rank: rank % rpd_nodes with --rpd-nodes, else rank / 2.
int rank_node(const Options& options, int rank);

// The format of file i: the requested one, [rpd2, rpd3, rocpd][i % 3] for mixed, or
// [rpd2, rocpd, nsys, kineto][i % 4] for vendors.
Format file_format(const Options& options, int rank);

}  // namespace rocpd_gen
