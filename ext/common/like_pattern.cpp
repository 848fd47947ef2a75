#include "common/like_pattern.h"

#include <fmt/format.h>

#include "common/terminal_text.h"

namespace rocpd {

std::optional<std::string> like_pattern_arg(sqlite3_value* v, std::string_view fn, std::string_view what,
                                            std::string_view example) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type != SQLITE_TEXT) throw Error(fmt::format("{}: {} must be text (a LIKE pattern such as '{}')", fn, what, example));
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  std::string text(p ? p : "", p ? static_cast<size_t>(sqlite3_value_bytes(v)) : 0);
  if (const size_t nul = text.find('\0'); nul != std::string::npos)
    throw Error(fmt::format("{}: {} holds a NUL byte (at byte {} of {}): a LIKE pattern ends at its first NUL, "
                            "so it would match as {}",
                            fn, what, nul, quoted_text(text), quoted_text(text.substr(0, nul))));
  return text;
}

}  // namespace rocpd
