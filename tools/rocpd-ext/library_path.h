// Where the tool finds librocpd_ext.so: $ROCPD_EXT_LIBRARY when set, else beside the executable
// (the build tree puts both in build/) or in the library directory of its install prefix.
#pragma once
#include <string>
#include <vector>

namespace rocpd_cli {

// The places searched without $ROCPD_EXT_LIBRARY, in order.
std::vector<std::string> library_candidates();
// The library to load; throws CliError naming every place looked at when none exists.
std::string find_library();

}  // namespace rocpd_cli
