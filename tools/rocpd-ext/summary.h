// `rocpd-ext summary`: the job's headline and sections, each section one statement over the SQL
// surface (rocpd_members, the breakdown, rocpd_busy, rocpd_copies, rocpd_kernel_summary,
// rocpd_union('apis'), rocpd_stragglers, rocpd_step_summary, rocpd_critical_path,
// rocpd_idle_breakdown), the warnings of warnings.h, and their printing in every format.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "options.h"
#include "output.h"
#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

struct Summary {
  std::vector<ResultSet> sections;    // the wanted sections in the order of section_names()
  std::vector<std::string> headline;  // the GPU time shares, the job's counts, then --by-rank lines
  std::vector<std::string> warnings;  // one line each (warnings.h)
};

bool is_section(const std::string& name);
// The names of the sections `s` holds, in order (html links only to those).
std::vector<std::string> section_list(const Summary& s);
// "findings, job, members, breakdown, busy, copies, kernels, roofline, apis, other_calls, stragglers, steps,
// critical_path, idle"
std::string section_names();

// The sections o.sections names (all when empty), each cut at o.top rows.
Summary build_summary(Session& session, const Options& o);
// Prints `s` in o.format; html also reads the utilization heatmap (o.buckets columns).
void write_summary(std::ostream& out, const Summary& s, const Options& o, Session& session);
// A section as the human formats print it: the title, the table (display.h), its note.
void write_human_section(std::ostream& out, const ResultSet& rs, Format format, TimeUnit unit);

}  // namespace rocpd_cli
