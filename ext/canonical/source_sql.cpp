#include "canonical/source_sql.h"

#include <fmt/format.h>

namespace rocpd::canonical {

SourceBuilder::SourceBuilder(std::string table, const std::string& alias, size_t columns) {
  src_.from = table + " AS " + alias;
  src_.base_table = std::move(table);
  src_.rowid = alias + ".id";  // probes check every base table's id is its INTEGER PRIMARY KEY
  src_.expr.assign(columns, "");
  src_.expr_joins.assign(columns, 0);
}

uint32_t SourceBuilder::mask(std::initializer_list<const char*> names) const {
  uint32_t m = 0;
  for (const char* n : names)
    for (size_t i = 0; i < join_names_.size(); ++i)
      if (join_names_[i] == n) m |= 1u << i;
  return m;
}

void SourceBuilder::join(const char* name, std::string clause, std::initializer_list<const char*> deps) {
  join(name, std::move(clause), mask(deps));
}

void SourceBuilder::join(const char* name, std::string clause, uint32_t deps) {
  if (src_.joins.size() >= 32) throw Error("rocpd: too many joins in a member source");
  src_.join_deps.push_back(deps);
  src_.joins.push_back(std::move(clause));
  join_names_.emplace_back(name);
}

void SourceBuilder::col(int c, std::string expr, std::initializer_list<const char*> joins) {
  col(c, std::move(expr), mask(joins));
}

void SourceBuilder::col(int c, std::string expr, uint32_t joins) {
  src_.expr[static_cast<size_t>(c)] = std::move(expr);
  src_.expr_joins[static_cast<size_t>(c)] = joins;
}

std::string duration_sql(const char* alias) { return fmt::format("max({0}.\"end\" - {0}.start, 0)", alias); }

std::optional<std::string> duration_difference(const std::string& expr) {
  constexpr std::string_view head = "max(", tail = ", 0)";
  const size_t dot = expr.find('.');
  if (!expr.starts_with(head) || dot == std::string::npos) return std::nullopt;
  const std::string alias = expr.substr(head.size(), dot - head.size());
  if (alias.empty() || expr != duration_sql(alias.c_str())) return std::nullopt;
  return expr.substr(head.size(), expr.size() - head.size() - tail.size());
}

}  // namespace rocpd::canonical
