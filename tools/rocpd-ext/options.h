// The command line: `rocpd-ext COMMAND [options] ARGS...`, parsed into Options, and each
// command's --help text.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "display.h"
#include "output.h"

namespace rocpd_cli {

struct Options {
  std::string command;  // "summary", "query", "export", "compare", or "" for --help/--version
  bool help = false;
  bool version = false;
  std::vector<std::string> paths;  // member files, directories or globs (rocpd_open's argument)
  std::string sql;                 // query
  std::string out;                 // export: the file to write
  std::optional<std::string> output;  // -o FILE: the output goes to FILE instead of stdout
  Format format = Format::Table;
  long long top = 10;              // summary, compare: rows of each section
  long long buckets = 100;         // summary --format html: columns of the utilization heatmap
  std::vector<std::string> sections;  // summary, compare: only these sections (default: all)
  TimeUnit timeunit = TimeUnit::Auto;  // summary, compare: durations in table, md and html
  bool by_rank = false;            // summary: a headline line per member
  std::vector<std::string> labels;  // compare: the two sides' names
  bool raw_names = false;          // compare: pair by raw names, not normalised ones (name_normal.h)
  bool allow_write = false;        // query: the connection may write files
  bool progress = false;
  bool no_cache = false;           // ROCPD_CACHE=0: Kineto traces are converted into temporary databases
  std::optional<std::string> steps;  // summary, compare: ROCPD_STEP_PATTERN, the step ranges' LIKE pattern
  std::optional<std::string> start, end, range;  // export window (export_window.h)
  std::vector<std::string> dbs;                  // export: only these members
  std::string split;                             // export: "", "ranks", "steps" or N (export_split.h)
  std::vector<std::string> drop_domains;         // export: API domains left out (option drop_domains)
  std::vector<std::string> member_globs;         // export: only members matching one (option members)
  bool no_counters = false, no_args = false;     // export: options counters false, args false
};

// Throws CliError (exit code 2) for a usage error, naming the argument.
Options parse_options(int argc, char** argv);
// The help text of a command ("" for the tool's).
std::string usage(const std::string& command);

}  // namespace rocpd_cli
