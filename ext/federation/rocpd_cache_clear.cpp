// rocpd_cache_clear(): removes every entry of the conversion cache and returns what it removed as
// JSON, {"directory":..., "entries":N, "bytes":B, "not_removed":[{"name":..., "why":...}]}, with
// "why" when there is no cache to clear (off, or its directory refused). It removes files:
// DIRECTONLY, so that a hostile database's views or triggers cannot call it. Members open on an
// entry keep reading it (they read their own hard link of it, members/conversion_cache.h).
#include "federation/rocpd_cache_clear.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "members/conversion_cache.h"

namespace rocpd::federation {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') out += fmt::format("\\{}", static_cast<char>(c));
    else if (c < 0x20) out += fmt::format("\\u{:04x}", c);
    else out += static_cast<char>(c);
  }
  return out + '"';
}

void rocpd_cache_clear_fn(sqlite3_context* ctx, int, sqlite3_value**) {
  guard(ctx, [&] {
    const members::CacheCleared cleared = members::clear_cache();
    std::vector<std::string> left;
    for (const auto& l : cleared.not_removed)
      left.push_back(fmt::format(R"({{"name":{},"why":{}}})", json_string(l.name), json_string(l.why)));
    const std::string json = fmt::format(
        R"({{"directory":{},"entries":{},"bytes":{},"not_removed":[{}]{}}})",
        cleared.directory.empty() ? "null" : json_string(cleared.directory), cleared.entries, cleared.bytes,
        fmt::join(left, ","), cleared.directory.empty() ? R"(,"why":)" + json_string(cleared.why) : "");
    sqlite3_result_text(ctx, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

int register_rocpd_cache_clear(sqlite3* db) {
  return sqlite3_create_function_v2(db, "rocpd_cache_clear", 0, kFileFunction, nullptr, rocpd_cache_clear_fn,
                                    nullptr, nullptr, nullptr);
}

}  // namespace rocpd::federation
