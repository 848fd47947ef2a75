// The CPU-side calls the generator emits, with the names the tracers record for them.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocpd_gen {

enum class HostApi : uint8_t {
  HipLaunchKernel,
  HipModuleLaunchKernel,
  HipExtModuleLaunchKernel,
  HipMemcpyAsync,
  HipMemcpy,
  HipStreamSynchronize,
  HipDeviceSynchronize,
  HipEventRecord,
  HipEventSynchronize,
  HipStreamWaitEvent,
  HipGetDevice,
  HipSetDevice,
  HipMalloc,
  HipFree,
  HipGetLastError,
  HipPointerGetAttributes,
  UserMarker,  // a roctx range or mark; its message is the marker text
  HipGraphLaunch,  // launches the ops of one graph exec (only with graph launches enabled)
};

// The API name as both rpd (rocpd_api.apiName) and rocpd (rocpd_region name) spell it.
std::string_view host_api_name(HostApi api);

}  // namespace rocpd_gen
