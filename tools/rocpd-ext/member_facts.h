// What the members say about the run that wrote them, beyond the canonical tables: the GPUs'
// names, the world size, the driver and runtime versions, the profiler. Each format keeps these in
// tables of its own, read through rocpd_union's named form (docs/federation.md):
//   kineto  kineto_devices.name; kineto_metadata: import.world_size and the *_version tags
//   any     rocpd_members.gpu_names (nsys: TARGET_INFO_GPU)
//   nsys    TARGET_INFO_SYSTEM_ENV: NvDriverVersion, CudaDriverVersion;
//           META_DATA_EXPORT: EXPORT_PRODUCT_VERSION (the Nsight Systems release)
//   rocpd   rocpd_info_agent: product_name (else name) of the GPU agents
//   rpd     none of these
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "session.h"

namespace rocpd_cli {

struct MemberFacts {
  std::string db, format, version, uuid, run;
  std::set<std::string> devices;               // GPU names
  std::string world_size;                      // "" when the member does not say
  std::map<std::string, std::string> versions;  // "cuda driver" -> "580.95.05", ...
};

// One entry per member, in rocpd_members' order (natural).
std::vector<MemberFacts> read_member_facts(Session& session);

}  // namespace rocpd_cli
