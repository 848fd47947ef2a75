// `rocpd-ext summary`: the job's headline as result sets, each one statement over the SQL
// surface (rocpd_members, rocpd_busy, rocpd_kernel_summary, rocpd_union('apis'),
// rocpd_idle_breakdown), and its printing in every format.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "output.h"
#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

struct Summary {
  std::vector<ResultSet> sections;  // in the order of section_names()
  std::string headline;             // one sentence for the table, md and html formats
};

bool is_section(const std::string& name);
// "job, members, busy, kernels, apis, idle"
std::string section_names();

// The sections named in `only` (all when empty), kernel and API tables cut at `top` rows.
Summary build_summary(Session& session, long long top, const std::vector<std::string>& only);
// Prints `s` in `format`; html also reads the utilization heatmap (`buckets` columns).
void write_summary(std::ostream& out, const Summary& s, Format format, Session& session, long long buckets);

}  // namespace rocpd_cli
