#include "summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "html_report.h"

namespace rocpd_cli {

namespace {
struct SectionSql {
  const char* name;
  const char* title;
  const char* sql;  // ?1: the --top row limit where it applies
};

// Every figure comes from the views as they are, so a section equals its view.
const SectionSql kSections[] = {
    {"job", "Job",
     "SELECT count(*) AS members, min(first_ns) AS first_ns, max(last_ns) AS last_ns,"
     " max(last_ns) - min(first_ns) AS span_ns, sum(ops) AS ops, sum(apis) AS apis,"
     " (SELECT count(*) FROM rocpd_busy) AS gpus, (SELECT sum(busy_ns) FROM rocpd_busy) AS busy_ns,"
     " round(100.0 * (SELECT sum(busy_ns) FROM rocpd_busy) /"
     "   ((SELECT count(*) FROM rocpd_busy) * nullif(max(last_ns) - min(first_ns), 0)), 2) AS gpu_busy_pct"
     " FROM rocpd_members"},
    {"members", "Members",
     "SELECT db, format, version, hostname, ops, apis, last_ns - first_ns AS span_ns, path FROM rocpd_members"},
    {"busy", "GPU busy time (union of the op intervals, per GPU)",
     "SELECT db, gpu, busy_ns, span_ns, busy_pct, ops FROM rocpd_busy"},
    {"kernels", "Top kernels (rocpd_kernel_summary)", "SELECT * FROM rocpd_kernel_summary LIMIT ?1"},
    {"apis", "Top API calls (rocpd_union('apis'), all members)",
     "SELECT round(100.0 * total_ns / sum(total_ns) OVER (), 2) AS time_pct, total_ns, calls,"
     " round(1.0 * total_ns / calls, 1) AS avg_ns, api"
     " FROM (SELECT name AS api, sum(calls) AS calls, sum(total_ns) AS total_ns"
     "       FROM rocpd_union('apis') GROUP BY name)"
     " ORDER BY total_ns DESC, api LIMIT ?1"},
    {"idle", "GPU idle time by cause (rocpd_idle_breakdown)",
     "SELECT db, gpu, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, busy_ns"
     " FROM rocpd_idle_breakdown WHERE level = 'gpu'"},
};

std::string human_ns(long double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", static_cast<double>(ns));
  if (ns < 1e6) return fmt::format("{:.2f} us", static_cast<double>(ns / 1e3));
  if (ns < 1e9) return fmt::format("{:.2f} ms", static_cast<double>(ns / 1e6));
  return fmt::format("{:.3f} s", static_cast<double>(ns / 1e9));
}

std::string headline_of(const ResultSet& job) {
  if (job.rows.empty()) return "";
  auto col = [&](const char* name) -> const Cell& {
    auto it = std::find(job.columns.begin(), job.columns.end(), name);
    return job.rows[0][static_cast<size_t>(it - job.columns.begin())];
  };
  std::string s = fmt::format("{} member{}, {} GPU ops, {} API calls", col("members").text,
                              col("members").text == "1" ? "" : "s", col("ops").text, col("apis").text);
  if (col("span_ns").type == Cell::Type::Integer) s += ", span " + human_ns(static_cast<long double>(col("span_ns").integer));
  if (col("gpus").type == Cell::Type::Integer && col("gpus").integer > 0) {
    s += fmt::format("; {} GPU{}", col("gpus").integer, col("gpus").integer == 1 ? "" : "s");
    if (col("gpu_busy_pct").is_number()) s += fmt::format(", busy {} % of the span on average", col("gpu_busy_pct").text);
  }
  return s;
}
}  // namespace

bool is_section(const std::string& name) {
  return std::any_of(std::begin(kSections), std::end(kSections), [&](const auto& s) { return name == s.name; });
}

std::string section_names() {
  std::string out;
  for (const auto& s : kSections) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

Summary build_summary(Session& session, long long top, const std::vector<std::string>& only) {
  Summary out;
  for (const auto& s : kSections) {
    bool wanted = only.empty() || std::find(only.begin(), only.end(), s.name) != only.end();
    // The headline needs the job row even when the job section is not printed.
    if (!wanted && std::string(s.name) != "job") continue;
    std::vector<Param> params;
    if (std::string(s.sql).find("?1") != std::string::npos) params.push_back(Param(std::int64_t{top}));
    ResultSet rs = session.run(s.sql, params);
    rs.name = s.name;
    rs.title = s.title;
    if (rs.name == "job") out.headline = headline_of(rs);
    if (wanted) out.sections.push_back(std::move(rs));
  }
  return out;
}

void write_summary(std::ostream& out, const Summary& s, Format format, Session& session, long long buckets) {
  switch (format) {
    case Format::Table:
      out << s.headline << '\n';
      for (const auto& rs : s.sections) {
        out << '\n' << rs.title << '\n';
        write_table(out, rs);
      }
      break;
    case Format::Markdown:
      out << "# rocpd-ext summary\n\n" << s.headline << "\n";
      for (const auto& rs : s.sections) {
        out << "\n## " << rs.title << "\n\n";
        write_markdown(out, rs);
      }
      break;
    case Format::Csv:
      for (size_t i = 0; i < s.sections.size(); ++i) {
        if (i) out << '\n';
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
      write_html_summary(out, s, session, buckets);
      break;
  }
}

}  // namespace rocpd_cli
