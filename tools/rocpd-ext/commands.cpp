#include "commands.h"

#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <sstream>

#include "export_split.h"
#include "export_window.h"
#include "html_report.h"
#include "job_progress.h"
#include "session.h"
#include "summary.h"
#include "text_clean.h"

namespace rocpd_cli {

void open_job(Session& session, const Options& o, const OutputFile* target) {
  interrupt_on_sigint(&session);
  if (o.progress) session.set_progress(true);
  progress_phase(fmt::format("opening {} path{}", o.paths.size(), o.paths.size() == 1 ? "" : "s"));
  session.open_members(o.paths);
  if (o.progress) {
    ResultSet r = session.run("SELECT count(*), coalesce(sum(ops), 0) + coalesce(sum(apis), 0) FROM rocpd_members");
    progress_opened(r.rows.at(0)[0].integer, r.rows.at(0)[1].integer);
  }
  if (target) target->check_not_member(session);
}

int run_summary(const Options& o, std::ostream& out, const OutputFile* target) {
  std::optional<JobProgress> progress;
  if (o.progress) progress.emplace(o.paths);
  Session session;
  open_job(session, o, target);
  Summary s = build_summary(session, o);
  for (const auto& w : s.warnings) std::cerr << "rocpd-ext: warning: " << terminal_text(w) << '\n';
  // Written whole once complete: an error part-way leaves stdout empty.
  std::ostringstream page;
  write_summary(page, s, o, session);
  out << page.str();
  return 0;
}

int run_query(const Options& o, std::ostream& out, const OutputFile* target) {
  std::optional<JobProgress> progress;
  if (o.progress) progress.emplace(o.paths);
  Session session(o.allow_write);
  open_job(session, o, target);
  progress_phase("query");
  // Every format prints each statement's rows as they come: a failing statement leaves the
  // results of those before it printed, and an answer of any size is never held whole.
  if (o.format == Format::Html) html_page_begin(out, "rocpd-ext query", o.sql);
  std::string separator = o.format == Format::Json || o.format == Format::Html ? "" : "\n";
  auto writer = make_writer(o.format, out, session.handle(), separator);
  session.run_script(o.sql, *writer, /*pushdown=*/true);
  if (o.format == Format::Html) html_page_end(out);
  return 0;
}

namespace {
// The options object of rocpd_export_trace / rocpd_export_split from the command line; NULL when
// none is given.
Param export_options(Session& session, const Options& o) {
  JsonWriter json(session.handle());
  auto list = [&](const std::vector<std::string>& v) {
    std::string l;
    for (const auto& d : v) l += (l.empty() ? "" : ", ") + json.quote(d);
    return "[" + l + "]";
  };
  std::string fields;
  auto add = [&](const std::string& f) { fields += (fields.empty() ? "" : ", ") + f; };
  if (!o.dbs.empty()) add("\"db\": " + list(o.dbs));
  if (!o.member_globs.empty()) add("\"members\": " + list(o.member_globs));
  if (!o.drop_domains.empty()) add("\"drop_domains\": " + list(o.drop_domains));
  if (o.no_counters) add("\"counters\": false");
  if (o.no_args) add("\"args\": false");
  return fields.empty() ? Param() : Param("{" + fields + "}");
}
}  // namespace

int run_export(const Options& o, std::ostream& out) {
  std::optional<JobProgress> progress;
  if (o.progress) progress.emplace(o.paths);
  Session session;
  session.allow_writer("rocpd_export_trace");
  session.allow_writer("rocpd_export_split");
  open_job(session, o, nullptr);
  Window w = resolve_window(session, o.start, o.end, o.range);
  const Param options = export_options(session, o);
  if (!o.split.empty()) return export_split(session, o, w, options, out);
  Param start = w.start ? Param(*w.start) : Param(), end = w.end ? Param(*w.end) : Param();
  Cell n;
  progress_phase("export: writing " + o.out);
  try {
    n = session.scalar("SELECT rocpd_export_trace(?1, ?2, ?3, ?4)", {Param(o.out), start, end, options});
  } catch (const CliError& e) {
    // The function's hint speaks of SQL arguments; the window here came from --start/--end.
    if (std::string(e.what()).find("no op or API call in the window") != std::string::npos && (w.start || w.end))
      throw CliError(empty_window_message(session, w, o));
    throw;
  }
  bool pftrace = o.out.size() >= 8 && o.out.ends_with(".pftrace");
  out << fmt::format("{}: {} {}", o.out, n.text, pftrace ? "packets" : "events");
  if (w.start || w.end)
    out << fmt::format(" in [{}, {})", w.start ? std::to_string(*w.start) : "start", w.end ? std::to_string(*w.end) : "end");
  out << '\n';
  return 0;
}

}  // namespace rocpd_cli
