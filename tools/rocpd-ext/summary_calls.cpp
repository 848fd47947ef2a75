#include "summary_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "call_class.h"
#include "name_normal.h"

namespace rocpd_cli {

namespace {
// Every call by domain and name, in one pass of the summary engine over the members: the markers
// (domain 'marker', rocpd_union('markers')), the calls drawn on a GPU's row (domains
// 'gpu_annotation' and 'cuda_sync') and the runtime and driver calls (every other domain: what
// rocpd_union('apis') lists, less those drawn on a GPU's row).
const char* const kCalls =
    "SELECT domain, name, instances, coalesce(total_ns, 0) FROM rocpd_api_groups('domain,name')";

struct Totals {
  std::int64_t calls = 0, total = 0;
};

Cell int_cell(std::int64_t v) {
  Cell c;
  c.type = Cell::Type::Integer;
  c.integer = v;
  c.text = std::to_string(v);
  return c;
}

Cell real_cell(double v, int decimals) {
  Cell c;
  if (!std::isfinite(v)) return c;
  c.type = Cell::Type::Real;
  double scale = std::pow(10.0, decimals);
  c.real = std::round(v * scale) / scale;
  c.text = fmt::format("{}", c.real);
  // As SQLite prints a real: 16488.0, not 16488.
  if (c.text.find_first_of(".en") == std::string::npos) c.text += ".0";
  return c;
}

Cell text_cell(const std::string& s) {
  Cell c;
  c.type = Cell::Type::Text;
  c.text = s;
  return c;
}

using Key = std::pair<CallClass, std::string>;

void add_rows(Session& session, std::map<Key, Totals>& into, bool with_markers) {
  session.each(kCalls, {}, [&](const std::vector<Cell>& r) {
    const std::string& domain = r[0].text;
    const std::string& name = r[1].text;
    const bool text = r[0].type == Cell::Type::Text;
    const bool marker = text && domain == "marker";
    const bool annotation = text && (domain == "gpu_annotation" || domain == "cuda_sync");
    if ((marker || annotation) && !with_markers) return;
    const CallClass c = marker ? CallClass::Marker : annotation ? CallClass::Annotation : call_class("", name);
    Totals& t = into[{c, normal_name(name)}];
    t.calls += r[2].integer;
    t.total += r[3].integer;
  });
}

// Largest total first, ties by name.
std::vector<std::pair<Key, Totals>> ordered(const std::map<Key, Totals>& m, bool apis) {
  std::vector<std::pair<Key, Totals>> out;
  for (const auto& kv : m)
    if ((kv.first.first == CallClass::Api) == apis) out.push_back(kv);
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    if (x.second.total != y.second.total) return x.second.total > y.second.total;
    return x.first.second < y.first.second;
  });
  return out;
}
}  // namespace

CallSections call_sections(Session& session, bool with_markers) {
  std::map<Key, Totals> all;
  add_rows(session, all, with_markers);
  CallSections out;
  out.apis.columns = {"time_pct", "total_ns", "calls", "avg_ns", "api"};
  auto apis = ordered(all, true);
  double sum = 0;
  for (const auto& kv : apis) sum += static_cast<double>(kv.second.total);
  for (const auto& kv : apis) {
    const Totals& t = kv.second;
    out.apis.rows.push_back({real_cell(sum > 0 ? 100.0 * static_cast<double>(t.total) / sum : 0.0, 2), int_cell(t.total),
                             int_cell(t.calls), real_cell(static_cast<double>(t.total) / static_cast<double>(t.calls), 1),
                             text_cell(kv.first.second)});
  }
  out.other_calls.columns = {"class", "total_ns", "calls", "avg_ns", "name"};
  for (const auto& kv : ordered(all, false)) {
    const Totals& t = kv.second;
    out.other_calls.rows.push_back({text_cell(call_class_name(kv.first.first)), int_cell(t.total), int_cell(t.calls),
                                    real_cell(t.calls ? static_cast<double>(t.total) / static_cast<double>(t.calls) : 0.0, 1),
                                    text_cell(kv.first.second)});
  }
  return out;
}

}  // namespace rocpd_cli
