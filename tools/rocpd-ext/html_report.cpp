#include "html_report.h"

#include <algorithm>

#include "critical_path_lanes.h"
#include "findings_section.h"
#include "heatmap.h"
#include "kernel_bars.h"
#include "output.h"
#include "roofline_section.h"
#include "summary.h"

namespace rocpd_cli {

namespace {
// The policy forbids every fetch: the page shows the same offline as online.
void head(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
         "<title>"
      << html_escape(title)
      << "</title>\n<style>\n"
         "body { font-family: sans-serif; font-size: 14px; margin: 16px; color: #000; background: #fff; }\n"
         "h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 24px; }\n"
         "table { border-collapse: collapse; margin-bottom: 8px; }\n"
         "th, td { border: 1px solid #999; padding: 2px 6px; text-align: left; white-space: nowrap; }\n"
         "th { background: #e8e8e8; } .n { text-align: right; font-variant-numeric: tabular-nums; }\n"
         "svg text { font-size: 12px; fill: #000; } svg text.mono, svg text.lbl { font-family: monospace; }\n"
         "pre { background: #f4f4f4; padding: 8px; }\n"
         "ul.warnings li { color: #000; } p.note { font-style: italic; }\n"
         "</style>\n</head>\n<body>\n";
}

void warnings_list(std::ostream& out, const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  out << "<ul class=\"warnings\">\n";
  for (const auto& w : warnings) out << "<li><strong>warning:</strong> " << html_escape(w) << "</li>\n";
  out << "</ul>\n";
}
}  // namespace

void write_html_summary(std::ostream& out, const Summary& s, const Options& o, Session& session) {
  head(out, "rocpd-ext summary");
  out << "<h1>rocpd-ext summary</h1>\n";
  for (const auto& line : s.headline) out << "<p class=\"headline\">" << html_escape(line) << "</p>\n";
  warnings_list(out, s.warnings);
  for (const auto& rs : s.sections)
    if (rs.name == "findings") write_findings(out, rs, Format::Html, o.timeunit, section_list(s));
  bool gpu_sections = std::any_of(s.sections.begin(), s.sections.end(),
                                  [](const ResultSet& rs) { return rs.name == "busy" || rs.name == "breakdown"; });
  if (gpu_sections) {
    Heatmap h = read_heatmap(session, o.buckets, o.top);
    if (!h.rows.empty()) {
      out << "<h2>GPU time over the job: compute, communication and copies (" << h.buckets << " buckets)</h2>\n";
      write_heatmap_svg(out, h);
    }
    if (!h.note.empty()) out << "<p class=\"note\">" << html_escape(h.note) << "</p>\n";
  }
  for (const auto& rs : s.sections) {
    if (rs.name == "kernels" && !rs.rows.empty()) {
      out << "<h2>Top kernels: share of the job's kernel time</h2>\n";
      write_kernel_bars_svg(out, rs);
    }
    if (rs.name == "critical_path") write_critical_path_svg(out, session, o.top);
    if (rs.name == "roofline" && !rs.rows.empty()) {
      out << "<h2>Roofline: the top kernels against their GPU's roofs (log-log; point area: time)</h2>\n";
      write_roofline_svg(out, session, o.top);
    }
  }
  for (const auto& rs : s.sections)
    if (rs.name != "findings") write_human_section(out, rs, Format::Html, o.timeunit);
  html_page_end(out);
}

void html_page_begin(std::ostream& out, const std::string& title, const std::string& pre,
                     const std::vector<std::string>& warnings) {
  head(out, title);
  out << "<h1>" << html_escape(title) << "</h1>\n";
  if (!pre.empty()) out << "<pre>" << html_escape(pre) << "</pre>\n";
  warnings_list(out, warnings);
}

void html_page_end(std::ostream& out) { out << "</body>\n</html>\n"; }

}  // namespace rocpd_cli
