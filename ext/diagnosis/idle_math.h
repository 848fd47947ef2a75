// Idle time of a gpu (or one queue) split by cause (no SQLite here; unit-tested against a brute
// force in tests/diagnosis/diagnosis_math_test.cpp). Definitions: docs/diagnosis.md.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

namespace rocpd::diagnosis {

inline constexpr int64_t kNoLaunch = std::numeric_limits<int64_t>::min();

struct IdleOp {
  int64_t start = 0, end = 0;
  int64_t launch = kNoLaunch;  // start of the API call that issued the op; kNoLaunch when unknown
};

struct IdleTotals {
  int64_t ops = 0;   // ops given (before clipping)
  int64_t gaps = 0;
  int64_t idle_ns = 0, host_wait_ns = 0, kernel_wait_ns = 0, other_ns = 0;
  int64_t busy_ns = 0;
};

// Clips every op to [lo, hi), drops empty ones, merges the rest (touching intervals merge) and
// classifies each gap [a, b) between consecutive busy intervals by the ops starting at b:
//   host wait   the earliest known launch among them began after a (strictly), as HTA's
//               "kernel's runtime started after the previous kernel's end";
//   kernel wait otherwise, when b - a < kernel_wait_ns (strictly) and a launch is known;
//   other       the rest (also when no op starting at b has a known launch).
// Sorts `ops` in place. Throws rocpd::Error when a sum does not fit an int64 (`table` names it).
IdleTotals classify_gaps(std::vector<IdleOp>& ops, int64_t kernel_wait_ns, int64_t lo, int64_t hi, const char* table);

}  // namespace rocpd::diagnosis
