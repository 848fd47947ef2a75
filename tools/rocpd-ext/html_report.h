// The html format: one self-contained page (inline CSS and SVG, no script, nothing fetched).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

struct Summary;

// The summary page: headline, utilization heatmap per GPU (with the busy section), top-kernel
// bars (with the kernels section), then every section's table.
void write_html_summary(std::ostream& out, const Summary& s, Session& session, long long buckets);
// A page of a query's result tables, the SQL above them.
void write_html_results(std::ostream& out, const std::vector<ResultSet>& sets, const std::string& sql);

}  // namespace rocpd_cli
