#include "pushdown/group_rewrite.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "pushdown/sql_tokens.h"

namespace rocpd::pushdown {

namespace {

struct NotPushed {
  std::string reason;
};

using Span = std::span<const Token>;

// A table the rewrite takes: its columns (and its rowid's names), of which a query may use only the
// grouped ones outside the arguments of a pushed aggregate (any other is a value of an arbitrary row
// of the group in SQLite); what its engine groups by, in the order the engine takes them.
struct Table {
  std::string_view name, engine;
  std::vector<std::string_view> columns, groupable;
};
const Table kOps{"rocpd_ops",
                 "rocpd_op_groups",
                 {"db", "pid", "gpu", "queue", "stream", "kind", "name", "demangled", "start", "end", "duration",
                  "correlation_id", "op_id", "graph_id", "node", "rowid", "oid", "_rowid_"},
                 {"db", "gpu", "kind", "name"}};
const Table kApis{"rocpd_apis",
                  "rocpd_api_groups",
                  {"db", "pid", "tid", "domain", "category", "name", "args", "start", "end", "duration",
                   "correlation_id", "api_id", "node", "rowid", "oid", "_rowid_"},
                  {"db", "pid", "tid", "domain", "name"}};

const Table* table_named(const std::string& id) { return id == kOps.name ? &kOps : id == kApis.name ? &kApis : nullptr; }

bool among(const std::vector<std::string_view>& set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// The aggregates of the duration the engine computes, and the engine's column standing for
// each (docs/summaries.md: each column is exactly that SQL). The unary + takes the column's affinity
// away: an aggregate has none, so `sum(duration) > '5'` compares as in the query as written.
struct Aggregate {
  std::string_view call;  // function name, lower case; count(*) is "count*"
  std::string_view expr;
};
constexpr std::array<Aggregate, 9> kAggregates{{{"count*", "+instances"},
                                                 {"count", "+timed"},
                                                 {"sum", "+total_ns"},
                                                 {"total", "+CAST(ifnull(total_ns, 0) AS REAL)"},
                                                 {"avg", "+avg_ns"},
                                                 {"min", "+min_ns"},
                                                 {"max", "+max_ns"},
                                                 {"median", "+med_ns"},
                                                 {"stddev", "+stddev_ns"}}};

// count, min and max of start and end: the engine's exact figures over every row of the group (each
// column's non-NULL values on their own), as SQL gives them; regrouped, counts add up and extremes
// are taken over the finer groups. (Sums and averages of times are not pushed: their doubles or
// their overflow depend on the order SQLite adds the rows in.)
constexpr std::array<Aggregate, 6> kTimeAggregates{{{"count start", "+n_start"},
                                                    {"min start", "+min_start"},
                                                    {"max start", "+max_start"},
                                                    {"count end", "+n_end"},
                                                    {"min end", "+min_end"},
                                                    {"max end", "+max_end"}}};
constexpr std::array<Aggregate, 6> kTimeRegrouped{{{"count start", "+sum(n_start)"},
                                                   {"min start", "+min(min_start)"},
                                                   {"max start", "+max(max_start)"},
                                                   {"count end", "+sum(n_end)"},
                                                   {"min end", "+min(min_end)"},
                                                   {"max end", "+max(max_end)"}}};
const Aggregate* time_aggregate(const std::array<Aggregate, 6>& set, std::string_view key) {
  const auto* a = std::find_if(set.begin(), set.end(), [&](const Aggregate& t) { return t.call == key; });
  return a == set.end() ? nullptr : a;
}

// Where a group's durations add up, in any order, as exactly in a double as in an integer: every
// partial sum is at most 2^53 in magnitude. There SQLite's avg() and total() (a running double sum)
// equal the engine's (the exact sum, rounded once); elsewhere (and where the integer sum overflows,
// reading total_ns fails) avg and total are SQLite's own over the group's rows.
constexpr std::string_view kExactDoubleSum =
    "(timed = 0 OR (max_ns * timed <= 9007199254740992 AND min_ns * timed >= -9007199254740992))";
constexpr std::string_view kExactDoubleSumRegrouped =
    "(sum(timed) = 0 OR (max(max_ns) * sum(timed) <= 9007199254740992 AND min(min_ns) * sum(timed) >= "
    "-9007199254740992))";

// Aggregates of the duration answered from each group's durations (rocpd_op_groups' durations
// column: exactly the group's non-NULL durations, as a JSON array): SQLite runs the query's own
// function over the same values, so the answer is the query's as written. group_concat lists them
// in ascending order (SQL leaves the order open without ORDER BY in the aggregate).
constexpr std::array<std::string_view, 12> kValueAggregates{"percentile", "histogram", "histogram_log2", "count",
                                                            "sum",        "total",     "avg",            "min",
                                                            "max",        "median",    "stddev",         "group_concat"};

// Aggregates of a groupable column other than the grouping (`count(DISTINCT gpu) ... GROUP BY name`):
// the engine groups by that column too, and SQL regroups its rows; each stands for the SQL over the
// finer groups that gives the same value (a finer group holds one value of the column).
struct ColumnAggregate {
  std::string_view call;  // the function; "<function> DISTINCT" for its DISTINCT form
  std::string_view over_groups;  // {0}: the column
};
constexpr std::array<ColumnAggregate, 10> kColumnAggregates{{{"count", "sum(iif({0} IS NULL, 0, instances))"},
                                                             {"count DISTINCT", "count(DISTINCT {0})"},
                                                             {"min", "min({0})"},
                                                             {"min DISTINCT", "min({0})"},
                                                             {"max", "max({0})"},
                                                             {"max DISTINCT", "max({0})"},
                                                             {"sum DISTINCT", "sum(DISTINCT {0})"},
                                                             {"total DISTINCT", "total(DISTINCT {0})"},
                                                             {"avg DISTINCT", "avg(DISTINCT {0})"},
                                                             {"group_concat DISTINCT", "group_concat(DISTINCT {0})"}}};

// The engine aggregates over finer groups, regrouped: the SQL over rocpd_op_groups' rows giving
// each (median and stddev need the durations themselves: not regrouped).
constexpr std::array<Aggregate, 7> kRegrouped{{{"count*", "+sum(instances)"},
                                               {"count", "+sum(timed)"},
                                               {"sum", "+sum(total_ns)"},
                                               {"total", "+CAST(ifnull(sum(total_ns), 0) AS REAL)"},
                                               {"avg", "+(CAST(sum(total_ns) AS REAL) / sum(timed))"},
                                               {"min", "+min(min_ns)"},
                                               {"max", "+max(max_ns)"}}};

// Pure scalar functions a pushed query may apply to grouped columns and aggregates (the same value
// per group either way). Anything else (an aggregate of another column, a user's function that may
// be an aggregate) keeps the query as written.
constexpr std::array<std::string_view, 45> kScalars{
    "abs",   "ceil",   "ceiling", "char",   "coalesce", "concat", "concat_ws", "exp",     "floor",
    "format", "glob",  "hex",     "ifnull", "iif",      "instr",  "length",    "like",    "ln",
    "log",   "log10",  "log2",    "lower",  "ltrim",    "max",    "min",       "mod",     "nullif",
    "octet_length", "pi", "pow",  "power",  "printf",   "quote",  "replace",   "round",   "rtrim",
    "sign",  "sqrt",   "substr",  "substring", "trim",  "trunc",  "typeof",    "unicode", "upper"};
// Keywords that may stand before a parenthesis as operators, not as function names.
constexpr std::array<std::string_view, 16> kOperatorKeywords{"AND",  "OR",   "NOT",   "IN",      "IS",   "BETWEEN",
                                                             "CASE", "WHEN", "THEN",  "ELSE",    "CAST", "DISTINCT",
                                                             "ALL",  "ESCAPE", "BY", "COLLATE"};
// Keywords that make a query something the rewrite does not take (subqueries, windows, compounds...).
constexpr std::array<std::string_view, 12> kRefused{"SELECT",    "EXISTS", "OVER",  "FILTER", "WINDOW", "RAISE",
                                                    "UNION",     "INTERSECT", "EXCEPT", "VALUES", "JOIN", "WITH"};

template <size_t N>
bool among(const std::array<std::string_view, N>& set, std::string_view s) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// A number literal as SQLite reads it (decimal; an optional minus when `signed_ok`), or nullopt.
std::optional<double> number_literal(Span s, bool signed_ok) {
  double sign = 1;
  if (signed_ok && s.size() == 2 && s[0].is("-")) {
    sign = -1;
    s = s.subspan(1);
  }
  if (s.size() != 1 || s[0].kind != Token::Number) return std::nullopt;
  const std::string text(s[0].text);
  if (text.find_first_of("xX") != std::string::npos) return std::nullopt;  // hex: not worth reading
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return sign * v;
}

// Whether the arguments after the duration are ones the function accepts for every group (an
// argument the function refuses fails once per row as written, but never for a group without values).
bool valid_value_arguments(std::string_view fn, const std::vector<Span>& rest) {
  if (fn == "percentile") {
    const auto p = rest.size() == 1 ? number_literal(rest[0], false) : std::nullopt;
    return p && *p >= 0 && *p <= 100;
  }
  if (fn == "histogram") {
    if (rest.empty() || rest.size() > 2) return false;
    const auto width = number_literal(rest[0], false);
    const auto origin = rest.size() == 2 ? number_literal(rest[1], true) : std::optional<double>(0.0);
    return width && std::isfinite(*width) && *width > 0 && origin && std::isfinite(*origin);
  }
  if (fn == "group_concat") return rest.empty() || (rest.size() == 1 && rest[0].size() == 1 && rest[0][0].kind == Token::String);
  return rest.empty();
}

// Index of the first token at depth 0 in [from, to) that is one of `keywords`, or `to`.
size_t find_clause(Span t, size_t from, std::initializer_list<std::string_view> keywords) {
  for (size_t i = from; i < t.size(); ++i)
    if (t[i].depth == 0)
      for (auto kw : keywords)
        if (t[i].is_kw(kw)) return i;
  return t.size();
}

// Splits at depth-0 commas (depth relative to the span's first token).
std::vector<Span> split_commas(Span s) {
  std::vector<Span> parts;
  if (s.empty()) return parts;
  const size_t base = s.front().depth;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i].depth == base && s[i].is(",")) {
      parts.push_back(s.subspan(start, i - start));
      start = i + 1;
    }
  parts.push_back(s.subspan(start));
  return parts;
}

// Splits a WHERE clause into the terms its top-level ANDs join: none when an OR stands at the top
// level too (`a AND b OR c` is `(a AND b) OR c`), an AND inside a BETWEEN or a CASE ... END belongs to it.
std::vector<Span> split_and(Span s) {
  const size_t base = s.empty() ? 0 : s.front().depth;
  for (const Token& t : s)
    if (t.depth == base && t.is_kw("OR")) return {s};
  std::vector<Span> parts;
  size_t start = 0;
  int betweens = 0, cases = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].depth != base) continue;
    if (s[i].is_kw("CASE")) ++cases;
    else if (s[i].is_kw("END") && cases > 0) --cases;
    else if (s[i].is_kw("BETWEEN")) ++betweens;
    else if (s[i].is_kw("AND") && cases == 0) {
      if (betweens > 0) {
        --betweens;
      } else {
        parts.push_back(s.subspan(start, i - start));
        start = i + 1;
      }
    }
  }
  parts.push_back(s.subspan(start));
  return parts;
}

