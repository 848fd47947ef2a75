#include "compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "display.h"
#include "html_report.h"
#include "member_facts.h"
#include "summary.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
const char* const kCompareSections[] = {"runs", "kernels", "apis", "copies"};

struct Side {
  std::string label, path;
  long long members = 0, gpus = 0, steps = 0, ops = 0, apis = 0;
  std::optional<std::int64_t> span_ns;
  std::set<std::string> formats, devices, world_sizes;
  std::map<std::string, std::set<std::string>> versions;
};

std::string joined(const std::set<std::string>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + v;
  return s;
}

Cell text_cell(const std::string& s) {
  Cell c;
  c.type = s.empty() ? Cell::Type::Null : Cell::Type::Text;
  c.text = s;
  return c;
}

Cell int_cell(std::int64_t v) {
  Cell c;
  c.type = Cell::Type::Integer;
  c.integer = v;
  c.text = std::to_string(v);
  return c;
}

Cell real_cell(std::optional<double> v, int decimals) {
  Cell c;
  if (!v || !std::isfinite(*v)) return c;
  c.type = Cell::Type::Real;
  double scale = std::pow(10.0, decimals);
  c.real = std::round(*v * scale) / scale;
  c.text = fmt::format("{}", c.real);
  return c;
}

void read_side(Session& session, Side& side, const std::vector<MemberFacts>& facts) {
  ResultSet rs = session.run(
      "SELECT count(*), min(m.first_ns), max(m.last_ns), sum(m.ops), sum(m.apis) FROM rocpd_members AS m"
      " JOIN rocpd_runs AS r USING (db) WHERE r.run = ?1",
      {Param(side.label)});
  const auto& r = rs.rows.at(0);
  side.members = r[0].integer;
  if (r[1].type == Cell::Type::Integer && r[2].type == Cell::Type::Integer) {
    std::int64_t span = 0;
    if (!__builtin_sub_overflow(r[2].integer, r[1].integer, &span)) side.span_ns = span;
  }
  side.ops = r[3].integer;
  side.apis = r[4].integer;
  side.gpus = session.scalar("SELECT count(*) FROM rocpd_busy JOIN rocpd_runs USING (db) WHERE run = ?1", {Param(side.label)}).integer;
  // The steps rocpd_run_compare divides by (rocpd_run_steps), so every section ranks alike.
  side.steps = session.scalar("SELECT coalesce(sum(steps), 0) FROM rocpd_run_steps WHERE run = ?1", {Param(side.label)}).integer;
  for (const auto& m : facts) {
    if (m.run != side.label) continue;
    side.formats.insert(m.format + " " + m.version);
    side.devices.insert(m.devices.begin(), m.devices.end());
    if (!m.world_size.empty()) side.world_sizes.insert(m.world_size);
    for (const auto& [k, v] : m.versions) side.versions[k].insert(v);
  }
}

ResultSet runs_section(const Side& a, const Side& b, bool human, TimeUnit unit) {
  ResultSet rs;
  rs.name = "runs";
  rs.title = fmt::format("Runs: a = {} ({}), b = {} ({})", a.label, a.path, b.label, b.path);
  rs.columns = {"property", "a", "b", "differs"};
  auto add = [&](const std::string& property, Cell va, Cell vb) {
    bool differs = va.type != vb.type || va.text != vb.text;
    rs.rows.push_back({text_cell(property), std::move(va), std::move(vb), text_cell(differs ? "*" : "")});
  };
  auto count = [&](const std::string& p, long long x, long long y) { add(p, int_cell(x), int_cell(y)); };
  count("members", a.members, b.members);
  add("formats", text_cell(joined(a.formats)), text_cell(joined(b.formats)));
  add("devices", text_cell(joined(a.devices)), text_cell(joined(b.devices)));
  add("world size", text_cell(joined(a.world_sizes)), text_cell(joined(b.world_sizes)));
  std::set<std::string> keys;
  for (const auto* s : {&a, &b})
    for (const auto& [k, v] : s->versions) keys.insert(k);
  for (const auto& k : keys) {
    auto get = [&](const Side& s) { auto it = s.versions.find(k); return it == s.versions.end() ? "" : joined(it->second); };
    add(k + " version", text_cell(get(a)), text_cell(get(b)));
  }
  count("GPUs", a.gpus, b.gpus);
  auto span = [&](const Side& s) {
    if (!s.span_ns) return Cell{};
    // The human formats print it as a duration (the column holds values of every kind).
    return human ? text_cell(format_duration(static_cast<double>(*s.span_ns), unit)) : int_cell(*s.span_ns);
  };
  add(human ? "span" : "span_ns", span(a), span(b));
  count("steps", a.steps, b.steps);
  count("GPU ops", a.ops, b.ops);
  count("API calls", a.apis, b.apis);
  return rs;
}

// Per name on each side: calls, total and median per call; `groups` yields (run, name, calls,
// total_ns, med_ns) rows for both runs.
struct Pair {
  std::string shown;
  std::int64_t calls[2] = {0, 0}, total[2] = {0, 0};
  std::optional<double> med[2];
};

