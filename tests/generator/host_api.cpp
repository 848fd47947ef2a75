#include "host_api.h"

namespace rocpd_gen {

std::string_view host_api_name(HostApi api) {
  switch (api) {
    case HostApi::HipLaunchKernel: return "hipLaunchKernel";
    case HostApi::HipModuleLaunchKernel: return "hipModuleLaunchKernel";
    case HostApi::HipExtModuleLaunchKernel: return "hipExtModuleLaunchKernel";
    case HostApi::HipMemcpyAsync: return "hipMemcpyAsync";
    case HostApi::HipMemcpy: return "hipMemcpy";
    case HostApi::HipStreamSynchronize: return "hipStreamSynchronize";
    case HostApi::HipDeviceSynchronize: return "hipDeviceSynchronize";
    case HostApi::HipEventRecord: return "hipEventRecord";
    case HostApi::HipEventSynchronize: return "hipEventSynchronize";
    case HostApi::HipStreamWaitEvent: return "hipStreamWaitEvent";
    case HostApi::HipGetDevice: return "hipGetDevice";
    case HostApi::HipSetDevice: return "hipSetDevice";
    case HostApi::HipMalloc: return "hipMalloc";
    case HostApi::HipFree: return "hipFree";
    case HostApi::HipGetLastError: return "hipGetLastError";
    case HostApi::HipPointerGetAttributes: return "hipPointerGetAttributes";
    case HostApi::UserMarker: return "UserMarker";
    case HostApi::HipGraphLaunch: return "hipGraphLaunch";
  }
  return "";
}

}  // namespace rocpd_gen
