#include "analysis/strings.h"

namespace rocpd::analysis {

uint32_t Strings::id(std::string_view s) {
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(all_.size());
  all_.emplace_back(s);
  ids_.emplace(all_.back(), id);
  return id;
}

uint32_t TokenNames::id(const members::MemberColumns& reader, const StoredValue& name, Strings& strings) {
  if (name.type != SQLITE_TEXT && name.type != SQLITE_BLOB) return kNoName;
  const int64_t token = reader.name_token();
  const auto slot = static_cast<size_t>(token);
  if (token >= 0 && slot < of_token_.size() && of_token_[slot] != kNoName) return of_token_[slot];
  const uint32_t id = strings.id(std::string_view(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length)));
  if (token >= 0) {
    if (slot >= of_token_.size()) of_token_.resize(slot + 1, kNoName);
    of_token_[slot] = id;
  }
  return id;
}

}  // namespace rocpd::analysis
