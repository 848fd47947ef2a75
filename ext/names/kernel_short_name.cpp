// kernel_short_name(): Nsight's "shortName" of a kernel, read from the demangled declaration.
// One text parser serves mangled input (demangled first) and already-demangled input, so both
// spellings of a kernel get the same short name. The parser is iterative (no recursion) and
// linear; text it cannot read as a C++ declaration (unbalanced brackets) comes back unchanged.
#include <cctype>
#include <optional>
#include <vector>

#include "names/demangle.h"
#include "names/demangle_backend.h"
#include "names/name_suffix.h"

namespace rocpd::names {
namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

// Bracket structure of a demangled declaration. Characters of operator names ("operator()",
// "operator<<", "operator[]") are masked so they do not count as brackets; a '<' with a space on
// both sides is a comparison, a '>' closes only an open '<' and is an arrow after '-'.
class Brackets {
 public:
  explicit Brackets(std::string_view text) : text_(text), depth_(text.size()), match_(text.size(), -1) {
    masked_.assign(text.size(), false);
    mask_operators(masked_);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < text.size(); ++i) {
      depth_[i] = open.size();
      const char c = text[i];
      if (masked_[i]) continue;
      const bool spaced = i > 0 && text[i - 1] == ' ' && i + 1 < text.size() && text[i + 1] == ' ';
      if (c == '(' || c == '[' || c == '{' || (c == '<' && !spaced)) {
        open.push_back(i);
      } else if (c == '>') {
        // "->" is an arrow; a '>' that closes nothing open here is a comparison.
        if (i > 0 && text[i - 1] == '-') continue;
        if (!open.empty() && text[open.back()] == '<') close(open, i);
      } else if (c == ')' || c == ']' || c == '}') {
        // An unclosed '<' inside parentheses was a comparison.
        while (!open.empty() && text[open.back()] == '<') open.pop_back();
        const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (open.empty() || text[open.back()] != want) {
          balanced_ = false;
          return;
        }
        close(open, i);
      }
    }
    balanced_ = open.empty();
  }

  bool balanced() const { return balanced_; }
  bool top_level(std::size_t i) const { return depth_[i] == 0; }
  // Index of the opening bracket matched by the closing one at `i`, or -1.
  long opener_of(std::size_t i) const { return match_[i]; }
  // Index of "operator" starting an operator name at top level in [from, to), or npos.
  std::size_t last_operator_keyword(std::size_t from, std::size_t to) const {
    std::size_t found = std::string_view::npos;
    for (std::size_t k : keywords_) {
      if (k >= from && k < to && depth_[k] == 0) found = k;
    }
    return found;
  }
  bool masked(std::size_t i) const { return masked_[i]; }

 private:
  void close(std::vector<std::size_t>& open, std::size_t i) {
    match_[i] = static_cast<long>(open.back());
    open.pop_back();
    depth_[i] = open.size();
  }

  void mask_operators(std::vector<bool>& masked) {
    static constexpr std::string_view kSymbols[] = {
        "->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
        "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "\"\"", "<", ">", "+", "-",
        "*", "/", "%", "&", "|", "^", "~", "!", "=", ","};
    constexpr std::string_view kw = "operator";
    for (std::size_t k = text_.find(kw); k != std::string_view::npos; k = text_.find(kw, k + 1)) {
      const std::size_t after = k + kw.size();
      // Part of a longer identifier ("my_operator", "operators"): not the keyword.
      if ((k > 0 && is_identifier_char(text_[k - 1])) || (after < text_.size() && is_identifier_char(text_[after]))) {
        continue;
      }
      keywords_.push_back(k);
      std::size_t p = after;
      std::string_view rest = text_.substr(p);
      if (rest.starts_with(" new") || rest.starts_with(" delete")) {
        p += rest.starts_with(" new") ? 4 : 7;
        if (text_.substr(p).starts_with("[]")) masked[p] = masked[p + 1] = true;
        continue;
      }
      for (std::string_view sym : kSymbols) {
        if (text_.substr(p).starts_with(sym)) {
          for (std::size_t m = 0; m < sym.size(); ++m) masked[p + m] = true;
          break;
        }
      }
    }
  }

