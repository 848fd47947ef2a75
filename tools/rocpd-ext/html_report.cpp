#include "html_report.h"

#include "heatmap.h"
#include "kernel_bars.h"
#include "output.h"
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
         "</style>\n</head>\n<body>\n";
}
}  // namespace

void write_html_summary(std::ostream& out, const Summary& s, Session& session, long long buckets) {
  head(out, "rocpd-ext summary");
  out << "<h1>rocpd-ext summary</h1>\n<p class=\"headline\">" << html_escape(s.headline) << "</p>\n";
  for (const auto& rs : s.sections) {
    if (rs.name == "busy") {
      Heatmap h = read_heatmap(session, buckets);
      if (!h.rows.empty()) {
        out << "<h2>GPU utilization over the job (" << h.buckets << " buckets)</h2>\n";
        write_heatmap_svg(out, h);
      }
    }
  }
  for (const auto& rs : s.sections) {
    if (rs.name == "kernels" && !rs.rows.empty()) {
      out << "<h2>Top kernels: share of the job's kernel time</h2>\n";
      write_kernel_bars_svg(out, rs);
    }
  }
  for (const auto& rs : s.sections) {
    out << "<h2>" << html_escape(rs.title) << "</h2>\n";
    write_html_table(out, rs);
  }
  out << "</body>\n</html>\n";
}

void write_html_results(std::ostream& out, const std::vector<ResultSet>& sets, const std::string& sql) {
  head(out, "rocpd-ext query");
  out << "<h1>rocpd-ext query</h1>\n<pre>" << html_escape(sql) << "</pre>\n";
  for (const auto& rs : sets) write_html_table(out, rs);
  out << "</body>\n</html>\n";
}

}  // namespace rocpd_cli
