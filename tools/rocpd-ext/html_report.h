// The html format: one self-contained page (inline CSS and SVG, no script, nothing fetched).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "options.h"
#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

struct Summary;

// The summary page: headline, warnings, utilization heatmap per GPU (with the busy or breakdown
// section), top-kernel bars (with the kernels section), the slowest step's critical path as a lane
// chart (with the critical_path section), then every section's table.
void write_html_summary(std::ostream& out, const Summary& s, const Options& o, Session& session);
// A page of result tables: html_page_begin (the head, the title, `pre` in a <pre> when not
// empty, the warnings), the tables, html_page_end.
void html_page_begin(std::ostream& out, const std::string& title, const std::string& pre,
                     const std::vector<std::string>& warnings = {});
void html_page_end(std::ostream& out);

}  // namespace rocpd_cli
