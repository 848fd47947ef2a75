#include "export_split.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>

#include "job_progress.h"

namespace rocpd_cli {

bool is_split_spec(const std::string& spec) {
  if (spec == "ranks" || spec == "steps") return true;
  if (spec.empty() || spec.size() > 5) return false;
  for (char c : spec)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  const long n = std::stol(spec);
  return n >= 1 && n <= 10000;
}

int export_split(Session& session, const Options& o, const Window& w, const Param& options, std::ostream& out) {
  const bool pftrace = o.out.ends_with(".pftrace");
  progress_phase("export: writing the parts of " + o.out);
  Cell parts;
  try {
    parts = session.scalar("SELECT rocpd_export_split(?1, ?2, ?3, ?4, ?5)",
                           {Param(o.out), Param(o.split), w.start ? Param(*w.start) : Param(),
                            w.end ? Param(*w.end) : Param(), options});
  } catch (const CliError& e) {
    const std::string what = e.what();
    // In the command line's terms: --steps PATTERN chooses the step ranges.
    if (what.find("no step ranges") != std::string::npos)
      throw CliError("--split steps: no step ranges in the window (marker ranges named like '" +
                     session.scalar("SELECT rocpd_step_pattern()").text + "'); --steps PATTERN chooses them");
    throw;
  }
  auto bound = [](const Cell& c, const char* open) { return c.type == Cell::Type::Null ? std::string(open) : c.text; };
  session.each("SELECT value->>'file', value->>'start_ns', value->>'end_ns', value->>'events' FROM json_each(?1)",
               {Param(parts.text)}, [&](const std::vector<Cell>& r) {
                 const bool windowed = r[1].type != Cell::Type::Null || r[2].type != Cell::Type::Null;
                 const std::string window =
                     windowed ? fmt::format(" in [{}, {})", bound(r[1], "start"), bound(r[2], "end")) : "";
                 if (r[3].integer == 0)
                   out << fmt::format("{}: not written, no op or API call{}\n", r[0].text,
                                      windowed ? window : std::string(" in [start, end)"));
                 else
                   out << fmt::format("{}: {} {}{}\n", r[0].text, r[3].text, pftrace ? "packets" : "events", window);
               });
  return 0;
}

}  // namespace rocpd_cli
