// The command line: `rocpd-ext COMMAND [options] ARGS...`, parsed into Options, and each
// command's --help text.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "output.h"

namespace rocpd_cli {

struct Options {
  std::string command;  // "summary", "query", "export", or "" for the tool's own --help/--version
  bool help = false;
  bool version = false;
  std::vector<std::string> paths;  // member files, directories or globs (rocpd_open's argument)
  std::string sql;                 // query
  std::string out;                 // export: the file to write
  Format format = Format::Table;
  long long top = 10;              // summary: rows of the kernel and API tables
  long long buckets = 100;         // summary --format html: columns of the utilization heatmap
  std::vector<std::string> sections;  // summary: only these sections (default: all)
  bool progress = false;
  std::optional<std::string> start, end, range;  // export window (export_window.h)
  std::vector<std::string> dbs;                  // export: only these members
};

// Throws CliError (exit code 2) for a usage error, naming the argument.
Options parse_options(int argc, char** argv);
// The help text of a command ("" for the tool's).
std::string usage(const std::string& command);

}  // namespace rocpd_cli
