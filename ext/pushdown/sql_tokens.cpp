#include "pushdown/sql_tokens.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace rocpd::pushdown {

namespace {

// SQLite's keywords (https://sqlite.org/lang_keywords.html), sorted.
constexpr std::array<std::string_view, 147> kKeywords{
    "ABORT", "ACTION", "ADD", "AFTER", "ALL", "ALTER", "ALWAYS", "ANALYZE", "AND", "AS", "ASC", "ATTACH",
    "AUTOINCREMENT", "BEFORE", "BEGIN", "BETWEEN", "BY", "CASCADE", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN",
    "COMMIT", "CONFLICT", "CONSTRAINT", "CREATE", "CROSS", "CURRENT", "CURRENT_DATE", "CURRENT_TIME",
    "CURRENT_TIMESTAMP", "DATABASE", "DEFAULT", "DEFERRABLE", "DEFERRED", "DELETE", "DESC", "DETACH", "DISTINCT",
    "DO", "DROP", "EACH", "ELSE", "END", "ESCAPE", "EXCEPT", "EXCLUDE", "EXCLUSIVE", "EXISTS", "EXPLAIN", "FAIL",
    "FILTER", "FIRST", "FOLLOWING", "FOR", "FOREIGN", "FROM", "FULL", "GENERATED", "GLOB", "GROUP", "GROUPS",
    "HAVING", "IF", "IGNORE", "IMMEDIATE", "IN", "INDEX", "INDEXED", "INITIALLY", "INNER", "INSERT", "INSTEAD",
    "INTERSECT", "INTO", "IS", "ISNULL", "JOIN", "KEY", "LAST", "LEFT", "LIKE", "LIMIT", "MATCH", "MATERIALIZED",
    "NATURAL", "NO", "NOT", "NOTHING", "NOTNULL", "NULL", "NULLS", "OF", "OFFSET", "ON", "OR", "ORDER", "OTHERS",
    "OUTER", "OVER", "PARTITION", "PLAN", "PRAGMA", "PRECEDING", "PRIMARY", "QUERY", "RAISE", "RANGE",
    "RECURSIVE", "REFERENCES", "REGEXP", "REINDEX", "RELEASE", "RENAME", "REPLACE", "RESTRICT", "RETURNING",
    "RIGHT", "ROLLBACK", "ROW", "ROWS", "SAVEPOINT", "SELECT", "SET", "TABLE", "TEMP", "TEMPORARY", "THEN", "TIES",
    "TO", "TRANSACTION", "TRIGGER", "UNBOUNDED", "UNION", "UNIQUE", "UPDATE", "USING", "VACUUM", "VALUES", "VIEW",
    "VIRTUAL", "WHEN", "WHERE", "WINDOW", "WITH", "WITHOUT"};

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

bool id_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool id_char(unsigned char c) { return id_start(c) || std::isdigit(c) || c == '$'; }

// End of a quoted run starting at `at` (the opening quote), `close` doubled inside as an escape;
// npos when unterminated.
size_t quoted_end(std::string_view s, size_t at, char close, bool doubled) {
  for (size_t i = at + 1; i < s.size(); ++i) {
    if (s[i] != close) continue;
    if (doubled && i + 1 < s.size() && s[i + 1] == close) {
      ++i;
      continue;
    }
    return i + 1;
  }
  return std::string_view::npos;
}

size_t number_end(std::string_view s, size_t i) {
  auto digit = [&](size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); };
  if (s[i] == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    i += 2;
    while (i < s.size() && (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    return i;
  }
  while (digit(i) || (i < s.size() && s[i] == '_')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (digit(i) || (i < s.size() && s[i] == '_')) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') &&
      (digit(i + 1) || ((i + 1 < s.size() && (s[i + 1] == '+' || s[i + 1] == '-')) && digit(i + 2)))) {
    i += 2;
    while (digit(i)) ++i;
  }
  return i;
}

}  // namespace

std::string Token::ident() const {
  std::string out;
  if (kind == QuotedId) {
    const char close = text.front() == '[' ? ']' : text.front();
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      out += text[i];
      if (close != ']' && text[i] == close) ++i;  // doubled quote
    }
  } else {
    out = text;
  }
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Token::is_kw(std::string_view keyword) const { return kind == Word && upper(text) == keyword; }

bool Token::is_keyword() const {
  return kind == Word && std::binary_search(kKeywords.begin(), kKeywords.end(), std::string_view(upper(text)));
}

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t depth = 0;
  size_t i = 0;
  auto push = [&](Token::Kind kind, size_t end) {
    out.push_back({kind, s.substr(i, end - i), depth});
    i = end;
  };
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (s.substr(i, 2) == "--") {
      const size_t nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl + 1;
    } else if (s.substr(i, 2) == "/*") {
      const size_t e = s.find("*/", i + 2);
      i = e == std::string_view::npos ? s.size() : e + 2;
    } else if (c == '\'' || c == '"' || c == '`' || c == '[') {
      const size_t e = c == '[' ? s.find(']', i) : quoted_end(s, i, static_cast<char>(c), true);
      if (e == std::string_view::npos) {
        push(Token::Unknown, s.size());
      } else {
        push(c == '\'' ? Token::String : Token::QuotedId, c == '[' ? e + 1 : e);
      }
    } else if ((c == 'x' || c == 'X') && i + 1 < s.size() && s[i + 1] == '\'') {
      const size_t e = quoted_end(s, i + 1, '\'', false);
      push(e == std::string_view::npos ? Token::Unknown : Token::Blob, e == std::string_view::npos ? s.size() : e);
    } else if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t e = number_end(s, i);
      const bool glued = e < s.size() && id_char(static_cast<unsigned char>(s[e]));  // "1abc": SQLite refuses it
      push(glued ? Token::Unknown : Token::Number, e);
    } else if (id_start(c)) {
      size_t e = i + 1;
      while (e < s.size() && id_char(static_cast<unsigned char>(s[e]))) ++e;
      push(Token::Word, e);
    } else if (c == '?' || c == ':' || c == '@' || c == '$' || c == '#') {
      size_t e = i + 1;
      while (e < s.size() && id_char(static_cast<unsigned char>(s[e]))) ++e;
      push(Token::Param, e);
    } else {
      static constexpr std::array<std::string_view, 9> kTwo{"||", "<=", ">=", "==", "!=", "<>", "<<", ">>", "->"};
      size_t len = 1;
      if (s.substr(i, 3) == "->>") len = 3;
      else if (std::find(kTwo.begin(), kTwo.end(), s.substr(i, 2)) != kTwo.end()) len = 2;
      if (std::string_view("()+-*/%<>=&|~,;.!").find(static_cast<char>(c)) == std::string_view::npos) {
        push(Token::Unknown, i + 1);
        continue;
      }
      if (c == ')') depth = depth ? depth - 1 : 0;
      push(Token::Punct, i + len);
      if (c == '(') ++depth;
    }
  }
  return out;
}

}  // namespace rocpd::pushdown
