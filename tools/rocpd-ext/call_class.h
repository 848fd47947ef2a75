// What a row of rocpd_apis is (docs/cli.md, "Which calls are API calls"): a runtime or driver
// call, or one of the rows that are no API call: markers (NVTX, roctx, PyTorch operators), calls
// drawn on a GPU's row (Kineto's gpu_user_annotation and cuda_sync events), the profiler's own
// bookkeeping, and other ranges. `summary` lists the first in `apis`, the others in `other_calls`;
// `compare` pairs only the first.
#pragma once
#include <string>
#include <string_view>

namespace rocpd_cli {

enum class CallClass { Api, Marker, Annotation, Profiler, Other };

// By domain first (marker; gpu_annotation and cuda_sync; the runtime and driver domains), then by
// name: the tracers' own calls (rpdflush, *::writeRows, hcc_activity_callback, run_to_completion)
// and the runtime and driver prefixes (hip, hsa_, cuda, cu + capital, nccl, rccl, ...).
CallClass call_class(std::string_view domain, std::string_view name);
// "api", "marker", "annotation", "profiler", "other"
const char* call_class_name(CallClass c);

}  // namespace rocpd_cli
