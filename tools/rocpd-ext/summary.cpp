#include "summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "critical_path_section.h"
#include "findings_section.h"
#include "roofline_section.h"
#include "job_progress.h"
#include "summary_calls.h"
#include "display.h"
#include "html_report.h"
#include "member_facts.h"
#include "text_clean.h"
#include "time_shares.h"
#include "warnings.h"

namespace rocpd_cli {

namespace {
struct SectionSql {
  const char* name;
  const char* title;
  const char* sql;  // ?1: the row limit (--top + 1, so that a cut shows)
};

// Every figure comes from the views as they are, so a section equals its view.
const SectionSql kSections[] = {
    // findings_section.h: printed right after the headline; read last, over the tables the others fill.
    {"findings", "Findings: what is wrong, worst first (rocpd_findings, docs/anomalies.md)", nullptr},
    {"job", "Job",
     "SELECT count(*) AS members, min(first_ns) AS first_ns, max(last_ns) AS last_ns,"
     " max(last_ns) - min(first_ns) AS span_ns, sum(ops) AS ops, sum(apis) AS apis,"
     " (SELECT count(*) FROM temp.cli_busy) AS gpus, (SELECT sum(busy_ns) FROM temp.cli_busy) AS busy_ns,"
     " round(100.0 * (SELECT sum(busy_ns) FROM temp.cli_busy) /"
     "   ((SELECT count(*) FROM temp.cli_busy) * nullif(max(last_ns) - min(first_ns), 0)), 2) AS gpu_busy_pct"
     " FROM rocpd_members"},
    {"members", "Members",
     "SELECT db, format, version, hostname, ops, apis, last_ns - first_ns AS span_ns, path FROM rocpd_members"},
    // The per-GPU sections come worst first: most idle, least busy.
    {"breakdown", "Where each GPU's time went, most idle first (rocpd_time_breakdown: unions of op intervals: compute "
                  "kernels, communication kernels, copies and fills; overlap: compute during communication; idle: span "
                  "minus busy)",
     "SELECT db, gpu, span_ns, busy_ns, compute_ns, comm_ns, copy_ns, overlap_ns, idle_ns,"
     " round(compute_pct, 2) AS compute_pct, round(comm_pct, 2) AS comm_pct, round(copy_pct, 2) AS copy_pct,"
     " round(idle_pct, 2) AS idle_pct"
     " FROM temp.cli_breakdown ORDER BY idle_ns * 1.0 / span_ns DESC, db COLLATE rocpd_natural, gpu"},
    {"busy", "GPU busy time, least busy first (union of the op intervals, per GPU)",
     "SELECT db, gpu, busy_ns, span_ns, busy_pct, ops FROM temp.cli_busy"
     " ORDER BY busy_ns * 1.0 / span_ns, db COLLATE rocpd_natural, gpu"},
    // avg_bytes is over the copies that have a size; `unsized` counts the others.
    {"copies", "Copies and fills (per kind: time, bytes, bandwidth over the copies with a size and a duration)",
     "SELECT round(100.0 * total_ns / sum(total_ns) OVER (), 2) AS time_pct, total_ns, count,"
     " round(1.0 * total_ns / count, 1) AS avg_ns, bytes, round(1.0 * bytes / nullif(sized, 0), 1) AS avg_bytes,"
     " count - sized AS unsized, round(1.0 * timed_bytes / nullif(timed_ns, 0), 3) AS gb_per_s, kind, name"
     " FROM (SELECT 'copy' AS kind, name, count(*) AS count, coalesce(sum(duration), 0) AS total_ns,"
     "              sum(bytes) AS bytes, count(bytes) AS sized, sum(bytes) FILTER (WHERE duration > 0) AS timed_bytes,"
     "              sum(duration) FILTER (WHERE bytes IS NOT NULL AND duration > 0) AS timed_ns"
     "       FROM rocpd_copies GROUP BY name"
     "       UNION ALL"
     "       SELECT 'fill', name, count(*), coalesce(sum(duration), 0), NULL, count(*), NULL, NULL"
     "       FROM rocpd_ops WHERE kind = 'fill' GROUP BY name)"
     " ORDER BY total_ns DESC, kind, name LIMIT ?1"},
    {"kernels", "Top kernels (rocpd_kernel_summary)", "SELECT * FROM rocpd_kernel_summary LIMIT ?1"},
    // roofline_section.h: shown only when a kernel has counters a formula maps (or when asked for).
    {"roofline", "Roofline: top kernels by time against their GPU's roof (rocpd_kernel_roofline_by_kernel)", nullptr},
    // summary_calls.h: runtime and driver calls; the markers, annotations and the profiler's own calls.
    {"apis", "Top API calls (runtime and driver calls of every member; names normalised)", nullptr},
    {"other_calls", "Markers, GPU annotations and the profiler's own calls (no API calls; names normalised)", nullptr},
    // The stragglers are read once, for this section and the findings (findings_section.h).
    {"stragglers", "Stragglers: who held the collectives back (rocpd_stragglers)", "SELECT * FROM temp.cli_stragglers"},
    {"steps", "Steps: how evenly the ranks ran them (rocpd_step_summary)", "SELECT * FROM rocpd_step_summary"},
    // critical_path_section.h: its statement reads the segments it keeps for the html lane chart.
    {"critical_path", "Critical path of the slowest and the median step: its share per kind (rocpd_critical_path)",
     nullptr},
    {"idle", "GPU idle time by cause, most idle first (rocpd_idle_breakdown)",
     "SELECT db, gpu, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, busy_ns"
     " FROM rocpd_idle_breakdown WHERE level = 'gpu' ORDER BY idle_ns DESC, db COLLATE rocpd_natural, gpu"},
};

// Share of unmatched collectives up to which the job's collectives count as matching across
// members (a trace cut a little earlier on one rank still names its stragglers).
constexpr double kUnmatchedShare = 0.1;

std::string job_line(const ResultSet& job) {
  if (job.rows.empty()) return "";
  auto col = [&](const char* name) -> const Cell& {
    auto it = std::find(job.columns.begin(), job.columns.end(), name);
    return job.rows[0][static_cast<size_t>(it - job.columns.begin())];
  };
  auto count = [&](const char* name) { return col(name).type == Cell::Type::Integer ? with_separators(col(name).integer) : "0"; };
  std::string s = fmt::format("{} member{}, {} GPU ops, {} API calls", count("members"),
                              col("members").integer == 1 ? "" : "s", count("ops"), count("apis"));
  if (col("span_ns").is_number()) s += ", span " + format_duration(col("span_ns").number(), TimeUnit::Auto);
  if (col("gpus").type == Cell::Type::Integer && col("gpus").integer > 0) {
    s += fmt::format("; {} GPU{}", col("gpus").integer, col("gpus").integer == 1 ? "" : "s");
    if (col("gpu_busy_pct").is_number()) s += fmt::format(", busy {} % of the span on average", col("gpu_busy_pct").text);
  }
  return s;
}

// Keeps the first `top` rows; the note says when there were more (how many, when all were read).
void cut(ResultSet& rs, long long top, bool total_known) {
  size_t n = static_cast<size_t>(top);
  if (rs.rows.size() <= n) return;
  const auto more = static_cast<std::int64_t>(rs.rows.size() - n);
  rs.rows.resize(n);
  rs.note = total_known ? fmt::format("... and {} more (-n/--top shows more)", with_separators(more))
                        : fmt::format("(the first {} rows; -n/--top shows more)", n);
}

// The sections read whole (bounded by the job's GPUs, members or names), so a cut one says how
// many rows it left out.
bool reads_whole(const std::string& name) {
  for (const char* s : {"members", "breakdown", "busy", "apis", "other_calls", "stragglers", "steps", "idle"})
    if (name == s) return true;
  return false;
}

// The stragglers only mean something when the members issued the same collectives.
void judge_stragglers(ResultSet& rs) {
  std::int64_t collectives = 0, unmatched = 0;
  auto at = [&](const char* name) {
    return static_cast<size_t>(std::find(rs.columns.begin(), rs.columns.end(), name) - rs.columns.begin());
  };
  for (const auto& r : rs.rows) {
    collectives += r[at("collectives")].integer;
    unmatched += r[at("unmatched")].integer;
  }
  if (rs.rows.size() < 2 || collectives == 0) {
    rs.rows.clear();
    rs.note = "(none: the job has no collective that two participants share)";
  } else if (static_cast<double>(unmatched) > kUnmatchedShare * static_cast<double>(collectives + unmatched)) {
    rs.note = fmt::format("(none: the members' collectives do not match across members: {} of {} are beyond the "
                          "sequence they share, so no rank can be named late; SELECT * FROM rocpd_stragglers has the "
                          "figures)",
                          with_separators(unmatched), with_separators(collectives + unmatched));
    rs.rows.clear();
  }
}

bool wanted(const std::vector<std::string>& only, const char* name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}
}  // namespace

std::vector<std::string> section_list(const Summary& s) {
  std::vector<std::string> names;
  for (const auto& rs : s.sections) names.push_back(rs.name);
  return names;
}

bool is_section(const std::string& name) {
  return std::any_of(std::begin(kSections), std::end(kSections), [&](const auto& s) { return name == s.name; });
}

std::string section_names() {
  std::string out;
  for (const auto& s : kSections) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

Summary build_summary(Session& session, const Options& o) {
  Summary out;
  std::vector<MemberFacts> facts = read_member_facts(session);
  progress_phase("summary: warnings");
  out.warnings = job_warnings(session, facts);
  progress_phase("summary: where the GPUs' time went (rocpd_time_breakdown)");
  prepare_breakdown(session);
  out.headline.push_back(shares_line(job_shares(session)));
  std::optional<CallSections> calls;
  size_t index = 0;
  for (const auto& s : kSections) {
    std::string name = s.name;
    ++index;
    // The headline needs the job row even when the job section is not printed.
    if (!wanted(o.sections, s.name) && name != "job") continue;
    if (name == "findings") continue;
    progress_phase(fmt::format("summary: section {} ({} of {})", name, index, std::size(kSections)));
    ResultSet rs;
    if (name == "apis" || name == "other_calls") {
      if (!calls) calls = call_sections(session, wanted(o.sections, "other_calls"));
      rs = name == "apis" ? std::move(calls->apis) : std::move(calls->other_calls);
    } else if (name == "critical_path") {
      prepare_critical_path(session);
      rs = critical_path_section(session, o.top);
      for (auto& line : critical_path_bounds(session)) out.headline.push_back(std::move(line));
    } else if (name == "steps") {
      rs = session.run(fmt::format("SELECT * FROM {}", prepare_steps(session)));
    } else if (name == "roofline") {
      // Not asked for and no kernel with counter values (the warnings' temp.cli_counted): no row
      // can come, and the roofline views would still read every member's counters and devices.
      if (o.sections.empty() && session.scalar("SELECT count(*) FROM temp.cli_counted").integer == 0) continue;
      rs = roofline_section(session, o.top);
      if (rs.rows.empty() && o.sections.empty()) continue;
      if (rs.rows.empty()) rs.note = "(none: no kernel has counters that docs/roofline.md's formulas map)";
    } else {
      if (name == "stragglers") prepare_stragglers(session);
      // rocpd_busy is read once, for the job's row and the busy section (each read is a pass
      // over every member).
      if (name == "job" || name == "busy") prepare_busy(session);
      std::vector<Param> params;
      if (std::string(s.sql).find("?1") != std::string::npos) params.push_back(Param(std::int64_t{o.top + 1}));
      rs = session.run(s.sql, params);
    }
    rs.name = s.name;
    rs.title = s.title;
    if (name == "job") out.headline.push_back(job_line(rs));
    if (name == "stragglers") judge_stragglers(rs);
    const std::string ranges = o.steps ? "ranges named like '" + *o.steps + "'" : "ProfilerStep#N ranges";
    if (name == "steps" && rs.rows.empty())
      rs.note = "(none: no member has step ranges, the " + ranges + " rocpd_steps finds; --steps PATTERN chooses them)";
    if (name == "critical_path" && rs.rows.empty())
      rs.note = "(none: no member has step ranges, the " + ranges +
                " rocpd_critical_path follows; --steps PATTERN chooses them)";
    if (name != "critical_path") cut(rs, o.top, reads_whole(name));
    if (wanted(o.sections, s.name)) out.sections.push_back(std::move(rs));
  }
  if (wanted(o.sections, "findings")) {
    progress_phase("summary: findings (rocpd_findings)");
    ResultSet rs = findings_section(session, o.top);
    rs.name = kSections[0].name;
    rs.title = kSections[0].title;
    out.sections.insert(out.sections.begin(), std::move(rs));
  }
  if (o.by_rank) {
    std::vector<Shares> ranks = member_shares(session);
    for (size_t i = 0; i < ranks.size() && i < static_cast<size_t>(o.top); ++i)
      out.headline.push_back("  " + shares_line(ranks[i]));
    if (ranks.size() > static_cast<size_t>(o.top))
      out.headline.push_back(fmt::format("  ... and {} more (-n/--top shows more)",
                                         with_separators(static_cast<std::int64_t>(ranks.size()) - o.top)));
  }
  return out;
}

void write_human_section(std::ostream& out, const ResultSet& rs, Format format, TimeUnit unit) {
  ResultSet shown = for_display(rs, unit);
  if (format == Format::Markdown) {
    out << "\n## " << terminal_text(rs.title) << "\n\n";
    if (!shown.rows.empty() || shown.note.empty()) write_markdown(out, shown);
    if (!shown.note.empty()) out << (shown.rows.empty() ? "" : "\n") << terminal_text(shown.note) << '\n';
  } else if (format == Format::Html) {
    out << "<h2" << (rs.name.empty() ? "" : " id=\"section-" + html_escape(rs.name) + "\"") << ">"
        << html_escape(rs.title) << "</h2>\n";
    if (!shown.rows.empty() || shown.note.empty()) write_html_table(out, shown);
    if (!shown.note.empty()) out << "<p class=\"note\">" << html_escape(shown.note) << "</p>\n";
  } else {
    out << '\n' << terminal_text(rs.title) << '\n';
    if (!shown.rows.empty() || shown.note.empty()) write_table(out, shown);
    if (!shown.note.empty()) out << terminal_text(shown.note) << '\n';
  }
}

void write_summary(std::ostream& out, const Summary& s, const Options& o, Session& session) {
  auto human = [&](const ResultSet& rs) {
    if (rs.name == "findings") write_findings(out, rs, o.format, o.timeunit, section_list(s));
    else write_human_section(out, rs, o.format, o.timeunit);
  };
  switch (o.format) {
    case Format::Table:
      for (const auto& line : s.headline) out << terminal_text(line) << '\n';
      for (const auto& rs : s.sections) human(rs);
      break;
    case Format::Markdown:
      out << "# rocpd-ext summary\n\n";
      for (const auto& line : s.headline) out << terminal_text(line) << "  \n";
      for (const auto& w : s.warnings) out << "\n**warning:** " << terminal_text(w) << '\n';
      for (const auto& rs : s.sections) human(rs);
      break;
    case Format::Csv:
      // The csv tables are the sections' (the findings are lines of text, in the other formats).
      for (size_t i = 0, n = 0; i < s.sections.size(); ++i) {
        if (s.sections[i].name == "findings") continue;
        if (n++) out << '\n';
        write_csv(out, s.sections[i]);
      }
      break;
    case Format::Json: {
      JsonWriter json(session.handle());
      out << '{';
      for (size_t i = 0; i < s.sections.size(); ++i) {
        const auto& rs = s.sections[i];
        out << (i ? ",\n " : "") << json.quote(rs.name) << ": ";
        if (rs.name == "job" && rs.rows.size() == 1) out << json.object(rs.columns, rs.rows[0]);
        else json.array(out, rs);
      }
      out << "}\n";
      break;
    }
    case Format::Html:
      write_html_summary(out, s, o, session);
      break;
  }
}

}  // namespace rocpd_cli
