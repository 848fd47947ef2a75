// Fuzz target: any bytes as a kernel name for rocpd::names::demangle (LLVM's parser and printer
// behind the stack and output guards). Checks, besides the absence of crashes, hangs and leaks:
//  - input that is not an Itanium mangling comes back unchanged but for one descriptor suffix;
//  - the cached and uncached results agree;
//  - where the guarded demangler succeeds on a short name, plain llvm::itaniumDemangle (same
//    parser, its own allocator, unguarded: short names only) prints the same text.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "names/demangle.h"
#include "names/demangle_backend.h"
#include "names/name_suffix.h"

namespace names = rocpd::names;
using rocpd::fuzz::fuzz_check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const std::string out = names::demangle(name);
  fuzz_check(out == names::demangle_cached(name), "demangle_cached differs from demangle");
  fuzz_check(name.empty() || !out.empty(), "a non-empty name demangled to nothing");
  const std::string_view symbol = names::strip_descriptor_suffix(name);
  if (!names::is_itanium_mangled(symbol)) {
    fuzz_check(out == symbol, "a name that is not mangled changed beyond its descriptor suffix");
    return 0;
  }
  const auto guarded = names::detail::demangle_itanium(symbol);
  fuzz_check(out == (guarded ? *guarded : std::string(name)), "demangle disagrees with its backend");
  if (guarded && symbol.size() <= 256) {
    const auto plain = names::detail::demangle_with_llvm_library(symbol);
    if (plain) fuzz_check(*plain == *guarded, "guarded demangler prints differently from llvm::itaniumDemangle");
  }
  return 0;
}