  std::string_view text_;
  std::vector<std::size_t> depth_;
  std::vector<long> match_;
  std::vector<std::size_t> keywords_;
  std::vector<bool> masked_;
  bool balanced_ = true;
};

bool is_qualifier_tail(std::string_view tail) {
  std::size_t i = 0;
  while (i < tail.size()) {
    if (tail[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < tail.size() && tail[j] != ' ') ++j;
    std::string_view word = tail.substr(i, j - i);
    if (word != "const" && word != "volatile" && word != "restrict" && word != "noexcept" &&
        word != "&" && word != "&&") {
      return false;
    }
    i = j;
  }
  return true;
}

bool is_closure(std::string_view component) {
  return component.starts_with("{lambda") || component.starts_with("'lambda");
}

bool is_operator_name(std::string_view base) {
  return base.starts_with("operator") && (base.size() == 8 || !is_identifier_char(base[8]));
}

class ShortName {
 public:
  explicit ShortName(std::string_view text) : text_(text), brackets_(text) {}

  // The short name, or nullopt when the text is not readable as a declaration.
  std::optional<std::string> compute() {
    if (!brackets_.balanced() || text_.empty()) return std::nullopt;
    std::size_t end = strip_clone_suffixes(text_.size());
    end = strip_parameters(end);
    if (end == 0) return std::nullopt;
    std::size_t begin = start_of_qualified_name(end);
    split_components(begin, end);
    return assemble();
  }

 private:
  // " (.cold)" / " [clone .cold]" after the declaration.
  std::size_t strip_clone_suffixes(std::size_t end) const {
    while (end > 0 && text_[end - 1] == ' ') --end;
    while (end > 2 && (text_[end - 1] == ')' || text_[end - 1] == ']') && brackets_.top_level(end - 1)) {
      long open = brackets_.opener_of(end - 1);
      if (open < 1 || text_[open - 1] != ' ') break;
      std::string_view inside = text_.substr(open + 1, end - 2 - open);
      if (!(inside.starts_with(".") || inside.starts_with("clone ."))) break;
      end = static_cast<std::size_t>(open - 1);
    }
    return end;
  }

  // Removes "(params) const &" at the end; returns where the name ends.
  std::size_t strip_parameters(std::size_t end) const {
    std::size_t close = end;
    while (close > 0 && text_[close - 1] != ')') {
      char c = text_[close - 1];
      if (!(std::islower(static_cast<unsigned char>(c)) || c == ' ' || c == '&')) return end;
      --close;
    }
    if (close == 0 || !brackets_.top_level(close - 1)) return end;
    if (!is_qualifier_tail(text_.substr(close, end - close))) return end;
    long open = brackets_.opener_of(close - 1);
    if (open <= 0) return end;  // "(anonymous namespace)" alone, or nothing before "("
    return static_cast<std::size_t>(open);
  }

  // Skips the return type: the name starts after the last top-level space (spaces inside an
  // operator name such as "operator new" or "operator unsigned int" do not count).
  std::size_t start_of_qualified_name(std::size_t end) const {
    std::size_t limit = end;
    std::size_t kw = brackets_.last_operator_keyword(0, end);
    if (kw != std::string_view::npos) limit = kw;
    for (std::size_t i = limit; i > 0; --i) {
      if (text_[i - 1] == ' ' && brackets_.top_level(i - 1)) return i;
    }
    return 0;
  }

  void split_components(std::size_t begin, std::size_t end) {
    std::size_t start = begin;
    for (std::size_t i = begin; i + 1 < end; ++i) {
      if (text_[i] == ':' && text_[i + 1] == ':' && brackets_.top_level(i)) {
        components_.push_back(text_.substr(start, i - start));
        start = i + 2;
        ++i;
      }
    }
    components_.push_back(text_.substr(start, end - start));
  }

  // A component without its template arguments, ABI tags and parameters; a closure
  // "{lambda(int)#2}" becomes "{lambda#2}".
  std::string_view bare(std::string_view component) const {
    const std::size_t offset = static_cast<std::size_t>(component.data() - text_.data());
    if (is_closure(component)) return component;
    for (std::size_t i = 0; i < component.size(); ++i) {
      char c = component[i];
      if ((c == '<' || c == '[' || c == '(') && i > 0 && brackets_.top_level(offset + i) &&
          !brackets_.masked(offset + i)) {
        std::string_view cut = component.substr(0, i);
        while (cut.ends_with(' ')) cut.remove_suffix(1);  // "operator< <int>"
        return cut;
      }
    }
    return component;
  }

  // The closure's number, as GNU prints it: "{lambda(int)#2}" (GNU) and "'lambda0'(int)" (LLVM:
  // no digits for the first lambda, then 0, 1, ...) both become "{lambda#2}".
  static std::string closure_short(std::string_view closure) {
    std::string number = "1";
    if (closure.starts_with("{")) {
      // The digits after the last '#' ("{lambda(int)#2}" -> "2"); a component that goes on after
      // its closing brace ("{lambda(int)#1}9x", not a real closure) must not lend it other bytes.
      std::size_t hash = closure.rfind('#');
      if (hash != std::string_view::npos) {
        std::size_t end = hash + 1;
        while (end < closure.size() && std::isdigit(static_cast<unsigned char>(closure[end]))) ++end;
        if (end > hash + 1) number = std::string(closure.substr(hash + 1, end - hash - 1));
      }
    } else {
      std::size_t end = closure.find('\'', 1);
      std::string_view digits = closure.substr(7, end == std::string_view::npos ? 0 : end - 7);
      if (!digits.empty() && digits.size() < 10 &&
          digits.find_first_not_of("0123456789") == std::string_view::npos) {
        number = std::to_string(std::stoul(std::string(digits)) + 2);
      }
    }
    return "{lambda#" + number + "}";
  }

  std::optional<std::string> assemble() const {
    std::string_view base = bare(components_.back());
    if (base.empty()) return std::nullopt;
    const std::size_t n = components_.size();
    const bool lambda_call = n >= 2 && is_closure(components_[n - 2]) &&
                             (base == "operator()" || base == "_FUN" || base == "__invoke");
    if (lambda_call) {
      std::string out = closure_short(components_[n - 2]);
      if (n >= 3) out = std::string(bare(components_[n - 3])) + "::" + out;
      return out;
    }
    if (is_closure(base)) return closure_short(base);
    if (is_operator_name(base) && n >= 2) {
      std::string_view scope = components_[n - 2];
      std::string prefix = is_closure(scope) ? closure_short(scope) : std::string(bare(scope));
      return prefix + "::" + std::string(base);
    }
    return std::string(base);
  }

  std::string_view text_;
  Brackets brackets_;
  std::vector<std::string_view> components_;
};

}  // namespace

std::string kernel_short_name(std::string_view name) {
  std::string_view symbol = strip_descriptor_suffix(name);
  std::string demangled;
  if (is_itanium_mangled(symbol)) {
    auto text = detail::demangle_itanium(symbol);
    if (!text) return std::string(name);  // broken mangling: unchanged, like demangle()
    demangled = std::move(*text);
    symbol = demangled;
  }
  // The reader holds 17 bytes of bracket structure per input byte: longer text is not read.
  if (symbol.size() > kMaxShortNameInput) return std::string(symbol);
  if (auto short_name = ShortName(symbol).compute()) return std::move(*short_name);
  return std::string(symbol);
}

}  // namespace rocpd::names
