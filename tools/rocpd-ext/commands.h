// The three commands; each returns the process's exit status (errors are thrown as CliError).
#pragma once
#include <ostream>

#include "options.h"

namespace rocpd_cli {

int run_summary(const Options& o, std::ostream& out);
int run_query(const Options& o, std::ostream& out);
int run_export(const Options& o, std::ostream& out);

}  // namespace rocpd_cli
