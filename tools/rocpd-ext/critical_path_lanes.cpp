#include "critical_path_lanes.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "display.h"
#include "output.h"

namespace rocpd_cli {

namespace {
// The slowest step as the section chooses it (ties: the lower step), its segments in time order.
constexpr const char* kSegments = R"(
SELECT step, db, tid, gpu, queue, kind, name, start, duration, stream, waited_for FROM temp.cli_critical_path
WHERE step = (SELECT step FROM temp.cli_critical_path GROUP BY step ORDER BY sum(duration) DESC, step LIMIT 1)
ORDER BY start, rowid)";

std::string lane_of(const std::vector<Cell>& r) {
  const Cell &db = r[1], &tid = r[2], &gpu = r[3], &queue = r[4], &stream = r[9];
  if (tid.type != Cell::Type::Null) return fmt::format("{} thread {}", db.text, tid.text);
  if (gpu.type != Cell::Type::Null)
    return fmt::format("{} gpu {}{}{}", db.text, gpu.text, queue.type == Cell::Type::Null ? "" : " queue " + queue.text,
                       stream.type == Cell::Type::Null ? "" : " stream " + stream.text);
  return db.text;
}
bool gpu_lane(const std::vector<Cell>& r) { return r[2].type == Cell::Type::Null && r[3].type != Cell::Type::Null; }

const char* color_of(const std::string& kind) {
  for (size_t i = 0; i < std::size(kPathKinds); ++i)
    if (kind == kPathKinds[i]) return kPathColors[i];
  return "#000000";
}
}  // namespace

void write_critical_path_svg(std::ostream& out, Session& session, long long max_lanes) {
  ResultSet rs = session.run(kSegments);
  if (rs.rows.empty()) return;
  // Lanes in order of first use, every GPU lane the path runs through first, then the threads.
  std::vector<std::string> lanes;
  std::map<std::string, size_t> index;
  std::int64_t lo = rs.rows.front()[7].integer, hi = lo;
  for (int gpu_pass = 1; gpu_pass >= 0; --gpu_pass)
    for (const auto& r : rs.rows) {
      if (gpu_lane(r) != (gpu_pass == 1)) continue;
      std::string lane = lane_of(r);
      if (!index.count(lane)) {
        index.emplace(lane, lanes.size());
        lanes.push_back(lane);
      }
      hi = std::max(hi, r[7].integer + r[8].integer);
    }
  size_t gpu_lanes = 0;
  for (const auto& r : rs.rows)
    if (gpu_lane(r)) gpu_lanes = std::max(gpu_lanes, index.at(lane_of(r)) + 1);
  const size_t drawn = std::min(lanes.size(), std::max(gpu_lanes, static_cast<size_t>(max_lanes)));
  size_t chars = 0;
  for (size_t i = 0; i < drawn; ++i) chars = std::max(chars, lanes[i].size());
  const long long label_w = static_cast<long long>(std::min<size_t>(chars, 60)) * 8 + 12, plot_w = 1000, pitch = 20;
  const long long plot_h = pitch * static_cast<long long>(drawn), legend_y = plot_h + 24;
  const double span = static_cast<double>(std::max<std::int64_t>(hi - lo, 1));
  out << fmt::format("<h2>Critical path of the slowest step (step {}, {}): one lane per GPU queue or stream it runs "
                     "through, then per thread</h2>\n",
                     rs.rows.front()[0].text, format_duration(span, TimeUnit::Auto));
  out << fmt::format("<svg id=\"critical-path\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n",
                     label_w + plot_w + 8, legend_y + 20);
  for (size_t i = 0; i < drawn; ++i)
    out << fmt::format("<text x=\"0\" y=\"{}\" class=\"lbl\">{}</text>\n", pitch * static_cast<long long>(i) + 14,
                       html_escape(lanes[i]));
  size_t left_out = 0;
  for (const auto& r : rs.rows) {
    size_t lane = index.at(lane_of(r));
    if (lane >= drawn) {
      ++left_out;
      continue;
    }
    // Every segment gets a rect of at least one pixel, so that a short one still shows.
    double x0 = static_cast<double>(r[7].integer - lo) / span * plot_w;
    double w = std::max(1.0, static_cast<double>(r[8].integer) / span * plot_w);
    std::string what = r[6].type == Cell::Type::Null ? r[5].text : r[5].text + " " + r[6].text;
    if (r[10].type != Cell::Type::Null) what += " (waited for " + r[10].text + ")";
    out << fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\"><title>{}: {}</title></rect>\n",
                       static_cast<double>(label_w) + x0, pitch * static_cast<long long>(lane) + 2, w,
                       color_of(r[5].text), html_escape(what),
                       html_escape(format_duration(static_cast<double>(r[8].integer), TimeUnit::Auto)));
  }
  long long x = label_w;
  for (size_t i = 0; i < std::size(kPathKinds); ++i) {
    out << fmt::format("<rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>", x,
                       legend_y, kPathColors[i]);
    out << fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", x + 16, legend_y + 11, kPathKinds[i]);
    x += 16 + static_cast<long long>(std::string(kPathKinds[i]).size()) * 8 + 16;
  }
  out << "</svg>\n";
  if (left_out)
    out << fmt::format("<p class=\"note\">(the first {} of {} lanes; {} segments on the others are not drawn; "
                       "-n/--top shows more)</p>\n",
                       drawn, lanes.size(), left_out);
}

}  // namespace rocpd_cli