ResultSet paired_section(Session& session, const std::string& name, const std::string& title, const char* key,
                         const std::string& groups, const Side& a, const Side& b, long long top) {
  std::map<std::string, Pair> pairs;
  ResultSet rows = session.run(groups, {Param(a.label), Param(b.label)});
  for (const auto& r : rows.rows) {
    int side = r[0].text == a.label ? 0 : 1;
    Pair& p = pairs[r[1].text + '\x1f' + r[5].text];
    p.shown = r[5].text;
    p.calls[side] = r[2].integer;
    p.total[side] = r[3].integer;
    if (r[4].is_number()) p.med[side] = r[4].number();
  }
  bool per_step = a.steps > 0 && b.steps > 0;
  struct Ranked {
    const Pair* p;
    double change;
  };
  std::vector<Ranked> ranked;
  for (const auto& [k, p] : pairs) {
    double change = per_step ? static_cast<double>(p.total[1]) / static_cast<double>(b.steps) -
                                   static_cast<double>(p.total[0]) / static_cast<double>(a.steps)
                             : p.med[1].value_or(0) - p.med[0].value_or(0);
    ranked.push_back({&p, change});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& x, const Ranked& y) {
    if (std::fabs(x.change) != std::fabs(y.change)) return std::fabs(x.change) > std::fabs(y.change);
    return x.p->shown < y.p->shown;
  });
  ResultSet rs;
  rs.name = name;
  rs.title = title + (per_step ? ", ranked by the change of time per step" : ", ranked by the change of the median per call");
  rs.columns = {key, "calls_a", "calls_b", "total_a_ns", "total_b_ns", "med_a_ns", "med_b_ns", "med_ratio"};
  if (per_step) rs.columns.insert(rs.columns.end(), {"step_a_ns", "step_b_ns", "step_ratio"});
  rs.columns.push_back("change_ns");
  auto ratio = [](std::optional<double> x, std::optional<double> y) -> std::optional<double> {
    if (!x || !y || *x == 0) return std::nullopt;
    return *y / *x;
  };
  for (const auto& [p, change] : ranked) {
    std::vector<Cell> row = {text_cell(p->shown), int_cell(p->calls[0]), int_cell(p->calls[1]), int_cell(p->total[0]),
                             int_cell(p->total[1]), real_cell(p->med[0], 1), real_cell(p->med[1], 1),
                             real_cell(ratio(p->med[0], p->med[1]), 4)};
    if (per_step) {
      double sa = static_cast<double>(p->total[0]) / static_cast<double>(a.steps);
      double sb = static_cast<double>(p->total[1]) / static_cast<double>(b.steps);
      row.insert(row.end(), {real_cell(sa, 1), real_cell(sb, 1), real_cell(ratio(sa, sb), 4)});
    }
    row.push_back(real_cell(change, 1));
    rs.rows.push_back(std::move(row));
  }
  if (rs.rows.size() > static_cast<size_t>(top)) {
    rs.note = fmt::format("(the first {} of {} rows; -n/--top shows more)", top, with_separators(static_cast<std::int64_t>(rs.rows.size())));
    rs.rows.resize(static_cast<size_t>(top));
  }
  return rs;
}

// The kernels are rocpd_run_compare_full's rows for the pair (docs/diagnosis.md), in its order
// (ties by the name shown); its real columns are rounded as the other sections' are.
ResultSet kernel_section(Session& session, const Side& a, const Side& b, long long top) {
  ResultSet rows = session.run(
      "SELECT kernel, calls_a, calls_b, total_a_ns, total_b_ns, med_a_ns, med_b_ns, med_ratio, step_a_ns, step_b_ns,"
      " step_ratio, change_ns, ranked_by, count(*) OVER () AS n"
      " FROM rocpd_run_compare_full WHERE run_a = ?1 AND run_b = ?2"
      " ORDER BY abs(change_ns) DESC, kernel, name LIMIT ?3",
      {Param(a.label), Param(b.label), Param(std::int64_t{top})});
  bool per_step = rows.rows.empty() ? a.steps > 0 && b.steps > 0 : rows.rows[0][12].text == "step";
  ResultSet rs;
  rs.name = "kernels";
  rs.title = std::string("Kernels") +
             (per_step ? ", ranked by the change of time per step" : ", ranked by the change of the median per call");
  rs.columns = {"kernel", "calls_a", "calls_b", "total_a_ns", "total_b_ns", "med_a_ns", "med_b_ns", "med_ratio"};
  if (per_step) rs.columns.insert(rs.columns.end(), {"step_a_ns", "step_b_ns", "step_ratio"});
  rs.columns.push_back("change_ns");
  auto real = [](const Cell& c, int decimals) {
    return real_cell(c.is_number() ? std::optional<double>(c.number()) : std::nullopt, decimals);
  };
  for (const auto& r : rows.rows) {
    std::vector<Cell> row = {r[0], r[1], r[2], r[3], r[4], real(r[5], 1), real(r[6], 1), real(r[7], 4)};
    if (per_step) row.insert(row.end(), {real(r[8], 1), real(r[9], 1), real(r[10], 4)});
    row.push_back(real(r[11], 1));
    rs.rows.push_back(std::move(row));
  }
  std::int64_t total = rows.rows.empty() ? 0 : rows.rows[0][13].integer;
  if (total > top)
    rs.note = fmt::format("(the first {} of {} rows; -n/--top shows more)", top, with_separators(total));
  return rs;
}

