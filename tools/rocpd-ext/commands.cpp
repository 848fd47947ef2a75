#include "commands.h"

#include <fmt/format.h>

#include <sstream>

#include "export_window.h"
#include "html_report.h"
#include "session.h"
#include "summary.h"

namespace rocpd_cli {

namespace {
// A session with the members open: progress (when asked) on stderr, Ctrl-C interrupting.
void open(Session& session, const Options& o) {
  interrupt_on_sigint(&session);
  if (o.progress) session.set_progress(true);
  session.open_members(o.paths);
}

// csv and json rows of `query` written as they are stepped (a large result is never held). A
// statement's header (or opening bracket) waits for its first row or its end, so a statement that
// fails before its first row prints nothing.
class StreamSink : public RowSink {
 public:
  StreamSink(std::ostream& out, Format f, JsonWriter* json) : out_(out), format_(f), json_(json) {}
  void begin(const std::vector<std::string>& columns) override {
    columns_ = columns;
    rows_ = 0;
    started_ = false;
  }
  void row(const std::vector<Cell>& cells) override {
    start();
    if (format_ == Format::Csv) {
      std::ostringstream line;
      write_csv(line, ResultSet{"", "", columns_, {cells}});
      std::string text = line.str();
      out_ << text.substr(text.find('\n') + 1);  // without the header
    } else {
      out_ << (rows_ ? ",\n " : "\n ") << json_->object(columns_, cells);
    }
    ++rows_;
  }
  void end() override {
    start();
    if (format_ == Format::Json) out_ << (rows_ ? "\n]\n" : "]\n");
  }

 private:
  void start() {
    if (started_) return;
    started_ = true;
    if (format_ == Format::Csv) {
      if (sets_++) out_ << '\n';
      write_csv(out_, ResultSet{"", "", columns_, {}});
    } else {
      out_ << '[';
    }
  }

  std::ostream& out_;
  Format format_;
  JsonWriter* json_;
  std::vector<std::string> columns_;
  size_t rows_ = 0, sets_ = 0;
  bool started_ = false;
};
}  // namespace

int run_summary(const Options& o, std::ostream& out) {
  Session session;
  open(session, o);
  Summary s = build_summary(session, o.top, o.sections);
  // Written whole once complete: an error part-way leaves stdout empty.
  std::ostringstream page;
  write_summary(page, s, o.format, session, o.buckets);
  out << page.str();
  return 0;
}

int run_query(const Options& o, std::ostream& out) {
  Session session;
  open(session, o);
  if (o.format == Format::Csv || o.format == Format::Json) {
    JsonWriter json(session.handle());
    StreamSink sink(out, o.format, &json);
    session.run_script(o.sql, sink);
    return 0;
  }
  std::vector<ResultSet> sets = session.run_script(o.sql);
  std::ostringstream text;
  if (o.format == Format::Html) {
    write_html_results(text, sets, o.sql);
  } else {
    for (size_t i = 0; i < sets.size(); ++i) {
      if (i) text << '\n';
      if (o.format == Format::Markdown) write_markdown(text, sets[i]);
      else write_table(text, sets[i]);
    }
  }
  out << text.str();
  return 0;
}

int run_export(const Options& o, std::ostream& out) {
  Session session;
  open(session, o);
  Window w = resolve_window(session, o.start, o.end, o.range);
  Param options;
  if (!o.dbs.empty()) {
    JsonWriter json(session.handle());
    std::string list;
    for (const auto& d : o.dbs) list += (list.empty() ? "" : ", ") + json.quote(d);
    options = Param("{\"db\": [" + list + "]}");
  }
  Param start = w.start ? Param(*w.start) : Param(), end = w.end ? Param(*w.end) : Param();
  Cell n = session.scalar("SELECT rocpd_export_trace(?1, ?2, ?3, ?4)", {Param(o.out), start, end, options});
  bool pftrace = o.out.size() >= 8 && o.out.ends_with(".pftrace");
  out << fmt::format("{}: {} {}", o.out, n.text, pftrace ? "packets" : "events");
  if (w.start || w.end)
    out << fmt::format(" in [{}, {})", w.start ? std::to_string(*w.start) : "start", w.end ? std::to_string(*w.end) : "end");
  out << '\n';
  return 0;
}

}  // namespace rocpd_cli
