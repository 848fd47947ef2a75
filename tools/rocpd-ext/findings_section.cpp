#include "findings_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "critical_path_section.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
// The section that shows a rule's figures (html links to it when it is on the page).
constexpr std::pair<const char*, const char*> kRuleSection[] = {
    {"cpu_bound", "critical_path"},  {"collective_bound", "critical_path"}, {"gpu_bound", "critical_path"},
    {"copy_bound", "copies"},        {"comm_exposed", "breakdown"},         {"tiny_kernels", "kernels"},
    {"slow_steps", "steps"},         {"straggler", "stragglers"},           {"idle_gpu", "idle"},
    {"kernel_outliers", "kernels"},  {"launch_delays", "apis"},             {"idle_gaps", "idle"},
    {"sync_idle", "idle"},           {"low_roof", "roofline"},            {"counter_replay", "roofline"},
};

constexpr const char* kColumns = "rule, severity, figures, at_stake_ns, at_stake_pct, next, evidence";

bool ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string view_sql(Session& session, const char* view) {
  ResultSet rs = session.run("SELECT sql FROM sqlite_temp_master WHERE type = 'view' AND name = ?1",
                             {Param(std::string(view))});
  return rs.rows.empty() ? "" : rs.rows[0][0].text;
}

bool temp_exists(Session& session, const char* name) {
  return session.scalar("SELECT count(*) FROM sqlite_temp_master WHERE name = ?1", {Param(std::string(name))}).integer > 0;
}

// Makes temp view `as` from view `view`'s statement with each text of `texts` replaced (each must
// be there) and then `names`; false when the view is not there as expected (then the summary reads
// the view itself).
bool derive_view(Session& session, const char* view, const char* as,
                 const std::vector<std::pair<std::string, std::string>>& names,
                 const std::vector<std::pair<std::string, std::string>>& texts = {}) {
  std::string sql = view_sql(session, view);
  const std::string head = fmt::format("CREATE VIEW {} AS", view);
  if (!sql.starts_with(head)) return false;
  for (const auto& [from, to] : texts) {
    const size_t at = sql.find(from);
    if (at == std::string::npos) return false;
    sql.replace(at, from.size(), to);
  }
  sql = replace_names(sql.substr(head.size()), names);
  session.run(fmt::format("CREATE TEMP VIEW IF NOT EXISTS {} AS{}", as, sql));
  return true;
}

std::string line_of(const ResultSet& rs, const std::vector<Cell>& r, TimeUnit unit) {
  auto at = [&](const char* name) -> const Cell& {
    return r[static_cast<size_t>(std::find(rs.columns.begin(), rs.columns.end(), name) - rs.columns.begin())];
  };
  std::string s = fmt::format("[{}] {}: {}", at("severity").text, at("rule").text, at("figures").text);
  if (at("at_stake_ns").is_number()) {
    s += "; at stake " + format_duration(at("at_stake_ns").number(), unit);
    if (at("at_stake_pct").is_number()) s += fmt::format(" ({} %)", at("at_stake_pct").text);
  }
  return s;
}
}  // namespace

