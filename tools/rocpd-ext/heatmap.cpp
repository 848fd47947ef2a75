#include "heatmap.h"

#include <fmt/format.h>

#include <algorithm>

#include "output.h"

namespace rocpd_cli {

// ColorBrewer's sequential "Blues" widened to ten steps; none is white or grey, so the page's
// text and backgrounds never take a heatmap colour.
const char* const kHeatColors[10] = {"#f0f6fd", "#d6e6f5", "#bdd7ee", "#9ecae1", "#6baed6",
                                     "#4292c6", "#2171b5", "#08519c", "#08306b", "#041c40"};

int heat_class(std::int64_t busy_ns, std::int64_t bucket_ns) {
  if (bucket_ns <= 0 || busy_ns <= 0) return 0;
  // Integer arithmetic: a bucket exactly 30 % busy is class 3 on every machine.
  return static_cast<int>(std::min<std::int64_t>(9, busy_ns * 10 / bucket_ns));
}

Heatmap read_heatmap(Session& session, long long buckets) {
  Heatmap h;
  ResultSet span = session.run("SELECT min(first_ns), max(last_ns) FROM rocpd_members");
  if (span.rows.empty() || span.rows[0][0].type != Cell::Type::Integer || span.rows[0][1].type != Cell::Type::Integer)
    return h;
  h.lo = span.rows[0][0].integer;
  h.hi = span.rows[0][1].integer;
  if (h.hi <= h.lo) return h;
  std::int64_t span_ns = 0;
  if (__builtin_sub_overflow(h.hi, h.lo, &span_ns)) {
    h.note = fmt::format("no utilization heatmap: the job's timestamps run from {} to {} ns, more ns apart than an "
                         "int64 holds (its members are not on one clock)",
                         h.lo, h.hi);
    return h;
  }
  h.buckets = std::min<long long>(buckets, span_ns);
  ResultSet rs = session.run(
      "SELECT db, gpu, bucket_end - bucket_start, busy_ns FROM rocpd_utilization(NULL, ?1, ?2, ?3)",
      {Param(h.lo), Param(h.hi), Param(std::int64_t{h.buckets})});
  for (const auto& r : rs.rows) {
    std::string label = r[0].text + " gpu " + r[1].text;
    if (h.rows.empty() || h.rows.back().label != label) h.rows.push_back({label, {}, {}});
    h.rows.back().bucket_ns.push_back(r[2].integer);
    h.rows.back().busy_ns.push_back(r[3].integer);
  }
  return h;
}

void write_heatmap_svg(std::ostream& out, const Heatmap& h) {
  // Whole pixels everywhere, so every bucket is a block of one colour (the test counts them).
  const long long cell_w = std::max(1LL, 800 / std::max(1LL, h.buckets)), cell_h = 13, pitch = 14;
  size_t label_chars = 0;
  for (const auto& r : h.rows) label_chars = std::max(label_chars, r.label.size());
  const long long label_w = static_cast<long long>(label_chars) * 8 + 12;
  const long long grid_w = cell_w * h.buckets, grid_h = pitch * static_cast<long long>(h.rows.size());
  const long long width = std::max(label_w + grid_w + 20, 620LL), height = grid_h + 94;
  out << fmt::format(
      "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" shape-rendering=\"crispEdges\""
      " data-buckets=\"{}\" data-cell-width=\"{}\" data-cell-height=\"{}\" data-lo=\"{}\" data-hi=\"{}\">\n",
      width, height, h.buckets, cell_w, cell_h, h.lo, h.hi);
  for (size_t i = 0; i < h.rows.size(); ++i) {
    const auto& r = h.rows[i];
    long long y = pitch * static_cast<long long>(i);
    out << fmt::format("<text x=\"0\" y=\"{}\" class=\"lbl\">{}</text>\n", y + 11, html_escape(r.label));
    // Consecutive buckets of one class are one rect (an idle stretch of 1000 buckets is one element).
    size_t b = 0;
    while (b < r.busy_ns.size()) {
      int c = heat_class(r.busy_ns[b], r.bucket_ns[b]);
      size_t e = b + 1;
      while (e < r.busy_ns.size() && heat_class(r.busy_ns[e], r.bucket_ns[e]) == c) ++e;
      out << fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: buckets {}-{}, {}-{} % busy</title></rect>\n",
          label_w + cell_w * static_cast<long long>(b), y, cell_w * static_cast<long long>(e - b), cell_h, kHeatColors[c],
          html_escape(r.label), b, e - 1, c * 10, c * 10 + 10);
      b = e;
    }
  }
  // Time axis: ms since the job's first timestamp at five ticks.
  long long axis_y = grid_h + 4;
  for (int t = 0; t <= 4; ++t) {
    long long x = label_w + grid_w * t / 4;
    double ms = static_cast<double>(h.hi - h.lo) * t / 4 / 1e6;
    out << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000\"/>", x, axis_y, x, axis_y + 5);
    out << fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"{}\">{:.1f} ms</text>\n", x, axis_y + 18,
                       t == 0 ? "start" : t == 4 ? "end" : "middle", ms);
  }
  // Legend: the ten classes.
  long long ly = axis_y + 30;
  out << fmt::format("<text x=\"0\" y=\"{}\">busy share of each bucket:</text>\n", ly + 11);
  ly += 18;
  for (int c = 0; c < 10; ++c) {
    long long x = 60 * c;
    out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" class=\"legend\"/>", x, ly,
                       kHeatColors[c]);
    out << fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">{}{}%</text>\n", x + 17, ly + 11, c * 10,
                       c == 9 ? "+" : "");
  }
  out << "</svg>\n";
}

}  // namespace rocpd_cli
