#include "name_normal.h"

#include <array>
#include <cctype>

namespace rocpd_cli {

namespace {
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Length of "KEY = 123" (spaces around '=' optional) at `at`, or 0.
size_t counter_at(std::string_view s, size_t at) {
  static constexpr std::array<std::string_view, 4> kKeys = {"op_id", "seq_nr", "sequence", "seq"};
  if (at > 0 && is_word(s[at - 1])) return 0;
  for (auto key : kKeys) {
    if (s.substr(at, key.size()) != key) continue;
    size_t i = at + key.size();
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size() || s[i] != '=') continue;
    ++i;
    while (i < s.size() && s[i] == ' ') ++i;
    size_t digits = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == digits || (i < s.size() && is_word(s[i]))) continue;
    return i - at;
  }
  return 0;
}
}  // namespace

std::string normal_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (size_t n = counter_at(name, i); n > 0) {
      // The separator before the counter goes with it ("aten::to, op_id = 5" -> "aten::to").
      while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
      i += n;
      continue;
    }
    out += name[i++];
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  if (out.size() > 7 && out[out.size() - 7] == '~') {
    bool hex = true;
    for (size_t i = out.size() - 6; i < out.size(); ++i) hex = hex && is_hex(out[i]);
    if (hex) out.resize(out.size() - 7);
  }
  if (size_t v = out.rfind("_v"); v != std::string::npos && v > 0 && v + 2 < out.size()) {
    bool digits = true;
    for (size_t i = v + 2; i < out.size(); ++i) digits = digits && is_digit(out[i]);
    if (digits) out.resize(v);
  }
  return out.empty() ? std::string(name) : out;
}

}  // namespace rocpd_cli