std::string replace_names(const std::string& sql, const std::vector<std::pair<std::string, std::string>>& names) {
  std::string out;
  out.reserve(sql.size());
  size_t i = 0;
  auto skip_to = [&](const std::string& end) {
    const size_t at = sql.find(end, i);
    const size_t stop = at == std::string::npos ? sql.size() : at + end.size();
    out.append(sql, i, stop - i);
    i = stop;
  };
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '\'' || c == '"' || c == '`') {
      // '' inside a literal closes and reopens it: copied the same.
      out += c;
      ++i;
      skip_to(std::string(1, c));
    } else if (sql.compare(i, 2, "--") == 0) {
      skip_to("\n");
    } else if (sql.compare(i, 2, "/*") == 0) {
      skip_to("*/");
    } else if (ident(c)) {
      size_t j = i;
      while (j < sql.size() && ident(sql[j])) ++j;
      const std::string word = sql.substr(i, j - i);
      auto it = std::find_if(names.begin(), names.end(), [&](const auto& p) { return p.first == word; });
      out += it == names.end() ? word : it->second;
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

void prepare_busy(Session& session) {
  session.run("CREATE TEMP TABLE IF NOT EXISTS cli_busy AS SELECT * FROM rocpd_busy");
}

void prepare_stragglers(Session& session) {
  session.run("CREATE TEMP TABLE IF NOT EXISTS cli_stragglers AS SELECT * FROM rocpd_stragglers");
}

std::string prepare_steps(Session& session) {
  session.run("CREATE TEMP TABLE IF NOT EXISTS cli_steps AS SELECT * FROM rocpd_steps");
  return derive_view(session, "rocpd_step_summary", "cli_step_summary", {{"rocpd_steps", "temp.cli_steps"}})
             ? "temp.cli_step_summary"
             : "rocpd_step_summary";
}

ResultSet findings_section(Session& session, long long top) {
  // The views' inputs, read once: the summary's breakdown, the stragglers, the steps, the critical path.
  session.run("CREATE TEMP VIEW IF NOT EXISTS cli_time_breakdown AS SELECT *, NULL AS step FROM temp.cli_breakdown");
  prepare_stragglers(session);
  prepare_steps(session);
  // The gaps' figures of the sync_idle rule, read once.
  session.run("CREATE TEMP TABLE IF NOT EXISTS cli_gap_groups AS SELECT * FROM temp.rocpd_gap_groups");
  prepare_busy(session);  // the job and busy sections' (and the gpu_idle anomalies' SQL path)
  std::vector<std::pair<std::string, std::string>> names = {{"rocpd_time_breakdown", "temp.cli_time_breakdown"},
                                                            {"rocpd_busy", "temp.cli_busy"},
                                                            {"rocpd_stragglers", "temp.cli_stragglers"},
                                                            {"rocpd_steps", "temp.cli_steps"},
                                                            {"rocpd_gap_groups", "cli_gap_groups"}};
  const char* from = "rocpd_findings";
  // The summary has read the steps and the stragglers already: its screen reads nothing ahead
  // for them (rocpd_gpu_screen's pattern, docs/diagnosis.md).
  if (derive_view(session, "rocpd_anomalies", "cli_anomalies", names,
                  {{"temp.rocpd_gpu_screen(rocpd_step_pattern())", "temp.rocpd_gpu_screen"}})) {
    names.emplace_back("rocpd_anomalies", "temp.cli_anomalies");
    prepare_critical_path(session);
    if (!temp_exists(session, "cli_critical_path_summary")) critical_path_bounds(session);
    if (temp_exists(session, "cli_critical_path_summary"))
      names.emplace_back("rocpd_critical_path_summary", "temp.cli_critical_path_summary");
    if (derive_view(session, "rocpd_findings", "cli_findings", names)) from = "temp.cli_findings";
  }
  ResultSet rs = session.run(fmt::format("SELECT {} FROM {} LIMIT ?1", kColumns, from), {Param(std::int64_t{top + 1})});
  if (rs.rows.size() > static_cast<size_t>(top)) {
    rs.rows.resize(static_cast<size_t>(top));
    rs.note = fmt::format("(the first {} findings; -n/--top shows more)", top);
  }
  return rs;
}

void write_findings(std::ostream& out, const ResultSet& rs, Format format, TimeUnit unit,
                    const std::vector<std::string>& sections) {
  const size_t severity = static_cast<size_t>(std::find(rs.columns.begin(), rs.columns.end(), "severity") - rs.columns.begin());
  const size_t evidence = static_cast<size_t>(std::find(rs.columns.begin(), rs.columns.end(), "evidence") - rs.columns.begin());
  const size_t rule = 0;
  const bool high = std::any_of(rs.rows.begin(), rs.rows.end(), [&](const auto& r) { return r[severity].text == "high"; });
  std::vector<std::string> lines;
  if (rs.rows.empty()) lines.push_back("no finding");
  else if (!high) lines.push_back("no high-severity finding; the others:");
  if (format == Format::Html) {
    out << "<h2 id=\"section-findings\">" << html_escape(rs.title) << "</h2>\n";
    for (const auto& l : lines) out << "<p class=\"findings\">" << html_escape(l) << "</p>\n";
    if (!rs.rows.empty()) out << "<ol class=\"findings\">\n";
    for (const auto& r : rs.rows) {
      out << "<li>" << html_escape(line_of(rs, r, unit));
      auto it = std::find_if(std::begin(kRuleSection), std::end(kRuleSection),
                             [&](const auto& p) { return r[rule].text == p.first; });
      if (it != std::end(kRuleSection) && std::find(sections.begin(), sections.end(), it->second) != sections.end())
        out << fmt::format("; see <a href=\"#section-{0}\">{0}</a>", it->second);
      if (r[evidence].type == Cell::Type::Text) out << "; evidence: <code>" << html_escape(r[evidence].text) << "</code>";
      out << "</li>\n";
    }
    if (!rs.rows.empty()) out << "</ol>\n";
    if (!rs.note.empty()) out << "<p class=\"note\">" << html_escape(rs.note) << "</p>\n";
    return;
  }
  // md: the query in backticks, so that its * and _ are not read as emphasis.
  const char* quote = format == Format::Markdown ? "`" : "";
  for (const auto& r : rs.rows) {
    std::string l = line_of(rs, r, unit);
    if (r[evidence].type == Cell::Type::Text) l += fmt::format("; evidence: {0}{1}{0}", quote, r[evidence].text);
    lines.push_back(std::move(l));
  }
  if (!rs.note.empty()) lines.push_back(rs.note);
  if (format == Format::Markdown) {
    out << "\n## " << terminal_text(rs.title) << "\n\n";
    for (const auto& l : lines) out << "- " << terminal_text(l) << '\n';
  } else {
    out << '\n' << terminal_text(rs.title) << '\n';
    for (const auto& l : lines) out << "  " << terminal_text(l) << '\n';
  }
}

}  // namespace rocpd_cli
