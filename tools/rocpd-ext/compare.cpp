#include "compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "compare_pairs.h"
#include "compare_time.h"
#include "display.h"
#include "html_report.h"
#include "job_progress.h"
#include "member_facts.h"
#include "summary.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
const char* const kCompareSections[] = {"time", "runs", "kernels", "apis", "copies"};
const char* const kDtypeProperty = "dtype of matrix operators' inputs";

struct Side {
  std::string label, path;
  long long members = 0, gpus = 0, steps = 0, ops = 0, apis = 0;
  std::optional<std::int64_t> span_ns;
  std::set<std::string> formats, devices, world_sizes;
  std::set<std::string> dtypes;  // element types of the matrix operators' inputs (PyTorch's record_shapes)
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
  // The step ranges rocpd_run_steps counts (compare_time.h), so every section divides by the same steps.
  side.steps = static_cast<long long>(step_durations(session, side.label).size());
  // The floating-point types the GEMM and convolution operators were called with, where the trace
  // records their inputs (Kineto's `Input type`, PyTorch's record_shapes).
  session.each(
      "SELECT DISTINCT CASE t.value WHEN 'float' THEN 'float32' WHEN 'double' THEN 'float64' WHEN 'c10::Half' THEN "
      "'float16' WHEN 'c10::BFloat16' THEN 'bfloat16' ELSE replace(t.value, 'c10::', '') END"
      " FROM rocpd_apis AS x, json_each(x.args, '$.\"Input type\"') AS t"
      " WHERE x.db IN (SELECT db FROM rocpd_runs WHERE run = ?1) AND x.domain = 'marker'"
      " AND x.name IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm', 'aten::matmul', 'aten::linear',"
      " 'aten::_scaled_mm', 'aten::convolution', 'aten::conv1d', 'aten::conv2d', 'aten::conv3d')"
      " AND json_valid(x.args) AND json_type(x.args, '$.\"Input type\"') = 'array'"
      " AND t.value IN ('float', 'double', 'c10::Half', 'c10::BFloat16', 'c10::Float8_e4m3fn', 'c10::Float8_e5m2',"
      " 'c10::Float8_e4m3fnuz', 'c10::Float8_e5m2fnuz')",
      {Param(side.label)}, [&](const std::vector<Cell>& r) { side.dtypes.insert(r[0].text); });
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
  add(kDtypeProperty, text_cell(joined(a.dtypes)), text_cell(joined(b.dtypes)));
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

// One line per property of the setup the two runs differ in (both sides state it): their
// figures compare different hardware or software, which a per-call change alone does not say.
std::vector<std::string> setup_warnings(const Side& a, const Side& b) {
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> props = {
      {"formats", {joined(a.formats), joined(b.formats)}},
      {"devices", {joined(a.devices), joined(b.devices)}},
      {"world size", {joined(a.world_sizes), joined(b.world_sizes)}},
      {kDtypeProperty, {joined(a.dtypes), joined(b.dtypes)}}};
  if (a.gpus && b.gpus) props.push_back({"GPUs", {std::to_string(a.gpus), std::to_string(b.gpus)}});
  std::set<std::string> keys;
  for (const auto* s : {&a, &b})
    for (const auto& kv : s->versions) keys.insert(kv.first);
  for (const auto& k : keys) {
    auto get = [&](const Side& s) { auto it = s.versions.find(k); return it == s.versions.end() ? "" : joined(it->second); };
    props.push_back({k + " version", {get(a), get(b)}});
  }
  std::vector<std::string> out;
  for (const auto& p : props) {
    const auto& [va, vb] = p.second;
    if (va.empty() || vb.empty() || va == vb) continue;
    out.push_back(fmt::format("the runs differ in {}: a = {} has {}, b = {} has {}; their figures compare different "
                              "setups", p.first, a.label, va, b.label, vb));
  }
  return out;
}

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

namespace {

// The headline, the warnings and the lead line, then the sections, in the format asked for.
struct PageHead {
  std::string headline, lead;
  std::vector<std::string> warnings;
};

void write_page(std::ostream& page, Session& session, const Options& o, const PageHead& head,
                const std::vector<ResultSet>& sections) {
  const std::string& headline = head.headline;
  const std::string& lead = head.lead;
  const std::vector<std::string>& warnings = head.warnings;
  switch (o.format) {
    case Format::Table:
      page << terminal_text(headline) << '\n';
      for (const auto& w : warnings) page << "warning: " << terminal_text(w) << '\n';
      if (!lead.empty()) page << terminal_text(lead) << '\n';
      for (const auto& rs : sections) write_human_section(page, rs, o.format, o.timeunit);
      break;
    case Format::Markdown:
      page << "# rocpd-ext compare\n\n" << terminal_text(headline) << "  \n";
      for (const auto& w : warnings) page << "\n**warning:** " << terminal_text(w) << '\n';
      if (!lead.empty()) page << '\n' << terminal_text(lead) << '\n';
      for (const auto& rs : sections) write_human_section(page, rs, o.format, o.timeunit);
      break;
    case Format::Html:
      html_page_begin(page, "rocpd-ext compare", "", warnings);
      page << "<p class=\"headline\">" << html_escape(headline) << "</p>\n";
      if (!lead.empty()) page << "<p class=\"headline\">" << html_escape(lead) << "</p>\n";
      for (const auto& rs : sections) write_human_section(page, rs, o.format, o.timeunit);
      html_page_end(page);
      break;
    case Format::Csv:
      // CSV holds tables only: the warnings go to stderr.
      for (const auto& w : warnings) std::cerr << "rocpd-ext: warning: " << w << '\n';
      for (size_t i = 0; i < sections.size(); ++i) {
        if (i) page << '\n';
        write_csv(page, sections[i]);
      }
      break;
    case Format::Json: {
      JsonWriter json(session.handle());
      page << "{\"warnings\": [";
      for (size_t i = 0; i < warnings.size(); ++i) page << (i ? ", " : "") << json.quote(warnings[i]);
      page << ']';
      for (size_t i = 0; i < sections.size(); ++i) {
        page << ",\n " << json.quote(sections[i].name) << ": ";
        json.array(page, sections[i]);
      }
      page << "}\n";
      break;
    }
  }
}

}  // namespace

int run_compare(const Options& o, std::ostream& out, const OutputFile* target) {
  Side a, b;
  a.label = o.labels.size() > 0 ? o.labels[0] : "A";
  b.label = o.labels.size() > 1 ? o.labels[1] : "B";
  if (a.label == b.label) throw CliError("compare: the two sides need different labels, both are '" + a.label + "'");
  a.path = o.paths[0];
  b.path = o.paths[1];
  std::optional<JobProgress> progress;
  if (o.progress) progress.emplace(o.paths);
  Session session;
  interrupt_on_sigint(&session);
  if (o.progress) session.set_progress(true);
  progress_phase("opening A");
  session.open_members({a.path}, a.label);
  progress_phase("opening B");
  session.open_members({b.path}, b.label);
  if (o.progress) {
    ResultSet r = session.run("SELECT count(*), coalesce(sum(ops), 0) + coalesce(sum(apis), 0) FROM rocpd_members");
    progress_opened(r.rows.at(0)[0].integer, r.rows.at(0)[1].integer);
  }
  if (target) target->check_not_member(session);
  if (session.scalar("SELECT count(*) FROM rocpd_runs WHERE run = ?1", {Param(b.label)}).integer == 0)
    throw CliError("compare: B '" + b.path + "' holds no trace that A '" + a.path +
                   "' does not: each file is one member, labelled by the side that opened it first");
  std::vector<MemberFacts> facts = read_member_facts(session);
  read_side(session, a, facts);
  read_side(session, b, facts);
  bool human = o.format == Format::Table || o.format == Format::Markdown || o.format == Format::Html;
  RunScale scale_a{a.label, a.steps, a.span_ns}, scale_b{b.label, b.steps, b.span_ns};
  std::optional<PairedTable> kernels;
  progress_phase("compare: kernels");
  if (wanted(o.sections, "kernels") || wanted(o.sections, "time"))
    kernels = pair_runs(session, PairKind::Kernels, scale_a, scale_b, o.raw_names);
  std::vector<ResultSet> sections;
  std::string lead;
  if (wanted(o.sections, "time")) {
    progress_phase("compare: step times and time shares");
    TimeTable t = time_section(session, {a.label, a.ops, a.span_ns}, {b.label, b.ops, b.span_ns},
                               kernels ? &*kernels : nullptr, human, o.timeunit);
    lead = t.headline;
    sections.push_back(std::move(t.section));
  }
  if (wanted(o.sections, "runs")) sections.push_back(runs_section(a, b, human, o.timeunit));
  if (wanted(o.sections, "kernels"))
    sections.push_back(paired_section(*kernels, "kernels", "Kernels", "kernel", o.top));
  progress_phase("compare: API calls and copies");
  if (wanted(o.sections, "apis"))
    sections.push_back(paired_section(pair_runs(session, PairKind::Apis, scale_a, scale_b, o.raw_names), "apis",
                                      "API calls (runtime and driver calls only)", "api", o.top));
  if (wanted(o.sections, "copies"))
    sections.push_back(paired_section(pair_runs(session, PairKind::Copies, scale_a, scale_b, o.raw_names), "copies",
                                      "Copies and fills", "name", o.top));

  const std::string headline = fmt::format("a = {}: {} member{}, b = {}: {} member{}", a.label, a.members,
                                           a.members == 1 ? "" : "s", b.label, b.members, b.members == 1 ? "" : "s");
  std::ostringstream page;
  write_page(page, session, o, {headline, lead, setup_warnings(a, b)}, sections);
  out << page.str();
  return 0;
}

}  // namespace rocpd_cli
