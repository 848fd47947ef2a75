// rocpd_version() / rocpd_build_info(): what this build of librocpd_ext is made of
// (no SQLite here; the SQL wrappers are in build_info_sql.cpp).
#pragma once
#include <string>
#include <string_view>

namespace rocpd::names {

// The project version ("0.1.0").
const char* rocpd_version_string() noexcept;

// One JSON object: {"version", "demangler" ("llvm-19" | "cxa"), "llvm", "zstd", "fmt",
// "sqlite_compiled", "sqlite_runtime", "compiler", "sanitize", "capabilities", "name_cache_capacity"}.
std::string build_info_json(std::string_view sqlite_compiled, std::string_view sqlite_runtime);

}  // namespace rocpd::names
