// The family of a collective kernel: what tells a rank's streams of collectives apart when
// rocpd_collectives matches them across members (docs/ranks.md, "Matching").
#pragma once
#include <string>
#include <string_view>

namespace rocpd::analysis {

// From the kernel name (any case, mangled or not, read up to its first NUL):
//   ncclDevKernel_<Op>_..., ncclKernel_<Op>_...  -> <Op>        (AllReduce, AllGather, SendRecv, Generic...)
//   any other name holding nccl, rccl or cross_device_reduce (as rocpd_comm_classes finds them)
//                                                -> the identifier that starts there
//                                                   (rcclGenericKernel, cross_device_reduce_2stage)
// An empty name gives "".
std::string collective_family(std::string_view name);

}  // namespace rocpd::analysis