size_t closing_paren(Span t, size_t open) {
  for (size_t i = open + 1; i < t.size(); ++i)
    if (t[i].depth == t[open].depth && t[i].is(")")) return i;
  throw NotPushed{"unbalanced parentheses"};
}

// The query's text from the span's first token to its last.
std::string text_of(Span s) {
  if (s.empty()) return {};
  const char* end = s.back().text.data() + s.back().text.size();
  return std::string(s.front().text.data(), static_cast<size_t>(end - s.front().text.data()));
}

// An aggregate of the durations: the same function over the group's values (json_each's `value`)
// and over its rows of rocpd_ops or rocpd_apis (`o.duration`).
struct ValueCall {
  std::string over_values, over_rows;
  bool double_sum = false;  // avg, total: a running double sum, whose rounding depends on the order
  // percentile(duration, p): the same over the engine's sorted durations (duration_values), read
  // at two ranks, when the engine gave them (one level only).
  std::string over_sorted;
};

class Rewriter {
 public:
  explicit Rewriter(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  // The rewrite of the query; `names` are SQLite's result column names of the query as written.
  std::string run(const std::vector<std::string>& names, std::string& engine) {
    while (!toks_.empty() && toks_.back().is(";")) toks_.pop_back();
    Span t(toks_);
    for (const Token& x : t)
      if (x.is(";")) throw NotPushed{"more than one statement"};
    if (t.empty() || !t[0].is_kw("SELECT")) throw NotPushed{"not a SELECT"};
    for (size_t j = 0; j < t.size(); ++j) {
      if (t[j].kind == Token::Unknown) throw NotPushed{fmt::format("a token SQLite may read otherwise: {}", t[j].text)};
      if (t[j].kind == Token::Param) throw NotPushed{"the query has parameters"};
      for (auto kw : kRefused)
        if (j > 0 && t[j].is_kw(kw)) throw NotPushed{fmt::format("{} in the query", kw)};
      const bool temp_schema = j > 0 && t[j - 1].ident() == "temp" && j + 1 < t.size() && table_named(t[j + 1].ident());
      if (t[j].is(".") && !temp_schema) throw NotPushed{"a qualified name"};
    }
    size_t i = 1;
    std::string distinct;
    if (i < t.size() && (t[i].is_kw("DISTINCT") || t[i].is_kw("ALL"))) distinct = std::string(t[i++].text) + " ";
    const size_t from = find_clause(t, i, {"FROM"});
    if (from == t.size()) throw NotPushed{"no FROM"};
    const Span select = t.subspan(i, from - i);
    size_t k = from + 1;
    if (k + 1 < t.size() && (t[k].kind == Token::Word || t[k].kind == Token::QuotedId) && t[k].ident() == "temp" &&
        t[k + 1].is("."))
      k += 2;
    table_ = k < t.size() && t[k].is_name() ? table_named(t[k].ident()) : nullptr;
    if (!table_) throw NotPushed{"FROM is not rocpd_ops or rocpd_apis alone"};
    ++k;
    Span where, group, having, order, limit;
    auto clause = [&](std::string_view kw, bool by, std::initializer_list<std::string_view> next, Span& out) {
      if (k >= t.size() || !t[k].is_kw(kw)) return;
      const size_t start = k + (by ? 2 : 1);
      if (by && (k + 1 >= t.size() || !t[k + 1].is_kw("BY"))) throw NotPushed{fmt::format("{} without BY", kw)};
      const size_t end = find_clause(t, start, next);
      out = t.subspan(start, end - start);
      k = end;
    };
    clause("WHERE", false, {"GROUP", "HAVING", "ORDER", "LIMIT"}, where);
    clause("GROUP", true, {"HAVING", "ORDER", "LIMIT"}, group);
    clause("HAVING", false, {"ORDER", "LIMIT"}, having);
    clause("ORDER", true, {"LIMIT"}, order);
    clause("LIMIT", false, {}, limit);
    if (k != t.size()) throw NotPushed{fmt::format("'{}' where the query should end", t[k].text)};
    if (group.empty()) throw NotPushed{"no GROUP BY"};

    for (Span term : split_commas(group)) {
      if (term.size() != 1 || !term[0].is_name() || !among(table_->groupable, term[0].ident()))
        throw NotPushed{fmt::format("GROUP BY {}: the engine groups {} by {} only", text_of(term), table_->name,
                                    fmt::join(table_->groupable, ", "))};
      grouped_.insert(term[0].ident());
    }

    const std::vector<Span> items = split_commas(select);
    if (items.size() != names.size()) throw NotPushed{"the result columns are not the select list's items"};
    // Result names the rewrite adds (items without an alias): a quoted name equal to one of them is a
    // string in the query as written but would name that column in the rewrite.
    std::vector<std::string> outer_items;
    std::vector<Span> exprs;
    std::vector<std::string> alias_of(items.size());
    for (size_t c = 0; c < items.size(); ++c) {
      Span e = items[c];
      const bool as_alias = e.size() >= 3 && e[e.size() - 2].is_kw("AS");
      const bool bare_alias = !as_alias && e.size() >= 2 && e.back().is_name() && ends_expression(e[e.size() - 2]);
      if (as_alias || bare_alias) {
        alias_of[c] = e.back().kind == Token::String ? lower(names[c]) : e.back().ident();
        aliases_.insert(alias_of[c]);
      }
      if (as_alias) e = e.first(e.size() - 2);
      else if (bare_alias) e = e.first(e.size() - 1);
      else if (!(e.size() == 1 && e[0].is_name())) added_.insert(lower(names[c]));
      if (e.size() == 1 && e[0].is("*")) throw NotPushed{"SELECT *"};
      exprs.push_back(e);
    }
    for (size_t c = 0; c < exprs.size(); ++c) {
      outer_items.push_back(substitute(exprs[c], true, "the select list") + " AS " + quote_id(names[c]));
      if (!alias_of[c].empty()) {
        aggregate_alias_[alias_of[c]] |= has_aggregate(exprs[c]);
        alias_expr_.try_emplace(alias_of[c], exprs[c]);  // (SQLite resolves a repeated alias to its first)
      }
    }

    // WHERE terms pick groups before their aggregates are computed, HAVING filters them after.
    Query q;
    q.table = table_;
    for (Span term : where.empty() ? std::vector<Span>{} : split_and(where)) {
      if (!q.kind && table_ == &kOps && kind_equality(term)) {
        q.kind = std::string(term[0].kind == Token::String ? term[0].text : term[2].text);
        continue;
      }
      if (!q.gpu && table_ == &kOps) {
        if (auto gpu = gpu_equality(term)) {
          q.gpu = gpu;
          continue;
        }
      }
      q.picks.push_back("(" + substitute(term, false, "WHERE", true, true) + ")");
    }
    q.outer = fmt::format("SELECT {}{}", distinct, fmt::join(outer_items, ", "));
    // As written, SQLite moves each AND term of HAVING without an aggregate (grouped columns and
    // constants only) into WHERE, unless it is a literal false: the groups it drops never have their
    // aggregates computed (an aggregate that would fail there does not). The rewrite does the same;
    // the other terms filter the computed groups.
    std::vector<std::string> after;
    for (Span term : having.empty() ? std::vector<Span>{} : split_and_nested(having)) {
      if (always_false(term)) {
        // Not a constant in the rewrite either: SQLite would test a constant once, before any group
        // is computed, where HAVING tests each computed group.
        after.push_back(fmt::format("iif({} IS NULL, 0, 0)", quote_id(*grouped_.begin())));
        continue;
      }
      if (has_aggregate(term)) {
        after.push_back("(" + substitute(term, true, "HAVING") + ")");
        continue;
      }
      q.picks.push_back("(" + substitute(term, false, "HAVING", false, true) + ")");
    }
    if (!after.empty()) q.tail = fmt::format(" WHERE {}", fmt::join(after, " AND "));
    if (!order.empty()) q.tail += " ORDER BY " + order_by(order);
    if (!limit.empty()) q.tail += " LIMIT " + substitute(limit, false, "LIMIT");
    for (auto g : table_->groupable) {
      if (grouped_.count(std::string(g))) q.grouping.emplace_back(g);
      if (grouped_.count(std::string(g)) || finer_.count(std::string(g))) q.fine.emplace_back(g);
    }
    return column_calls_.empty() && q.fine.size() == q.grouping.size() ? one_level(q, engine) : regrouped(q, engine);
  }

 private:
  // What the builders need of the query as read.
  struct Query {
    const Table* table = nullptr;
    std::optional<std::string> kind;  // the kind filter's literal
    std::vector<std::string> picks;   // the other WHERE terms, each parenthesized
    std::vector<std::string> grouping, fine;  // the query's grouping; with the columns the engine adds
    std::string outer, tail;          // SELECT [DISTINCT] items; HAVING (as WHERE), ORDER BY, LIMIT
    std::optional<int64_t> gpu;       // `gpu = <integer>`: rocpd_op_groups' of_gpu (the members read only that gpu)
    std::string pick_sql() const {
      std::vector<std::string> all = picks;
      if (gpu) all.insert(all.begin(), fmt::format("of_gpu = {}", *gpu));
      return all.empty() ? "" : fmt::format(" WHERE {}", fmt::join(all, " AND "));
    }
    std::string engine() const {
      return fmt::format("{}('{}'{})", table->engine, fmt::join(fine, ","), kind ? ", " + *kind : "");
    }
    std::string verdict() const { return engine() + (gpu ? fmt::format(" WHERE of_gpu = {}", *gpu) : ""); }
    // The conditions picking, from the table, the rows of the group in `alias` (for an aggregate
    // the engine's rows cannot give: those rows are aggregated by SQL).
    std::string rows_of_group(std::string_view alias) const {
      std::string match = "1";
      for (const auto& g : grouping) match += fmt::format(" AND o.{0} IS \"{1}\".{0}", g, alias);
      if (kind) match += " AND o.kind = " + *kind;
      if (gpu) match += fmt::format(" AND o.gpu = {}", *gpu);
      for (const auto& p : picks) match += " AND " + p;
      return match;
    }
  };

  // `over` (SQL over the group's durations `values`, unnested by `from`) when the durations are
  // there (and, for a double sum, `exact` holds: the values, ascending, would round otherwise than
  // the rows in the order they are read), else `over_rows` over the group's rows.
  std::string by_values_or_rows(std::string_view values, std::string_view from, const ValueCall& call,
                                std::string_view rows, const std::string& name, std::string_view exact) const {
    return fmt::format("CASE {8}WHEN {0} IS NOT NULL{7} THEN (SELECT {1} FROM {2}) ELSE (SELECT {3} FROM temp.{6} AS o "
                       "WHERE {4}) END AS {5}",
                       values, call.over_values, from, call.over_rows, rows, name, table_->name,
                       call.double_sum ? fmt::format(" AND {}", exact) : "",
                       call.over_sorted.empty() ? ""
                                                : fmt::format("WHEN duration_values IS NOT NULL THEN {} ", call.over_sorted));
  }

  // The engine grouped as the query groups: one row of its table (rocpd_op_groups, rocpd_api_groups) per group.
  std::string one_level(const Query& q, std::string& engine) {
    std::vector<std::string> inner = q.grouping;
    const std::string rows = q.rows_of_group("rocpd_sql:g");
    for (const Aggregate& a : kAggregates) {
      if (!used_.count(std::string(a.call))) continue;
      if (a.call == "avg" || a.call == "total")  // a double sum: the engine's only where it is SQLite's
        inner.push_back(fmt::format("+CASE WHEN {} THEN {} ELSE (SELECT {}(o.duration) FROM temp.{} AS o WHERE {}) END AS {}",
                                    kExactDoubleSum, a.expr.substr(1), a.call, table_->name, rows,
                                    internal_name(a.call)));
      else
        inner.push_back(fmt::format("{} AS {}", a.expr, internal_name(a.call)));
    }
    for (const Aggregate& a : kTimeAggregates)
      if (used_.count(std::string(a.call))) inner.push_back(fmt::format("{} AS {}", a.expr, internal_name(a.call)));
    for (const auto& [call, exprs] : value_calls_)
      inner.push_back(by_values_or_rows("durations", "json_each(durations)", exprs, rows, internal_name(call),
                                        kExactDoubleSum));
    engine = q.verdict();
    // As written, the aggregates of every group the WHERE keeps are computed (an error in any of them,
    // an overflowing sum, fails the query); a LIMIT keeps SQLite from pushing HAVING into the groups'
    // subquery, so that they are computed for the groups HAVING then drops too.
    return fmt::format("{} FROM (SELECT {} FROM temp.{} AS \"rocpd_sql:g\"{} LIMIT -1){}", q.outer,
                       fmt::join(inner, ", "), q.engine(), q.pick_sql(), q.tail);
  }

  // The engine grouped by finer columns (q.fine), its rows regrouped by SQL as the query groups.
  std::string regrouped(const Query& q, std::string& engine) {
    std::vector<std::string> middle = q.grouping;
    std::map<std::string, ValueCall> over_values = value_calls_;  // by internal name
    for (auto& entry : over_values) entry.second.over_sorted.clear();  // (the finer groups' values are JSON)
    const std::string rows = q.rows_of_group("rocpd_sql:f");
    bool times = false;
    for (const auto& key : used_) {
      if (const Aggregate* t = time_aggregate(kTimeRegrouped, key)) {
        middle.push_back(fmt::format("{} AS {}", t->expr, internal_name(key)));
        times = true;
        continue;
      }
      const auto* a = std::find_if(kRegrouped.begin(), kRegrouped.end(), [&](const Aggregate& r) { return r.call == key; });
      if (a == kRegrouped.end()) {  // median, stddev: over the durations
        over_values.emplace(key, ValueCall{fmt::format("{}(value)", key), fmt::format("{}(o.duration)", key), false, {}});
      } else if (key == "sum" || key == "total" || key == "avg") {
        // Sums of integers add up exactly; a finer group's sum of other values (the SQL fallback met
        // reals) would round otherwise than the query's running sum, and one past 2^53 may be an
        // overflow (read, it fails): that group's rows by SQL. A double sum (total, avg) is the
        // engine's only where SQLite's running sum is exact too.
        middle.push_back(fmt::format(
            "CASE WHEN count(*) = count(CASE WHEN \"rocpd_sql:exact\" THEN iif(typeof(total_ns) IN ('integer', "
            "'null'), 1, NULL) END){} THEN {} ELSE (SELECT {}(o.duration) FROM temp.{} AS o WHERE {}) END AS {}",
            key == "sum" ? "" : fmt::format(" AND {}", kExactDoubleSumRegrouped), a->expr, key, table_->name, rows,
            internal_name(key)));
      } else {
        middle.push_back(fmt::format("{} AS {}", a->expr, internal_name(key)));
      }
    }
    for (const auto& [call, expr] : column_calls_) middle.push_back(fmt::format("{} AS {}", expr, internal_name(call)));
    // The finer groups' durations as one array of arrays; NULL when one of them has no exact
    // durations (then the group's rows are aggregated by SQL).
    if (!over_values.empty()) {
      middle.push_back("CASE WHEN count(*) = count(durations) THEN json_group_array(json(durations)) END AS "
                       "\"rocpd_sql:durations\"");
      middle.push_back(fmt::format("{} AS \"rocpd_sql:exact_sum\"", kExactDoubleSumRegrouped));
    }
    engine = fmt::format("{} regrouped by {}", q.verdict(), fmt::join(q.grouping, ","));
    // (The LIMIT keeps the finer groups' subquery apart: flattened into the GROUP BY, its total_ns
    // would be read before the CASE guarding it.)
    std::string groups = fmt::format(
        "SELECT {} FROM (SELECT {}, instances, timed, {} AS \"rocpd_sql:exact\", CASE WHEN {} THEN total_ns END AS "
        "total_ns, min_ns, max_ns{}{} FROM temp.{}{} LIMIT -1) AS \"rocpd_sql:f\" GROUP BY {}",
        fmt::join(middle, ", "), fmt::join(q.fine, ", "), kExactDoubleSum, kExactDoubleSum,
        over_values.empty() ? "" : ", durations",
        times ? ", n_start, min_start, max_start, n_end, min_end, max_end" : "", q.engine(), q.pick_sql(), fmt::join(q.grouping, ", "));
    if (!over_values.empty()) {
      std::vector<std::string> exprs;
      const std::string group_rows = q.rows_of_group("rocpd_sql:m");
      for (const auto& [call, e] : over_values)
        exprs.push_back(by_values_or_rows("\"rocpd_sql:durations\"",
                                          "json_tree(\"rocpd_sql:durations\") WHERE type = 'integer'", e, group_rows,
                                          internal_name(call), "\"rocpd_sql:exact_sum\""));
      groups = fmt::format("SELECT *, {} FROM ({}) AS \"rocpd_sql:m\" LIMIT -1", fmt::join(exprs, ", "), groups);
    }
    else
      groups += " LIMIT -1";  // as one_level's
    return fmt::format("{} FROM ({}){}", q.outer, groups, q.tail);
  }
  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  static std::string internal_name(std::string_view call) { return quote_id(fmt::format("rocpd_sql:{}", call)); }

  // Whether a token can end an expression (so that a name after it is an alias).
  static bool ends_expression(const Token& t) {
    if (t.is(")")) return true;
    if (t.kind == Token::Number || t.kind == Token::String || t.kind == Token::Blob || t.kind == Token::QuotedId)
      return true;
    if (t.kind != Token::Word) return false;
    return !t.is_keyword() || t.is_kw("NULL") || t.is_kw("END") || t.is_kw("CURRENT_DATE") ||
           t.is_kw("CURRENT_TIME") || t.is_kw("CURRENT_TIMESTAMP");
  }

  // ORDER BY: a term that is one name (before COLLATE, ASC, DESC, NULLS) names a result alias first,
  // in the query as written and in the rewrite alike (SQLite looks up aliases first there only).
  std::string order_by(Span order) {
    std::string out;
    for (Span term : split_commas(order)) {
      size_t n = term.size();
      while (n > 0 && (term[n - 1].is_kw("ASC") || term[n - 1].is_kw("DESC") || term[n - 1].is_kw("FIRST") ||
                       term[n - 1].is_kw("LAST") || term[n - 1].is_kw("NULLS")))
        --n;
      if (n >= 3 && term[n - 2].is_kw("COLLATE")) n -= 2;
      const bool alias = n == 1 && term[0].is_name() && aliases_.count(term[0].ident()) &&
                         !added_.count(term[0].ident()) && term[0].ident().rfind("rocpd_sql:", 0) != 0;
      if (!out.empty()) out += ", ";
      out += alias ? text_of(term) : substitute(term, true, "ORDER BY");
    }
    return out;
  }

  // Whether `e` holds an aggregate: a call that is no scalar function (anything else is refused by
  // substitute()), or a result alias whose expression holds one (a name that is no column of the
  // table: SQLite looks up the table's columns first).
  bool has_aggregate(Span e) const {
    const std::vector<bool> not_names = not_column_names(e);
    for (size_t j = 0; j < e.size(); ++j) {
      const Token& tok = e[j];
      const bool call = j + 1 < e.size() && e[j + 1].is("(") && (tok.kind == Token::Word || tok.kind == Token::QuotedId) &&
                        !std::any_of(kOperatorKeywords.begin(), kOperatorKeywords.end(),
                                     [&](std::string_view kw) { return tok.is_kw(kw); });
      if (call) {
        const std::string fn = tok.ident();
        const size_t close = closing_paren(e, j + 1);
        const bool several = split_commas(e.subspan(j + 2, close - j - 2)).size() > 1;
        if (!among(kScalars, fn) || ((fn == "min" || fn == "max") && !several)) return true;
        continue;
      }
      if (!tok.is_name() || not_names[j] || !aliases_.count(tok.ident()) || among(table_->columns, tok.ident())) continue;
      const auto it = aggregate_alias_.find(tok.ident());
      if (it != aggregate_alias_.end() && it->second) return true;
    }
    return false;
  }

  // SQLite's "always false" expression: the integer literal 0 (or FALSE), which it never moves out of HAVING.
  static bool always_false(Span e) {
    if (e.size() != 1) return false;
    if (e[0].kind == Token::Word) return e[0].ident() == "false";
    if (e[0].kind != Token::Number || e[0].text.find_first_of(".eE") != std::string_view::npos) return false;
    return e[0].text.find_first_not_of("0_xX") == std::string_view::npos;
  }

  // The AND terms of `s`, also inside parentheses that wrap a whole term (SQLite walks every AND).
  static std::vector<Span> split_and_nested(Span s) {
    std::vector<Span> out;
    for (Span term : split_and(s)) {
      if (term.size() >= 2 && term.front().is("(") && closing_paren(term, 0) == term.size() - 1) {
        for (Span inner : split_and_nested(term.subspan(1, term.size() - 2))) out.push_back(inner);
      } else {
        out.push_back(term);
      }
    }
    return out;
  }

  // The words of `e` that name no column: a collation after COLLATE, the type of a CAST(x AS type).
  static std::vector<bool> not_column_names(Span e) {
    std::vector<bool> out(e.size(), false);
    for (size_t j = 0; j < e.size(); ++j) {
      if (e[j].is_kw("COLLATE") && j + 1 < e.size()) out[j + 1] = true;
      if (!e[j].is_kw("CAST") || j + 1 >= e.size() || !e[j + 1].is("(")) continue;
      const size_t close = closing_paren(e, j + 1);
      size_t as = close;
      for (size_t k = j + 2; k < close; ++k)
        if (e[k].depth == e[j + 1].depth + 1 && e[k].is_kw("AS")) as = k;
      for (size_t k = as + 1; k < close; ++k) out[k] = true;
    }
    return out;
  }

  // `gpu = <digits>` (or `==`, or the other way round): rocpd_op_groups' of_gpu, which reads only the
  // ops whose gpu is that integer, as rocpd_ops' INTEGER column compares with it.
  static std::optional<int64_t> gpu_equality(Span term) {
    if (term.size() != 3 || !(term[1].is("=") || term[1].is("=="))) return std::nullopt;
    auto is_gpu = [](const Token& x) { return x.is_name() && x.ident() == "gpu"; };
    const Token* lit = is_gpu(term[0]) ? &term[2] : is_gpu(term[2]) ? &term[0] : nullptr;
    if (!lit || lit->kind != Token::Number || lit->text.empty() || lit->text.size() > 18 ||
        !std::all_of(lit->text.begin(), lit->text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return std::strtoll(std::string(lit->text).c_str(), nullptr, 10);
  }

  // `kind = '<text>'` (or `==`, or the other way round): what rocpd_op_groups' of_kind filters.
  static bool kind_equality(Span term) {
    if (term.size() != 3 || !(term[1].is("=") || term[1].is("=="))) return false;
    auto is_kind = [](const Token& x) { return x.is_name() && x.ident() == "kind"; };
    return (is_kind(term[0]) && term[2].kind == Token::String) || (is_kind(term[2]) && term[0].kind == Token::String);
  }

  // The text of `e` with every pushed aggregate replaced by its engine column; throws NotPushed for
  // anything whose value could differ between the query as written and the rewrite.
  // `finer_ok`: a groupable column that is not grouped may appear (WHERE: the engine then groups by
  // it too, and the rows are regrouped).
  // `columns_only`: the text moves into the groups' subquery, so every name must be a column of the table.
  std::string substitute(Span e, bool aggregates_allowed, std::string_view where, bool finer_ok = false,
                         bool columns_only = false) {
    const std::vector<bool> not_names = not_column_names(e);
    // The query's own text between the tokens (spaces, line breaks, comments) is kept.
    std::string out;
    const char* last_end = nullptr;
    auto emit = [&](const Token& first, std::string_view s, const Token& last) {
      if (last_end) out.append(last_end, static_cast<size_t>(first.text.data() - last_end));
      out += s;
      last_end = last.text.data() + last.text.size();
    };
    for (size_t j = 0; j < e.size(); ++j) {
      const Token& tok = e[j];
      const bool call = j + 1 < e.size() && e[j + 1].is("(") && (tok.kind == Token::Word || tok.kind == Token::QuotedId) &&
                        !std::any_of(kOperatorKeywords.begin(), kOperatorKeywords.end(),
                                     [&](std::string_view kw) { return tok.is_kw(kw); });
      if (call) {
        const std::string fn = tok.ident();
        const size_t close = closing_paren(e, j + 1);
        const Span args = e.subspan(j + 2, close - j - 2);
        const bool star = args.size() == 1 && args[0].is("*");
        const bool duration = args.size() == 1 && args[0].is_name() && args[0].ident() == "duration";
        const bool several = split_commas(args).size() > 1;
        const std::string key = fn == "count" && star ? "count*" : fn;
        const bool aggregate = std::any_of(kAggregates.begin(), kAggregates.end(),
                                           [&](const Aggregate& a) { return a.call == key; });
        if (aggregate && ((fn == "count" && star) || duration)) {
          if (!aggregates_allowed) throw NotPushed{fmt::format("an aggregate in {}", where)};
          used_.insert(key);
          emit(tok, internal_name(key), e[close]);
          j = close;
          continue;
        }
        // count, min, max of start or end (not DISTINCT: the same values either way, but kept simple).
        if (args.size() == 1 && args[0].is_name() && (args[0].ident() == "start" || args[0].ident() == "end") &&
            (fn == "count" || fn == "min" || fn == "max")) {
          if (!aggregates_allowed) throw NotPushed{fmt::format("an aggregate in {}", where)};
          const std::string time_key = fmt::format("{} {}", fn, args[0].ident());
          used_.insert(time_key);
          emit(tok, internal_name(time_key), e[close]);
          j = close;
          continue;
        }
        auto name = value_aggregate(fn, args);
        if (!name) name = column_aggregate(fn, args);
        if (name) {
          if (!aggregates_allowed) throw NotPushed{fmt::format("an aggregate in {}", where)};
          emit(tok, *name, e[close]);
          j = close;
          continue;
        }
        if (!among(kScalars, fn) || ((fn == "min" || fn == "max") && !several))
          throw NotPushed{fmt::format("{}: {}({}) is not an aggregate of duration the engine computes (count(*), "
                                      "count, sum, total, avg, min, max, median, stddev of duration) nor a known "
                                      "scalar function",
                                      where, tok.text, text_of(args))};
        emit(tok, tok.text, tok);
        continue;
      }
      if (tok.is_name() && !not_names[j]) {
        const std::string id = tok.ident();
        // WHERE moves into the groups' subquery, where a name that is no column of the query's table
        // (as written: a result alias, or a double-quoted string) could name a column of the engine's
        // table (instances, total_ns, of_kind, ...). Only the table's own columns resolve alike there.
        if (columns_only && !among(table_->columns, id) && alias_expr_.count(id) && !in_alias_) {
          // A result alias (in WHERE, or in a HAVING term moved there) stands for its expression, as
          // SQLite resolves it; a name in that expression is a column or a string, never an alias.
          in_alias_ = true;  // (a NotPushed ends the rewrite: no need to reset it then)
          const std::string expr = substitute(alias_expr_.at(id), false, where, false, true);
          in_alias_ = false;
          emit(tok, "(" + expr + ")", tok);
          continue;
        }
        if (columns_only && !among(table_->columns, id))
          throw NotPushed{fmt::format("{}: {} is not a column of {} (as written an alias or a string; the "
                                      "groups' subquery would read it otherwise)",
                                      where, tok.text, table_->name)};
        if (id.rfind("rocpd_sql:", 0) == 0 || added_.count(id))
          throw NotPushed{fmt::format("{}: the name {} would mean something else in the rewrite", where, tok.text)};
        if (finer_ok && among(table_->groupable, id)) finer_.insert(id);
        else if (among(table_->columns, id) && !grouped_.count(id))
          throw NotPushed{fmt::format("{}: column {} is not grouped and not inside a pushed aggregate", where, tok.text)};
      }
      emit(tok, tok.text, tok);
    }
    return out;
  }


  // `fn(args)` when it is an aggregate of the duration answered from the group's durations: the
  // internal column standing for it (its inner expression recorded), else nullopt.
  std::optional<std::string> value_aggregate(const std::string& fn, Span args) {
    if (!among(kValueAggregates, fn)) return std::nullopt;
    std::vector<Span> parts = split_commas(args);
    if (parts.empty()) return std::nullopt;
    Span first = parts[0];
    const bool distinct = first.size() == 2 && first[0].is_kw("DISTINCT");
    if (distinct) first = first.subspan(1);
    if (first.size() != 1 || !first[0].is_name() || first[0].ident() != "duration") return std::nullopt;
    if (distinct && parts.size() > 1) return std::nullopt;  // SQLite refuses it
    const std::vector<Span> rest(parts.begin() + 1, parts.end());
    if (!valid_value_arguments(fn, rest)) return std::nullopt;
    std::string extra;
    for (Span r : rest) extra += ", " + text_of(r);
    const std::string dist = distinct ? "DISTINCT " : "";
    const std::string call = fmt::format("{}({}duration{})", fn, dist, extra);
    value_calls_.try_emplace(call, ValueCall{fmt::format("{}({}value{})", fn, dist, extra),
                                             fmt::format("{}({}o.duration{})", fn, dist, extra),
                                             fn == "avg" || fn == "total",
                                             fn == "percentile" ? fmt::format("rocpd_values_percentile(duration_values{})", extra)
                                                                : std::string()});
    return "+" + internal_name(call);
  }

  // `fn(args)` when it aggregates a groupable column (kColumnAggregates): the internal column standing
  // for it (the column joins the engine's grouping), else nullopt.
  std::optional<std::string> column_aggregate(const std::string& fn, Span args) {
    const bool distinct = args.size() == 2 && args[0].is_kw("DISTINCT");
    const Span col = distinct ? args.subspan(1) : args;
    if (col.size() != 1 || !col[0].is_name() || !among(table_->groupable, col[0].ident())) return std::nullopt;
    const std::string id = col[0].ident();
    const std::string key = distinct ? fn + " DISTINCT" : fn;
    for (const ColumnAggregate& a : kColumnAggregates) {
      if (a.call != key) continue;
      const std::string call = fmt::format("{}({}{})", fn, distinct ? "DISTINCT " : "", id);
      column_calls_.try_emplace(call, "+" + fmt::format(fmt::runtime(a.over_groups), quote_id(id)));
      finer_.insert(id);
      return "+" + internal_name(call);
    }
    return std::nullopt;
  }

  std::vector<Token> toks_;
  const Table* table_ = nullptr;
  std::set<std::string> grouped_, used_, added_, aliases_;
  std::map<std::string, bool> aggregate_alias_;  // alias -> whether its expression holds an aggregate
  std::map<std::string, Span> alias_expr_;        // alias -> its expression
  bool in_alias_ = false;                          // substituting an alias's expression
  std::set<std::string> finer_;  // groupable columns the engine groups by beyond the query's grouping
  std::map<std::string, std::string> column_calls_;  // call -> its SQL over the finer groups
  std::map<std::string, ValueCall> value_calls_;     // call -> its SQL over the values, over the rows

};

// SQLite's result column names of `sql`, or nullopt (with its message) when SQLite refuses it.
std::optional<std::vector<std::string>> column_names(sqlite3* db, std::string_view sql, std::string& error) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK || !raw) {
    error = raw ? "" : sqlite3_errmsg(db);
    if (!raw && error.empty()) error = "empty statement";
    sqlite3_finalize(raw);
    return std::nullopt;
  }
  Stmt stmt(raw);
  std::vector<std::string> names;
  for (int c = 0; c < sqlite3_column_count(raw); ++c) {
    const char* n = sqlite3_column_name(raw, c);
    if (!n) throw std::bad_alloc();
    names.emplace_back(n);
  }
  return names;
}

bool pushdown_disabled() {
  const char* v = std::getenv("ROCPD_PUSHDOWN");
  return v && std::string_view(v) == "0";
}

}  // namespace

