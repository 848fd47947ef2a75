// rocpd_display_name(): one readable, bounded column for kernel names in summaries.
// Tensile names are cut after the parameters that tell solutions apart at a glance (Tensile's
// getNameMin puts them first: problem type, then MT, then MI; the tuning parameters follow in
// alphabetical order after "SN"), C++ names keep their base name and template arguments. A digest
// of the whole name replaces what was left out, so distinct names rarely share a display name.
#include "names/display_name.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "names/demangle.h"

namespace rocpd::names {
namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// "MT128x64x16": "MT" and three numbers joined by 'x' (old Tensile pads them: MT128x064x08).
bool is_macro_tile(std::string_view token) {
  if (!token.starts_with("MT")) return false;
  token.remove_prefix(2);
  int numbers = 0;
  while (!token.empty()) {
    std::size_t x = token.find('x');
    if (!all_digits(token.substr(0, x))) return false;
    ++numbers;
    if (x == std::string_view::npos) break;
    token.remove_prefix(x + 1);
    if (token.empty()) return false;
  }
  return numbers == 3;
}

// "MI32x32x2x1" (M x N x K x B, older Tensile) or "MI16x16x1" (M x N x B, TensileLite).
bool is_matrix_instruction(std::string_view token) {
  if (!token.starts_with("MI") || token.size() < 3) return false;
  token.remove_prefix(2);
  return token.find_first_not_of("0123456789x") == std::string_view::npos && std::isdigit(token[0]) &&
         token.back() != 'x';
}

std::vector<std::string_view> split_underscores(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '_') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// A Tensile contraction name: "C<indices>_A<indices>_B<indices>_...", the problem type that
// ProblemType.__str__ writes (C's free/batch indices, then A's and B's index assignments).
bool is_tensile_prefix(const std::vector<std::string_view>& tokens) {
  auto letters = [](std::string_view t, char head) {
    if (t.size() < 2 || t[0] != head) return false;
    for (char c : t.substr(1)) {
      if (!std::isalpha(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  return tokens.size() > 3 && letters(tokens[0], 'C') && letters(tokens[1], 'A') && letters(tokens[2], 'B');
}

// The kept part of a Tensile name, or nullopt when `name` is not one: the indices of C, A and B and
// the data types, then the problem type's flags in order while the result (with the digest) fits,
// then MT and MI. `dropped` tells whether anything was left out.
std::optional<std::string> tensile_head(std::string_view name, bool& dropped) {
  auto tokens = split_underscores(name);
  if (!is_tensile_prefix(tokens)) return std::nullopt;
  std::size_t mt = 3;
  while (mt < tokens.size() && !is_macro_tile(tokens[mt])) ++mt;
  if (mt == tokens.size() || mt == 3) return std::nullopt;
  std::size_t last = mt;
  if (mt + 1 < tokens.size() && is_matrix_instruction(tokens[mt + 1])) last = mt + 1;
  auto join = [](std::string& out, std::string_view t) {
    if (!out.empty()) out += '_';
    out.append(t);
  };
  std::string tail;  // "MT..._MI..."
  for (std::size_t i = mt; i <= last; ++i) join(tail, tokens[i]);
  const std::size_t end = static_cast<std::size_t>(tokens[last].data() + tokens[last].size() - name.data());
  // Nothing after MI and short enough: the whole name, without a digest.
  if (end == name.size() && end <= kDisplayNameMax) return std::string(name);
  std::string out;
  for (std::size_t i = 0; i < 4; ++i) join(out, tokens[i]);  // C, A, B indices and the data types
  const std::size_t room = kDisplayNameMax - 1 - kDisplayDigestDigits;
  for (std::size_t i = 4; i < mt && out.size() + 1 + tokens[i].size() + 1 + tail.size() <= room; ++i)
    join(out, tokens[i]);
  join(out, tail);
  dropped = true;
  return out;
}

// Template arguments without namespace qualifiers and without the spaces the demangler puts
// after commas and between closing brackets: "<128, 4, at::native::Foo<float> >" ->
// "<128,4,Foo<float>>". Qualifiers that are not plain identifiers (a function or lambda scope
// such as "ceil_kernel(at::TensorIteratorBase&)::") keep their text, since they name the kernel.
std::string compact_arguments(std::string_view args) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  std::string out;
  out.reserve(args.size());
  std::size_t i = 0;
  while (i < args.size()) {
    if (args.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size();
      continue;
    }
    const char c = args[i];
    if (is_identifier_char(c) && (i == 0 || !is_identifier_char(args[i - 1]))) {
      std::size_t j = i;
      while (j < args.size() && is_identifier_char(args[j])) ++j;
      if (args.substr(j).starts_with("::") && !std::isdigit(static_cast<unsigned char>(c))) {
        i = j + 2;  // a namespace or class qualifier
        continue;
      }
      out.append(args.substr(i, j - i));
      i = j;
      continue;
    }
    if (c == ' ' && !out.empty() && (out.back() == ',' || out.back() == '>') && i + 1 < args.size() &&
        (args[i + 1] == '>' || out.back() == ',')) {
      ++i;  // ", " -> ","  and  "> >" -> ">>"
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

// Index just past the '>' that closes the '<' at `open`, or npos. Parentheses nest; "->" is
// not a bracket.
std::size_t closing_angle(std::string_view text, std::size_t open) {
  std::vector<char> stack;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      stack.push_back(c);
    } else if (c == '>') {
      if (i > 0 && text[i - 1] == '-') continue;
      if (stack.empty() || stack.back() != '<') continue;  // a comparison inside parentheses
      stack.pop_back();
      if (stack.empty()) return i + 1;
    } else if (c == ')' || c == ']' || c == '}') {
      while (!stack.empty() && stack.back() == '<') stack.pop_back();
      if (stack.empty()) return std::string_view::npos;
      stack.pop_back();
    }
  }
  return std::string_view::npos;
}

// Where the base name `base` stands in `declaration` as a name (not part of a longer
// identifier), or npos.
std::size_t find_base(std::string_view declaration, std::string_view base) {
  for (std::size_t p = declaration.find(base); p != std::string_view::npos; p = declaration.find(base, p + 1)) {
    const bool starts = p == 0 || !is_identifier_char(declaration[p - 1]);
    const std::size_t after = p + base.size();
    const bool ends = after == declaration.size() || !is_identifier_char(declaration[after]);
    if (starts && ends) return p;
  }
  return std::string_view::npos;
}

// Base name plus compacted template arguments of a C++ declaration. A short name that is not
// spelled in the declaration (a lambda "f::{lambda#1}", an operator with its scope) leaves out
// the arguments of the enclosing scopes: `dropped` asks for the digest.
std::string cpp_display(std::string_view declaration, bool& dropped) {
  std::string base = kernel_short_name(declaration);
  const std::size_t at = find_base(declaration, base);
  if (at == std::string_view::npos) {
    dropped = base != declaration;
    return base;
  }
  std::size_t open = at + base.size();
  // ABI tags come between the name and its template arguments: "kernel[abi:cxx11]<int>".
  while (declaration.substr(open).starts_with("[abi:")) {
    const std::size_t close = declaration.find(']', open);
    if (close == std::string_view::npos) return base;
    open = close + 1;
  }
  if (open >= declaration.size() || declaration[open] != '<') return base;
  const std::size_t close = closing_angle(declaration, open);
  if (close == std::string_view::npos) return base;
  return base + compact_arguments(declaration.substr(open, close - open));
}

bool looks_like_cpp(std::string_view text) {
  return text.find_first_of("(<") != std::string_view::npos || text.find("::") != std::string_view::npos;
}

// PyTorch names each record_function / NVTX range of an operator call "<op>, seq = N, op_id = M"
// (then ", sizes = [...]", ", input_op_ids = [...]": torch/csrc/profiler's getNvtxStr), a name per
// call; the display form is the operator's: cut at the first ", seq = <digit>" or
// ", op_id = <digit>". A name that is nothing but such a suffix has no operator to show: kept whole.
std::string_view without_pytorch_call_suffix(std::string_view name) {
  std::size_t cut = name.size();
  for (std::string_view key : {std::string_view(", seq = "), std::string_view(", op_id = ")}) {
    const std::size_t at = name.find(key);
    const std::size_t digit = at + key.size();
    if (at != std::string_view::npos && digit < name.size() && std::isdigit(static_cast<unsigned char>(name[digit])))
      cut = std::min(cut, at);
  }
  return cut == 0 ? name : name.substr(0, cut);
}

// `text` cut to at most `limit` bytes without splitting a UTF-8 sequence.
std::string_view cut_utf8(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

std::string display_digest(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kDisplayDigestDigits, '0');
  for (std::size_t i = 0; i < kDisplayDigestDigits; ++i) {
    out[kDisplayDigestDigits - 1 - i] = kHex[(h >> (4 * i)) & 0xF];
  }
  return out;
}

std::string display_name(std::string_view name) {
  // also strips the kernel-descriptor suffix
  const std::string demangled = demangle(without_pytorch_call_suffix(name));
  bool dropped = false;
  std::string body;
  if (auto head = tensile_head(demangled, dropped)) {
    body = std::move(*head);
  } else if (looks_like_cpp(demangled)) {
    body = cpp_display(demangled, dropped);
  } else {
    body = demangled;
  }
  if (!dropped && body.size() <= kDisplayNameMax) return body;
  const std::size_t room = kDisplayNameMax - 1 - kDisplayDigestDigits;
  std::string out(cut_utf8(body, room));
  out += '~';
  out += display_digest(demangled);  // of the demangled name: both spellings of a kernel agree
  return out;
}

}  // namespace rocpd::names
