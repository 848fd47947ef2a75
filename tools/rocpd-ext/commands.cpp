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
std::string window_text(std::optional<std::int64_t> s, std::optional<std::int64_t> e) {
  return fmt::format(" in [{}, {})", s ? std::to_string(*s) : "start", e ? std::to_string(*e) : "end");
}

// --split: one rocpd_export_trace call per part; a part that holds nothing is said and skipped.
int export_parts(Session& session, const Options& o, const Window& w, std::ostream& out) {
  const bool pftrace = o.out.ends_with(".pftrace");
  for (const auto& part : split_parts(session, o, w)) {
    JsonWriter json(session.handle());
    const std::vector<std::string>& dbs = part.dbs.empty() ? o.dbs : part.dbs;
    Param options;
    if (!dbs.empty()) {
      std::string list;
      for (const auto& d : dbs) list += (list.empty() ? "" : ", ") + json.quote(d);
      options = Param("{\"db\": [" + list + "]}");
    }
    progress_phase("export: writing " + part.file);
    const bool windowed = part.start || part.end;
    try {
      Cell n = session.scalar("SELECT rocpd_export_trace(?1, ?2, ?3, ?4)",
                              {Param(part.file), part.start ? Param(*part.start) : Param(),
                               part.end ? Param(*part.end) : Param(), options});
      out << fmt::format("{}: {} {}", part.file, n.text, pftrace ? "packets" : "events")
          << (windowed ? window_text(part.start, part.end) : "") << '\n';
    } catch (const CliError& e) {
      if (std::string(e.what()).find("no op or API call in the window") == std::string::npos) throw;
      out << fmt::format("{}: not written, no op or API call", part.file) << window_text(part.start, part.end) << '\n';
    }
  }
  return 0;
}
}  // namespace

int run_export(const Options& o, std::ostream& out) {
  std::optional<JobProgress> progress;
  if (o.progress) progress.emplace(o.paths);
  Session session;
  session.allow_writer("rocpd_export_trace");
  open_job(session, o, nullptr);
  Window w = resolve_window(session, o.start, o.end, o.range);
  Param options;
  if (!o.dbs.empty()) {
    JsonWriter json(session.handle());
    std::string list;
    for (const auto& d : o.dbs) list += (list.empty() ? "" : ", ") + json.quote(d);
    options = Param("{\"db\": [" + list + "]}");
  }
  if (!o.split.empty()) return export_parts(session, o, w, out);
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
