// The second half of the Kineto import: what the events' file order could not settle, done in
// SQL over the tables the SAX pass filled (schema/kineto.sql). Launch links from flows, unique
// correlation ids, each op's process, cuda_profiler_range events matched to their launches as
// HTA's counter analysis matches them, counter values, distributedInfo and deviceProperties.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd::formats::kineto {

// Domains of calls drawn on a GPU's row (their pid is the device), not by a process: the import's
// count of calls per process, the link's SQL and the adapter's pid/tid all leave them out.
constexpr const char* kGpuSideDomains = "('gpu_annotation', 'cuda_sync')";
inline bool gpu_side_domain(std::string_view domain) { return domain == "gpu_annotation" || domain == "cuda_sync"; }

// Calls per process as the rows were stored (calls drawn on a GPU's row left out), so that the
// link need not group every call again; `overflow` when too many processes were seen to count.
struct ProcessCalls {
  std::map<int64_t, int64_t> calls;  // pid -> calls
  bool overflow = false;
};

struct LinkInput {
  int64_t events = 0;        // elements of traceEvents
  int64_t late_base_ns = 0;  // baseTimeNanoseconds when it came after traceEvents (times still relative)
  const ProcessCalls* processes = nullptr;  // null or overflowed: counted in SQL
};

// Before any row is stored: the lists of rows written without a correlation
// (temp.kineto_uncorrelated_ops and _calls, filled by RowWriter, dropped by link_trace).
void prepare_link(sqlite3* db, const std::string& label);

// Runs inside the import's transaction; returns the number of counter values stored. Throws
// Error naming `label`.
int64_t link_trace(sqlite3* db, const LinkInput& in, const std::string& label);

}  // namespace rocpd::formats::kineto
