// Kernel-name readability: C++ demangling and Nsight-style short names.
// Pure functions of their input; no SQLite here, so unit tests and other capabilities
// (rocpd_ops fills its `demangled` column with demangle_cached) link them directly.
// Behaviour, backend and examples: docs/names.md.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace rocpd::names {

// The demangled name of an Itanium-mangled C++ symbol (`_Z...`), without the kernel-descriptor
// suffix tracers keep (`.kd`, ` [clone .kd]`, ` (.kd)`). Any other input (Tensile `Cijk_...`,
// Triton and C names, names already demangled, broken manglings, inputs longer than
// kMaxDemangleInput) comes back unchanged, except that a trailing kernel-descriptor suffix is
// removed from names that are not mangled too. Never throws except std::bad_alloc.
std::string demangle(std::string_view name);

// The base function name (no return type, namespaces, template arguments, parameters or
// suffixes), from mangled and already-demangled input alike: "elementwise_kernel".
// Operators and lambda call operators keep their class / enclosing function (see docs).
// Input that is not a C++ function name comes back without its kernel-descriptor suffix.
std::string kernel_short_name(std::string_view name);

// Same results through a process-wide bounded cache (kNameCacheCapacity entries per
// function, keyed by the input bytes); safe to call from several threads at once.
std::string demangle_cached(std::string_view name);
std::string kernel_short_name_cached(std::string_view name);

// Mangled inputs longer than this are returned unchanged (no real kernel name comes close;
// it bounds the demangler's recursion and memory).
inline constexpr std::size_t kMaxDemangleInput = 64 * 1024;
// Demangled output estimated above this size (a "demangling bomb": back-references that
// expand exponentially) is refused and the input returned unchanged.
inline constexpr std::size_t kMaxDemangleOutput = 1024 * 1024;
// kernel_short_name() does not read declarations longer than this (no kernel name comes close):
// they come back as text that is not a declaration does.
inline constexpr std::size_t kMaxShortNameInput = 1024 * 1024;
// Entries per cache (demangle and kernel_short_name each have one).
inline constexpr std::size_t kNameCacheCapacity = 4096;

// "llvm-19" when LLVM's demangler was compiled in, "cxa" for the __cxa_demangle fallback.
const char* demangler_backend() noexcept;

}  // namespace rocpd::names