Rewrite rewrite_group_query(sqlite3* db, std::string_view sql) {
  Rewrite r;
  r.sql = std::string(sql);
  if (pushdown_disabled()) {
    r.reason = "ROCPD_PUSHDOWN=0";
    return r;
  }
  std::string error;
  const auto names = column_names(db, sql, error);
  if (!names) {
    r.reason = "SQLite refuses the query: " + error;
    return r;
  }
  try {
    std::string engine;
    std::string rewritten = Rewriter(tokenize(sql)).run(*names, engine);
    const auto got = column_names(db, rewritten, error);
    if (!got) throw NotPushed{"the rewrite does not prepare (" + error + "): " + rewritten};
    if (*got != *names) throw NotPushed{"the rewrite's column names differ"};
    r.pushed = true;
    r.sql = std::move(rewritten);
    r.engine = std::move(engine);
  } catch (const NotPushed& e) {
    r.reason = e.reason;
  }
  return r;
}

std::string_view sql_argument(sqlite3_value* sql, const char* function) {
  if (sqlite3_value_type(sql) != SQLITE_TEXT) {
    static constexpr const char* kTypes[] = {"", "an integer", "a real", "", "a blob", "NULL"};
    throw Error(fmt::format("{}(sql): sql must be the text of a query, got {}", function,
                            kTypes[sqlite3_value_type(sql)]));
  }
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(sql));
  if (!text) throw std::bad_alloc();
  return std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(sql)));
}

Rewrite rewrite_argument(sqlite3_context* ctx, sqlite3_value* sql, const char* function) {
  return rewrite_group_query(sqlite3_context_db_handle(ctx), sql_argument(sql, function));
}

}  // namespace rocpd::pushdown
