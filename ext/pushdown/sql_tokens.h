// SQL text split into tokens as SQLite's tokenizer splits it (comments and spaces dropped), for the
// GROUP BY recogniser. SQLite exposes no tokenizer; this one only has to be exact on the shapes the
// recogniser accepts: every rewrite is prepared by SQLite and compared with the query as written
// (group_rewrite.cpp), so a token read otherwise than SQLite reads it makes the query run unchanged.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace rocpd::pushdown {

struct Token {
  enum Kind { Word, QuotedId, String, Number, Blob, Param, Punct, Unknown };
  Kind kind;
  std::string_view text;  // as written
  size_t depth = 0;       // parentheses open before it
  // The identifier a Word or QuotedId names, lower-cased ASCII ("Name", "name", [name] are one name).
  std::string ident() const;
  bool is(std::string_view punct) const { return kind == Punct && text == punct; }
  // A keyword of SQLite (unquoted word, any case): `keyword` in upper case.
  bool is_kw(std::string_view keyword) const;
  bool is_keyword() const;  // any of SQLite's keywords (unquoted)
  bool is_name() const { return kind == QuotedId || (kind == Word && !is_keyword()); }
};

// Tokens of `sql`; an unterminated string, identifier or comment yields an Unknown token.
std::vector<Token> tokenize(std::string_view sql);

}  // namespace rocpd::pushdown
