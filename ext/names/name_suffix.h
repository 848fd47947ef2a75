// Recognising mangled names and the suffixes tracers and compilers append to them.
#pragma once
#include <string_view>

namespace rocpd::names {

// Removes one trailing kernel-descriptor suffix: ".kd" (the symbol of the kernel's descriptor,
// which HIP tracers report), " [clone .kd]" (GCC's spelling after demangling) or " (.kd)"
// (LLVM's spelling). Other input is returned as is.
std::string_view strip_descriptor_suffix(std::string_view name) noexcept;

// True for Itanium C++ manglings: "_Z..." and the block forms "___Z..." / "____Z...", the
// prefixes llvm-cxxfilt accepts. Rust ("_R"), D ("_D") and MSVC ("?") manglings are not
// GPU kernel names and are left alone; so is anything containing a NUL byte.
bool is_itanium_mangled(std::string_view name) noexcept;

}  // namespace rocpd::names
