// demangle(): suffix handling and the choice of what counts as a mangled name; the actual
// demangling is in demangle_backend.cpp.
#include "names/demangle.h"

#include "names/demangle_backend.h"
#include "names/name_suffix.h"

namespace rocpd::names {

std::string demangle(std::string_view name) {
  std::string_view symbol = strip_descriptor_suffix(name);
  if (!is_itanium_mangled(symbol)) return std::string(symbol);
  if (auto text = detail::demangle_itanium(symbol)) return std::move(*text);
  return std::string(name);  // a broken mangling stays exactly as the tracer wrote it
}

}  // namespace rocpd::names
