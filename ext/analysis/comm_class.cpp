#include "analysis/comm_class.h"

#include <algorithm>
#include <cstring>

namespace rocpd::analysis {
namespace {

bool contains_nocase(std::string_view text, std::string_view word) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::search(text.begin(), text.end(), word.begin(), word.end(),
                     [&](char a, char b) { return lower(a) == b; }) != text.end();
}

}  // namespace

CommClass kernel_class(const StoredValue& name) {
  if (name.type != SQLITE_TEXT && name.type != SQLITE_BLOB) return CommClass::Compute;
  std::string_view text(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length));
  text = text.substr(0, std::min(text.size(), text.find('\0')));
  for (std::string_view word : {"nccl", "rccl", "cross_device_reduce"})
    if (contains_nocase(text, word)) return CommClass::Comm;
  return CommClass::Compute;
}

}  // namespace rocpd::analysis