// (run, name, calls, total_ns, med_ns, shown name) per run and name of the API calls and the
// copies, which rocpd_run_compare does not cover: paired and ranked here the way it ranks kernels.
const char* const kApiGroups =
    "SELECT r.run, a.name, count(*), coalesce(sum(a.duration), 0), median(a.duration), a.name"
    " FROM rocpd_runs AS r JOIN rocpd_apis AS a ON a.db = r.db"
    " WHERE r.run IN (?1, ?2) AND coalesce(a.domain, '') NOT IN ('marker', 'gpu_annotation', 'cuda_sync')"
    " GROUP BY r.run, a.name";
const char* const kCopyGroups =
    "SELECT r.run, o.kind || ' ' || o.name, count(*), coalesce(sum(o.duration), 0), median(o.duration), o.name"
    " FROM rocpd_runs AS r JOIN rocpd_ops AS o ON o.db = r.db"
    " WHERE r.run IN (?1, ?2) AND o.kind IN ('copy', 'fill') GROUP BY r.run, o.kind, o.name";

bool wanted(const std::vector<std::string>& only, const char* name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}
}  // namespace

bool is_compare_section(const std::string& name) {
  return std::any_of(std::begin(kCompareSections), std::end(kCompareSections), [&](const char* s) { return name == s; });
}

std::string compare_section_names() {
  std::string out;
  for (const char* s : kCompareSections) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

int run_compare(const Options& o, std::ostream& out, const OutputFile* target) {
  Side a, b;
  a.label = o.labels.size() > 0 ? o.labels[0] : "A";
  b.label = o.labels.size() > 1 ? o.labels[1] : "B";
  if (a.label == b.label) throw CliError("compare: the two sides need different labels, both are '" + a.label + "'");
  a.path = o.paths[0];
  b.path = o.paths[1];
  Session session;
  interrupt_on_sigint(&session);
  if (o.progress) session.set_progress(true);
  session.open_members({a.path}, a.label);
  session.open_members({b.path}, b.label);
  if (target) target->check_not_member(session);
  if (session.scalar("SELECT count(*) FROM rocpd_runs WHERE run = ?1", {Param(b.label)}).integer == 0)
    throw CliError("compare: B '" + b.path + "' holds no trace that A '" + a.path +
                   "' does not: each file is one member, labelled by the side that opened it first");
  std::vector<MemberFacts> facts = read_member_facts(session);
  read_side(session, a, facts);
  read_side(session, b, facts);
  bool human = o.format == Format::Table || o.format == Format::Markdown || o.format == Format::Html;
  std::vector<ResultSet> sections;
  if (wanted(o.sections, "runs")) sections.push_back(runs_section(a, b, human, o.timeunit));
  if (wanted(o.sections, "kernels"))
    sections.push_back(kernel_section(session, a, b, o.top));
  if (wanted(o.sections, "apis"))
    sections.push_back(paired_section(session, "apis", "API calls (markers and GPU annotations aside)", "api", kApiGroups, a, b, o.top));
  if (wanted(o.sections, "copies"))
    sections.push_back(paired_section(session, "copies", "Copies and fills", "name", kCopyGroups, a, b, o.top));

  std::ostringstream page;
  std::string headline = fmt::format("a = {}: {} member{}, b = {}: {} member{}", a.label, a.members,
                                     a.members == 1 ? "" : "s", b.label, b.members, b.members == 1 ? "" : "s");
  switch (o.format) {
    case Format::Table:
      page << terminal_text(headline) << '\n';
      for (const auto& rs : sections) write_human_section(page, rs, o.format, o.timeunit);
      break;
    case Format::Markdown:
      page << "# rocpd-ext compare\n\n" << terminal_text(headline) << '\n';
      for (const auto& rs : sections) write_human_section(page, rs, o.format, o.timeunit);
      break;
    case Format::Html:
      html_page_begin(page, "rocpd-ext compare", "");
      page << "<p class=\"headline\">" << html_escape(headline) << "</p>\n";
      for (const auto& rs : sections) write_human_section(page, rs, o.format, o.timeunit);
      html_page_end(page);
      break;
    case Format::Csv:
      for (size_t i = 0; i < sections.size(); ++i) {
        if (i) page << '\n';
        write_csv(page, sections[i]);
      }
      break;
    case Format::Json: {
      JsonWriter json(session.handle());
      page << '{';
      for (size_t i = 0; i < sections.size(); ++i) {
        page << (i ? ",\n " : "") << json.quote(sections[i].name) << ": ";
        json.array(page, sections[i]);
      }
      page << "}\n";
      break;
    }
  }
  out << page.str();
  return 0;
}

}  // namespace rocpd_cli
