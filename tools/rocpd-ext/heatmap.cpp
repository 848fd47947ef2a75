#include "heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "display.h"
#include "output.h"

namespace rocpd_cli {

// ColorBrewer's sequential Blues, Oranges and Greens, each widened to ten steps.
const char* const kHeatColors[3][10] = {
    {"#f0f6fd", "#d6e6f5", "#bdd7ee", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b", "#041c40"},
    {"#fff5eb", "#fee6ce", "#fdd0a2", "#fdae6b", "#fd8d3c", "#f16913", "#d94801", "#a63603", "#7f2704", "#4d1802"},
    {"#f7fcf5", "#e5f5e0", "#c7e9c0", "#a1d99b", "#74c476", "#41ab5d", "#238b45", "#006d2c", "#00441b", "#002910"}};

int heat_class(std::int64_t busy_ns, std::int64_t bucket_ns) {
  if (bucket_ns <= 0 || busy_ns <= 0) return 0;
  // Integer arithmetic: a bucket exactly 30 % busy is class 3 on every machine.
  return static_cast<int>(std::min<__int128>(9, static_cast<__int128>(busy_ns) * 10 / bucket_ns));
}

namespace {
// The ops of every GPU in time order, each lane's union built as they come and spread over the
// buckets as each merged interval closes.
class LaneBuilder : public RowSink {
 public:
  LaneBuilder(Heatmap& h, size_t max_rows) : h_(h), max_rows_(max_rows) {
    edges_.resize(static_cast<size_t>(h.buckets) + 1);
    __int128 span = static_cast<__int128>(h.hi) - h.lo;
    for (long long k = 0; k <= h.buckets; ++k)
      edges_[static_cast<size_t>(k)] = h.lo + static_cast<std::int64_t>(span * k / h.buckets);
    for (long long k = 0; k < h.buckets; ++k)
      h.bucket_ns.push_back(edges_[static_cast<size_t>(k) + 1] - edges_[static_cast<size_t>(k)]);
  }
  void begin(const std::vector<std::string>&) override {}
  void row(const std::vector<Cell>& c) override {
    // db, gpu, lane, start, end
    std::string label = c[0].text + " gpu " + c[1].text;
    if (h_.rows.empty() || h_.rows.back().label != label) {
      close_all();
      if (h_.rows.size() == max_rows_) full_ = true;
    }
    if (full_) return;
    if (h_.rows.empty() || h_.rows.back().label != label) {
      Heatmap::Row r{label, {}};
      for (auto& lane : r.busy_ns) lane.assign(static_cast<size_t>(h_.buckets), 0);
      h_.rows.push_back(std::move(r));
    }
    auto lane = static_cast<size_t>(c[2].integer);
    std::int64_t s = std::max(c[3].integer, h_.lo), e = std::min(c[4].integer, h_.hi);
    if (e <= s) return;
    auto& open = open_[lane];
    if (open && s <= open->second) {
      open->second = std::max(open->second, e);
      return;
    }
    if (open) spread(lane, *open);
    open = std::make_pair(s, e);
  }
  void end() override {
    if (!full_) close_all();
  }
  bool cut() const { return full_; }

 private:
  void close_all() {
    for (size_t lane = 0; lane < 3; ++lane) {
      if (open_[lane] && !h_.rows.empty()) spread(lane, *open_[lane]);
      open_[lane].reset();
    }
  }
  void spread(size_t lane, std::pair<std::int64_t, std::int64_t> iv) {
    auto& busy = h_.rows.back().busy_ns[lane];
    size_t k = static_cast<size_t>(std::upper_bound(edges_.begin(), edges_.end(), iv.first) - edges_.begin());
    k = k == 0 ? 0 : k - 1;
    for (; k < busy.size() && edges_[k] < iv.second; ++k)
      busy[k] += std::max<std::int64_t>(0, std::min(iv.second, edges_[k + 1]) - std::max(iv.first, edges_[k]));
  }

  Heatmap& h_;
  size_t max_rows_;
  bool full_ = false;
  std::vector<std::int64_t> edges_;
  std::array<std::optional<std::pair<std::int64_t, std::int64_t>>, 3> open_;
};

// The lane of an op (NULL: not drawn), with the class test of rocpd_comm_classes; the GPUs worst
// first (most idle share of their span, temp.cli_breakdown: time_shares.h), the first {} of them.
constexpr const char* kLaneOps =
    "WITH worst AS (SELECT db, gpu, row_number() OVER"
    "  (ORDER BY idle_ns * 1.0 / span_ns DESC, db COLLATE rocpd_natural, gpu) AS k FROM temp.cli_breakdown)"
    " SELECT o.db, o.gpu, lane, start, \"end\" FROM ("
    " SELECT db, gpu, start, \"end\","
    "  CASE WHEN kind IN ('copy', 'fill') THEN 2"
    "       WHEN kind = 'kernel' AND (name LIKE '%nccl%' OR name LIKE '%rccl%' OR name LIKE '%cross_device_reduce%')"
    "       THEN 1 WHEN kind = 'kernel' THEN 0 END AS lane"
    " FROM rocpd_ops WHERE gpu IS NOT NULL AND \"end\" > start) AS o"
    " JOIN worst AS w ON w.db = o.db AND w.gpu = o.gpu"
    " WHERE lane IS NOT NULL AND w.k <= {} ORDER BY w.k, start";
}  // namespace

Heatmap read_heatmap(Session& session, long long buckets, long long max_rows) {
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
  LaneBuilder lanes(h, static_cast<size_t>(max_rows));
  session.run_script(fmt::format(kLaneOps, max_rows), lanes);
  const std::int64_t gpus = session.scalar("SELECT count(*) FROM temp.cli_breakdown").integer;
  if (lanes.cut() || gpus > max_rows)
    h.note = fmt::format("(the {} GPUs most idle; ... and {} more; -n/--top shows more)", max_rows,
                         with_separators(gpus - max_rows));
  return h;
}

void write_heatmap_svg(std::ostream& out, const Heatmap& h) {
  // Whole pixels everywhere, so every bucket of a lane is a block of one colour (the test counts them).
  const long long cell_w = std::max(1LL, 800 / std::max(1LL, h.buckets)), lane_h = 5, pitch = 3 * lane_h + 4;
  size_t label_chars = 0;
  for (const auto& r : h.rows) label_chars = std::max(label_chars, r.label.size());
  const long long label_w = static_cast<long long>(label_chars) * 8 + 12;
  const long long grid_w = cell_w * h.buckets, grid_h = pitch * static_cast<long long>(h.rows.size());
  const long long width = std::max(label_w + grid_w + 20, 660LL), height = grid_h + 130;
  out << fmt::format(
      "<svg id=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" shape-rendering=\"crispEdges\""
      " data-buckets=\"{}\" data-cell-width=\"{}\" data-lane-height=\"{}\" data-lo=\"{}\" data-hi=\"{}\">\n",
      width, height, h.buckets, cell_w, lane_h, h.lo, h.hi);
  for (size_t i = 0; i < h.rows.size(); ++i) {
    const auto& r = h.rows[i];
    long long y0 = pitch * static_cast<long long>(i);
    out << fmt::format("<text x=\"0\" y=\"{}\" class=\"lbl\">{}</text>\n", y0 + 12, html_escape(r.label));
    for (size_t lane = 0; lane < 3; ++lane) {
      long long y = y0 + lane_h * static_cast<long long>(lane);
      const auto& busy = r.busy_ns[lane];
      // Consecutive buckets of one class are one rect (an idle stretch of 1000 buckets is one element).
      size_t b = 0;
      while (b < busy.size()) {
        int c = heat_class(busy[b], h.bucket_ns[b]);
        size_t e = b + 1;
        while (e < busy.size() && heat_class(busy[e], h.bucket_ns[e]) == c) ++e;
        out << fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {}: buckets {}-{}, {}-{} % "
            "busy</title></rect>\n",
            label_w + cell_w * static_cast<long long>(b), y, cell_w * static_cast<long long>(e - b), lane_h,
            kHeatColors[lane][c], html_escape(r.label), kLaneNames[lane], b, e - 1, c * 10, c * 10 + 10);
        b = e;
      }
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
  // Legend: one line per lane (top to bottom in each GPU's row), its ten classes.
  long long ly = axis_y + 30;
  out << fmt::format("<text x=\"0\" y=\"{}\">each GPU's lanes, top to bottom, and the busy share of each bucket:</text>\n",
                     ly + 11);
  for (int lane = 0; lane < 3; ++lane) {
    ly += 20;
    out << fmt::format("<text x=\"0\" y=\"{}\">{}</text>", ly + 11, kLaneNames[lane]);
    for (int c = 0; c < 10; ++c) {
      long long x = 110 + 55 * c;
      out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" class=\"legend\"/>", x, ly,
                         kHeatColors[lane][c]);
      out << fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">{}{}%</text>", x + 17, ly + 11, c * 10,
                         c == 9 ? "+" : "");
    }
    out << '\n';
  }
  out << "</svg>\n";
}

}  // namespace rocpd_cli
