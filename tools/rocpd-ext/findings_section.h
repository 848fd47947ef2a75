// The summary's findings block, right after the headline: the rows of rocpd_findings
// (docs/anomalies.md), worst first, one line each with the time at stake and its evidence; in html
// each with a link to the section that shows its figures. The views are read over the tables the
// summary has already filled (the breakdown, the critical path) so the block costs little more
// than the anomalies' own medians.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "display.h"
#include "output.h"
#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

// Fills temp.cli_stragglers with the rows of rocpd_stragglers, in its order (once per session).
void prepare_stragglers(Session& session);
// temp.cli_busy: rocpd_busy read once for the job and busy sections and the findings.
void prepare_busy(Session& session);

// Fills temp.cli_steps with the rows of rocpd_steps (once per session) and makes the view
// temp.cli_step_summary, rocpd_step_summary over them: the steps section and the findings share
// one computation of the steps. Returns the view to read ("rocpd_step_summary" when the view is
// not there as expected).
std::string prepare_steps(Session& session);

// rule, severity, figures, at_stake_ns, at_stake_pct, next, evidence: the first `top` rows of
// rocpd_findings (the note says when there were more). Needs prepare_breakdown() first.
ResultSet findings_section(Session& session, long long top);

// The block in a human format (table, md, html). `sections`: the names of the sections on the
// page, the only ones html links to.
void write_findings(std::ostream& out, const ResultSet& rs, Format format, TimeUnit unit,
                    const std::vector<std::string>& sections);

// `sql` with every identifier of `names` (outside string literals, quoted names and comments)
// replaced by its pair's second: a view's statement made to read other tables.
std::string replace_names(const std::string& sql, const std::vector<std::pair<std::string, std::string>>& names);

}  // namespace rocpd_cli
