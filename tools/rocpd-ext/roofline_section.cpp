#include "roofline_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "output.h"

namespace rocpd_cli {

namespace {
constexpr const char* kSectionSql =
    "SELECT kernel, coalesce(device, device_name) AS device, instances, duration AS total_ns, flops, bytes, round(intensity, 3) AS flop_per_byte,"
    " round(flop_s / 1e12, 4) AS tflop_s, round(bytes_s / 1e12, 4) AS tb_s, peak, round(pct_of_roof, 4) AS pct_of_roof,"
    " bound, warning FROM rocpd_kernel_roofline_by_kernel ORDER BY duration DESC, kernel, device_name LIMIT ?1";

// The peak columns of rocpd_device_peaks, each drawn as a roof when the device's row has it.
constexpr const char* kPeaks[] = {"fp64_vector", "fp64_matrix", "fp32_vector", "fp32_matrix", "tf32_matrix",
                                  "fp16_vector", "fp16_matrix", "bf16_vector", "bf16_matrix", "int8_matrix"};
constexpr const char* kRoofColors[] = {"#08519c", "#3182bd", "#006d2c", "#31a354", "#74c476",
                                       "#a50f15", "#de2d26", "#54278f", "#756bb1", "#636363"};
constexpr const char* kPointColor = "#e6550d";

struct Point {
  std::string kernel;
  double duration, intensity, flop_s, pct;
  std::string bound;
};

// Plot geometry: the plot area inside margins, log10 axes spanning whole decades.
struct Axes {
  double x0 = 80, y0 = 20, w = 560, h = 360;
  double lx_lo, lx_hi, ly_lo, ly_hi;
  double x(double v) const { return x0 + (std::log10(v) - lx_lo) / (lx_hi - lx_lo) * w; }
  double y(double v) const { return y0 + h - (std::log10(v) - ly_lo) / (ly_hi - ly_lo) * h; }
};

std::string decade_label(int e, const char* unit) {
  static const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  if (e >= 0 && e < 21) return fmt::format("{} {}{}", static_cast<int>(std::pow(10, e % 3)), kPrefix[e / 3], unit);
  return fmt::format("1e{} {}", e, unit);
}
}  // namespace

ResultSet roofline_section(Session& session, long long top) {
  return session.run(kSectionSql, {Param(std::int64_t{top + 1})});
}

void write_roofline_svg(std::ostream& out, Session& session, long long top) {
  const Cell device = session.scalar(
      "SELECT device FROM rocpd_kernel_roofline_by_kernel WHERE roof_flop_s IS NOT NULL AND intensity > 0 AND"
      " flop_s > 0 GROUP BY device ORDER BY sum(duration) DESC, device LIMIT 1");
  if (device.type != Cell::Type::Text) return;
  std::vector<Point> points;
  session.each("SELECT kernel, duration, intensity, flop_s, pct_of_roof, bound FROM rocpd_kernel_roofline_by_kernel"
               " WHERE device = ?1 AND roof_flop_s IS NOT NULL AND intensity > 0 AND flop_s > 0"
               " ORDER BY duration DESC, kernel LIMIT ?2",
               {Param(device.text), Param(std::int64_t{top})}, [&](const std::vector<Cell>& r) {
                 points.push_back({r[0].text, r[1].number(), r[2].number(), r[3].number(), r[4].number(), r[5].text});
               });
  const ResultSet peaks = session.run("SELECT * FROM rocpd_device_peaks WHERE device = ?1", {Param(device.text)});
  if (points.empty() || peaks.rows.empty()) return;
  auto col = [&](const char* name) -> const Cell& {
    auto it = std::find(peaks.columns.begin(), peaks.columns.end(), name);
    return peaks.rows[0][static_cast<size_t>(it - peaks.columns.begin())];
  };
  const double bw = col("mem_tb_s").number() * 1e12;
  std::vector<std::pair<size_t, double>> roofs;  // peak index, FLOP/s
  for (size_t i = 0; i < std::size(kPeaks); ++i)
    if (col(kPeaks[i]).is_number() && col(kPeaks[i]).number() > 0) roofs.emplace_back(i, col(kPeaks[i]).number() * 1e12);
  if (roofs.empty() || !(bw > 0)) return;

  double xmin = points[0].intensity, xmax = xmin, ymin = points[0].flop_s, ymax = ymin, maxdur = 0;
  for (const auto& p : points) {
    xmin = std::min(xmin, p.intensity), xmax = std::max(xmax, p.intensity);
    ymin = std::min(ymin, p.flop_s), ymax = std::max(ymax, p.flop_s), maxdur = std::max(maxdur, p.duration);
  }
  for (const auto& [i, peak] : roofs) {
    xmin = std::min(xmin, peak / bw), xmax = std::max(xmax, peak / bw), ymax = std::max(ymax, peak);
  }
  Axes a;
  a.lx_lo = std::floor(std::log10(xmin)) - 1, a.lx_hi = std::ceil(std::log10(xmax)) + 1;
  a.ly_lo = std::floor(std::log10(ymin)), a.ly_hi = std::ceil(std::log10(ymax * 1.5));
  const double width = a.x0 + a.w + 260, height = a.y0 + a.h + 56 + 14 * static_cast<double>(points.size());

  out << fmt::format("<svg id=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\">\n",
                     width, height);
  out << fmt::format("<defs><clipPath id=\"roof-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>"
                     "</defs>\n", a.x0, a.y0, a.w, a.h);
  out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000\"/>\n", a.x0, a.y0,
                     a.w, a.h);
  for (int e = static_cast<int>(a.lx_lo); e <= static_cast<int>(a.lx_hi); ++e) {
    const double x = a.x(std::pow(10.0, e));
    out << fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       x, a.y0, a.y0 + a.h, a.y0 + a.h + 16, e >= 0 ? fmt::format("{:g}", std::pow(10.0, e))
                                                                     : fmt::format("1e{}", e));
  }
  for (int e = static_cast<int>(a.ly_lo); e <= static_cast<int>(a.ly_hi); ++e) {
    const double y = a.y(std::pow(10.0, e));
    out << fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                       a.x0, y, a.x0 + a.w, a.x0 - 6, y + 4, decade_label(e, "FLOP/s"));
  }
  out << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity (FLOP per byte of device "
                     "memory traffic)</text>\n", a.x0 + a.w / 2, a.y0 + a.h + 36);
  // Each roof: the bandwidth slope up to its ridge, then flat at its peak; clipped to the plot. Data
  // types with the same peak share one line and one label; labels keep 14 px apart.
  std::sort(roofs.begin(), roofs.end(), [](const auto& l, const auto& r) { return l.second > r.second; });
  double label_y = 0;
  for (size_t k = 0; k < roofs.size();) {
    const double peak = roofs[k].second, lo = std::pow(10.0, a.lx_lo), hi = std::pow(10.0, a.lx_hi), ridge = peak / bw;
    std::string names;
    const char* color = kRoofColors[roofs[k].first];
    for (; k < roofs.size() && roofs[k].second == peak; ++k) names += (names.empty() ? "" : ", ") + std::string(kPeaks[roofs[k].first]);
    out << fmt::format("<polyline clip-path=\"url(#roof-area)\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                       "points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>\n",
                       color, a.x(lo), a.y(lo * bw), a.x(ridge), a.y(peak), a.x(hi), a.y(peak));
    label_y = std::max(a.y(peak) + 4, label_y + 14);
    out << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" style=\"fill:{}\">{} {:g} T</text>\n", a.x0 + a.w + 6, label_y,
                       color, names, peak / 1e12);
  }
  out << fmt::format("<text x=\"{}\" y=\"{}\">{} ({:g} TB/s)</text>\n", a.x0 + 8, a.y0 + 14, html_escape(device.text),
                     bw / 1e12);
  // Points, largest first so that small ones stay visible; area proportional to time. Numbered,
  // with the names listed under the plot.
  for (size_t k = 0; k < points.size(); ++k) {
    const auto& p = points[k];
    const double r = 3 + 12 * std::sqrt(p.duration / maxdur);
    out << fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.6\" "
                       "stroke=\"#000\"><title>{}: {:.2f} % of roof, {}-bound</title></circle>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"lbl\">{}</text>\n",
                       a.x(p.intensity), a.y(p.flop_s), r, kPointColor, html_escape(p.kernel), p.pct, p.bound,
                       a.x(p.intensity) + r + 2, a.y(p.flop_s) + 4, k + 1);
    std::string name = p.kernel.size() > 60 ? p.kernel.substr(0, 57) + "..." : p.kernel;
    out << fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"mono\">{:>2} {} ({:.2f} % of roof, {}-bound)</text>\n",
                       a.x0, a.y0 + a.h + 56 + 14 * static_cast<double>(k), k + 1, html_escape(name), p.pct, p.bound);
  }
  out << "</svg>\n";
}

}  // namespace rocpd_cli
