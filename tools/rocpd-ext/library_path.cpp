#include "library_path.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "session.h"

namespace rocpd_cli {
namespace fs = std::filesystem;

namespace {
constexpr const char* kEnv = "ROCPD_EXT_LIBRARY";
constexpr const char* kName = "librocpd_ext.so";

fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}
}  // namespace

std::vector<std::string> library_candidates() {
  std::vector<std::string> out;
  fs::path dir = executable_dir();
  if (dir.empty()) return out;
  out.push_back((dir / kName).lexically_normal().string());
  // ROCPD_EXT_BIN_TO_LIB: the install's bin -> lib path (GNUInstallDirs), set by CMake.
  out.push_back((dir / ROCPD_EXT_BIN_TO_LIB / kName).lexically_normal().string());
  return out;
}

std::string find_library() {
  if (const char* env = std::getenv(kEnv); env && *env) {
    std::error_code ec;
    if (!fs::is_regular_file(env, ec)) throw CliError(std::string(kEnv) + "='" + env + "': no such file");
    return env;
  }
  std::string tried;
  for (const auto& c : library_candidates()) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
    tried += (tried.empty() ? "" : ", ") + c;
  }
  throw CliError(std::string("cannot find ") + kName + " (looked in: " + tried + "); set " + kEnv + " to its path");
}

}  // namespace rocpd_cli
