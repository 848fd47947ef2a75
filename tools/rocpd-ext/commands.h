// The four commands; each returns the process's exit status (errors are thrown as CliError).
// `target` is the -o file when one was given (the commands refuse a member's file as target).
#pragma once
#include <ostream>

#include "options.h"
#include "output_file.h"

namespace rocpd_cli {

int run_summary(const Options& o, std::ostream& out, const OutputFile* target);
int run_query(const Options& o, std::ostream& out, const OutputFile* target);
int run_export(const Options& o, std::ostream& out);
int run_compare(const Options& o, std::ostream& out, const OutputFile* target);

// Opens the session's members (progress when asked, Ctrl-C interrupting), then checks `target`.
void open_job(Session& session, const Options& o, const OutputFile* target);

}  // namespace rocpd_cli
