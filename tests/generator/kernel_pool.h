// The kernel names the generator draws from: realistic spellings of what AMD GPU traces contain.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "host_api.h"

namespace rocpd_gen {

enum class KernelFamily : uint8_t {
  Mangled,    // Itanium-mangled C++ (templates, lambdas, anonymous namespaces, ABI tags, C++20 Tn)
  Demangled,  // already demangled C++ (what rpd tracers store after demangling)
  Tensile,    // rocBLAS/hipBLASLt Tensile GEMM kernels
  Nccl,       // RCCL collectives
  Triton,     // Triton / torch.compile kernels
  Runtime,    // HIP runtime blit kernels
};

struct KernelInfo {
  KernelFamily family;
  HostApi launch_api;  // the API that launches this kind of kernel
  int64_t base_ns;     // typical duration; each execution varies around it
  std::string_view name;
  std::string_view demangled;  // empty when name is not mangled

  // A readable form (rocpd's display_name): the demangled name for mangled input.
  std::string_view display() const { return demangled.empty() ? name : demangled; }
};

// Every mangled name of the pool demangles with llvm-cxxfilt to its `demangled` text
// (checked by tests/generator_tests).
std::span<const KernelInfo> kernel_pool();

}  // namespace rocpd_gen
