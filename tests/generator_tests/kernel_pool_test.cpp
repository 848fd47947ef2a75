// The kernel name pool: realistic, unique, and every mangled name really demangles (with LLVM's
// demangler, the one llvm-cxxfilt-19 uses) to the readable form the rocpd files store.
#include <gtest/gtest.h>

#include <llvm/Demangle/Demangle.h>

#include <set>
#include <string>

#include "kernel_pool.h"

namespace rocpd_gen {
namespace {

TEST(GenKernelPool, HasAtLeastSixtyUniqueNames) {
  const auto pool = kernel_pool();
  EXPECT_GE(pool.size(), 60u);
  std::set<std::string_view> names;
  for (const KernelInfo& k : pool) EXPECT_TRUE(names.insert(k.name).second) << "duplicate " << k.name;
}

TEST(GenKernelPool, MangledNamesDemangleToTheirDisplayForm) {
  for (const KernelInfo& k : kernel_pool()) {
    if (k.family != KernelFamily::Mangled) {
      EXPECT_TRUE(k.demangled.empty()) << k.name;
      EXPECT_FALSE(k.name.starts_with("_Z")) << k.name;
      EXPECT_EQ(k.display(), k.name);
      continue;
    }
    ASSERT_TRUE(k.name.starts_with("_Z")) << k.name;
    const std::string demangled = llvm::demangle(std::string(k.name));
    EXPECT_NE(demangled, k.name) << "does not demangle: " << k.name;
    EXPECT_EQ(demangled, k.demangled) << k.name;
    EXPECT_EQ(k.display(), k.demangled);
  }
}

// The manglings a demangler is most likely to get wrong are all represented.
TEST(GenKernelPool, CoversTheHardManglings) {
  auto count = [](auto predicate) {
    int n = 0;
    for (const KernelInfo& k : kernel_pool()) n += predicate(k) ? 1 : 0;
    return n;
  };
  auto mangled_with = [&](std::string_view fragment) {
    return count([&](const KernelInfo& k) {
      return k.family == KernelFamily::Mangled && k.name.find(fragment) != std::string_view::npos;
    });
  };
  EXPECT_GE(mangled_with("UlvE_"), 2) << "lambdas";
  EXPECT_GE(count([](const KernelInfo& k) { return k.name.starts_with("_ZZ"); }), 1) << "local entities";
  EXPECT_GE(mangled_with("_GLOBAL__N_"), 2) << "anonymous namespaces";
  EXPECT_GE(mangled_with("B5cxx11"), 1) << "ABI tags";
  EXPECT_GE(mangled_with("Tn"), 2) << "C++20 non-type template parameters";
  EXPECT_GE(mangled_with("_ZN4vllm"), 4) << "vLLM kernels";
  EXPECT_GE(count([](const KernelInfo& k) { return k.family == KernelFamily::Mangled; }), 20);
  EXPECT_GE(count([](const KernelInfo& k) { return k.family == KernelFamily::Demangled; }), 8);
  EXPECT_GE(count([](const KernelInfo& k) { return k.name.starts_with("Cijk_"); }), 5) << "Tensile";
  EXPECT_GE(count([](const KernelInfo& k) { return k.name.starts_with("ncclDevKernel_"); }), 5) << "NCCL";
  EXPECT_GE(count([](const KernelInfo& k) { return k.name.starts_with("triton_"); }), 5) << "Triton";
}

TEST(GenKernelPool, LaunchApisMatchTheFamilies) {
  for (const KernelInfo& k : kernel_pool()) {
    EXPECT_GT(k.base_ns, 0) << k.name;
    if (k.family == KernelFamily::Tensile) EXPECT_EQ(k.launch_api, HostApi::HipExtModuleLaunchKernel) << k.name;
    else if (k.family == KernelFamily::Triton) EXPECT_EQ(k.launch_api, HostApi::HipModuleLaunchKernel) << k.name;
    else EXPECT_EQ(k.launch_api, HostApi::HipLaunchKernel) << k.name;
  }
}

}  // namespace
}  // namespace rocpd_gen
