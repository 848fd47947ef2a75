// Fuzz target: any bytes as a kernel name for rocpd::names::kernel_short_name (demangling, then
// the iterative declaration reader). Checks, besides the absence of crashes, hangs and leaks:
// the cached and uncached results agree, a non-empty name never gets an empty short name, and
// the short name of the demangled text equals that of the mangled name whenever the demangled
// text is itself plain (not starting with "_Z", which would be demangled again). The same bytes go
// through rocpd::names::display_name: at most kDisplayNameMax bytes, cached = uncached, non-empty
// in gives non-empty out.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "names/demangle.h"
#include "names/display_name.h"
#include "names/name_suffix.h"

namespace names = rocpd::names;
using rocpd::fuzz::fuzz_check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const std::string short_name = names::kernel_short_name(name);
  fuzz_check(short_name == names::kernel_short_name_cached(name), "kernel_short_name_cached differs");
  fuzz_check(name.empty() || !short_name.empty(), "a non-empty name got an empty short name");
  if (names::is_itanium_mangled(names::strip_descriptor_suffix(name))) {
    const std::string demangled = names::demangle(name);
    if (demangled != name && !names::is_itanium_mangled(names::strip_descriptor_suffix(demangled))) {
      fuzz_check(names::kernel_short_name(demangled) == short_name,
                 "mangled and demangled spellings get different short names");
    }
  }
  const std::string shown = names::display_name(name);
  fuzz_check(shown.size() <= names::kDisplayNameMax, "a display name longer than kDisplayNameMax");
  fuzz_check(shown == names::display_name_cached(name), "display_name_cached differs");
  fuzz_check(name.empty() || !shown.empty(), "a non-empty name got an empty display name");
  return 0;
}
