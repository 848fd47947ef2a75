// Interned names of one member (kernel, API and range names, stacks), and the id of a name column
// just read by MemberColumns: what every table that groups or joins a member's rows by name keeps
// instead of strings.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/affinity.h"
#include "members/member_columns.h"

namespace rocpd::analysis {

inline constexpr uint32_t kNoName = UINT32_MAX;

// Interned strings of one member (names, stacks).
class Strings {
 public:
  uint32_t id(std::string_view s);
  const std::string& operator[](uint32_t id) const { return all_[id]; }
  size_t size() const { return all_.size(); }

 private:
  // Looked up by string_view (no string made per lookup).
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  std::vector<std::string> all_;
};

// The id in `strings` of a name column just read by `reader` (TEXT or BLOB: its bytes; other
// types: kNoName). A name read by key (MemberColumns::name_token) is hashed once per key.
class TokenNames {
 public:
  uint32_t id(const members::MemberColumns& reader, const StoredValue& name, Strings& strings);

 private:
  std::vector<uint32_t> of_token_;
};

}  // namespace rocpd::analysis
