#include "names/name_suffix.h"

namespace rocpd::names {

std::string_view strip_descriptor_suffix(std::string_view name) noexcept {
  for (std::string_view suffix : {" [clone .kd]", " (.kd)", ".kd"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

bool is_itanium_mangled(std::string_view name) noexcept {
  // A NUL byte cannot be part of a symbol (symbol tables are C strings).
  return (name.starts_with("_Z") || name.starts_with("___Z") || name.starts_with("____Z")) &&
         name.find('\0') == std::string_view::npos;
}

}  // namespace rocpd::names
