#include "names/build_info.h"

#include <fmt/format.h>
#include <zstd.h>

#include "names/demangle.h"

#if ROCPD_HAVE_LLVM_DEMANGLE
#include <llvm/Config/llvm-config.h>
#endif

namespace rocpd::names {
namespace {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// ROCPD_CAPABILITY_LIST is the CMake list joined with ',' ("federation,names,...").
std::string json_list(std::string_view comma_separated) {
  std::string out = "[";
  std::size_t start = 0;
  while (start <= comma_separated.size() && !comma_separated.empty()) {
    std::size_t end = comma_separated.find(',', start);
    if (end == std::string_view::npos) end = comma_separated.size();
    if (out.size() > 1) out += ',';
    out += json_string(comma_separated.substr(start, end - start));
    start = end + 1;
  }
  return out + "]";
}

}  // namespace

const char* rocpd_version_string() noexcept { return ROCPD_VERSION; }

std::string build_info_json(std::string_view sqlite_compiled, std::string_view sqlite_runtime) {
#if ROCPD_HAVE_LLVM_DEMANGLE
  const std::string llvm = json_string(LLVM_VERSION_STRING);
#else
  const std::string llvm = "null";
#endif
#if defined(__clang__)
  const std::string compiler = fmt::format("clang {}", __clang_version__);
#else
  const std::string compiler = fmt::format("gcc {}", __VERSION__);
#endif
  return fmt::format(
      "{{\"version\":{},\"demangler\":{},\"llvm\":{},\"zstd\":{},\"fmt\":\"{}.{}.{}\","
      "\"sqlite_compiled\":{},\"sqlite_runtime\":{},\"compiler\":{},\"sanitize\":{},"
      "\"capabilities\":{},\"name_cache_capacity\":{}}}",
      json_string(ROCPD_VERSION), json_string(demangler_backend()), llvm, json_string(ZSTD_versionString()),
      FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100, json_string(sqlite_compiled),
      json_string(sqlite_runtime), json_string(compiler), ROCPD_SANITIZE_BUILD ? "true" : "false",
      json_list(ROCPD_CAPABILITY_LIST), kNameCacheCapacity);
}

}  // namespace rocpd::names
