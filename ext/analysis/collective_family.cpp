#include "analysis/collective_family.h"

#include <algorithm>
#include <array>

namespace rocpd::analysis {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Position of `word` in `text` ignoring ASCII case, or npos.
size_t find_nocase(std::string_view text, std::string_view word) {
  const auto it = std::search(text.begin(), text.end(), word.begin(), word.end(),
                              [](char a, char b) { return lower(a) == lower(b); });
  return it == text.end() ? std::string_view::npos : static_cast<size_t>(it - text.begin());
}

}  // namespace

std::string collective_family(std::string_view name) {
  name = name.substr(0, std::min(name.size(), name.find('\0')));
  // The kernels RCCL and NCCL name after their operation: the operation is the family.
  for (std::string_view prefix : {std::string_view("ncclDevKernel_"), std::string_view("ncclKernel_")}) {
    const size_t at = find_nocase(name, prefix);
    if (at == std::string_view::npos) continue;
    size_t begin = at + prefix.size(), end = begin;
    while (end < name.size() && identifier_char(name[end]) && name[end] != '_') ++end;
    if (end > begin) return std::string(name.substr(begin, end - begin));
  }
  // Other collective kernels: the identifier from the matching word on.
  size_t at = std::string_view::npos;
  for (std::string_view word : {std::string_view("nccl"), std::string_view("rccl"), std::string_view("cross_device_reduce")})
    at = std::min(at, find_nocase(name, word));
  if (at == std::string_view::npos) return std::string(name);
  // In an Itanium mangling the identifier is a <source-name>: its length precedes it in digits.
  size_t digits = at;
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits < at && at - digits <= 4) {
    size_t length = 0;
    for (size_t i = digits; i < at; ++i) length = length * 10 + static_cast<size_t>(name[i] - '0');
    if (length > 0 && at + length <= name.size()) return std::string(name.substr(at, length));
  }
  size_t end = at;
  while (end < name.size() && identifier_char(name[end])) ++end;
  return std::string(name.substr(at, end - at));
}

}  // namespace rocpd::analysis
