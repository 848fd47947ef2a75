// The demangler backends behind rocpd::names::demangle (no SQLite here).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace rocpd::names::detail {

// Demangles one Itanium mangled name with the configured backend (LLVM 19's parser and
// printer, or __cxa_demangle when LLVM was absent at build time). nullopt when the name is not
// a valid mangling, too long, or its output would exceed kMaxDemangleOutput.
std::optional<std::string> demangle_itanium(std::string_view mangled);

// Reference points for tests and benchmarks: the plain library calls, without the guards.
// llvm::itaniumDemangle from libLLVMDemangle.a (nullopt if not compiled in).
std::optional<std::string> demangle_with_llvm_library(std::string_view mangled);
// abi::__cxa_demangle from the C++ runtime (GCC's demangler).
std::optional<std::string> demangle_with_cxa(std::string_view mangled);

}  // namespace rocpd::names::detail
