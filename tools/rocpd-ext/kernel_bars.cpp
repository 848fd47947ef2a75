#include "kernel_bars.h"

#include <fmt/format.h>

#include <algorithm>

#include "output.h"

namespace rocpd_cli {

void write_kernel_bars_svg(std::ostream& out, const ResultSet& kernels) {
  auto pct_col = std::find(kernels.columns.begin(), kernels.columns.end(), "time_pct");
  auto name_col = std::find(kernels.columns.begin(), kernels.columns.end(), "kernel");
  if (pct_col == kernels.columns.end() || name_col == kernels.columns.end() || kernels.rows.empty()) return;
  size_t pi = static_cast<size_t>(pct_col - kernels.columns.begin());
  size_t ni = static_cast<size_t>(name_col - kernels.columns.begin());
  size_t chars = 0;
  double top = 0;
  for (const auto& r : kernels.rows) {
    chars = std::max(chars, r[ni].text.size());
    if (r[pi].is_number()) top = std::max(top, r[pi].type == Cell::Type::Real ? r[pi].real : static_cast<double>(r[pi].integer));
  }
  const long long label_w = static_cast<long long>(std::min<size_t>(chars, 80)) * 8 + 16, bar_max = 400, pitch = 18;
  const long long height = pitch * static_cast<long long>(kernels.rows.size()) + 4;
  out << fmt::format("<svg id=\"kernel-bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n",
                     label_w + bar_max + 80, height);
  for (size_t i = 0; i < kernels.rows.size(); ++i) {
    const auto& r = kernels.rows[i];
    double pct = r[pi].type == Cell::Type::Real ? r[pi].real : static_cast<double>(r[pi].integer);
    long long y = pitch * static_cast<long long>(i);
    long long w = top > 0 ? static_cast<long long>(pct / top * static_cast<double>(bar_max) + 0.5) : 0;
    out << fmt::format("<text x=\"0\" y=\"{}\" class=\"mono\">{}</text>", y + 13, html_escape(r[ni].text));
    out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"{}\"/>", label_w, y + 2, w, kBarColor);
    out << fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">{} %</text>\n", label_w + w + 6, y + 13,
                       html_escape(r[pi].text));
  }
  out << "</svg>\n";
}

}  // namespace rocpd_cli
