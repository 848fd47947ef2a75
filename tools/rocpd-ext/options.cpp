#include "options.h"

#include <charconv>
#include <string_view>

#include "session.h"
#include "summary.h"

namespace rocpd_cli {

namespace {
constexpr int kUsage = 2;

[[noreturn]] void usage_error(const std::string& command, const std::string& msg) {
  std::string cmd = command.empty() ? "" : " " + command;
  throw CliError(msg + " (see rocpd-ext" + cmd + " --help)", kUsage);
}

long long positive(const std::string& command, const std::string& opt, const std::string& v) {
  long long n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n <= 0)
    usage_error(command, opt + " needs a positive integer, got '" + v + "'");
  return n;
}

bool takes(const std::string& command, std::string_view opt) {
  if (opt == "--progress") return true;
  if (command == "summary")
    return opt == "--format" || opt == "--top" || opt == "--section" || opt == "--buckets";
  if (command == "query") return opt == "--format";
  if (command == "export") return opt == "--start" || opt == "--end" || opt == "--range" || opt == "--db";
  return false;
}
}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) usage_error("", "a command is needed: summary, query or export");
  const std::string& first = args[0];
  if (first == "-h" || first == "--help" || first == "help") {
    o.help = true;
    if (args.size() > 1) o.command = args[1];
    if (!o.command.empty() && o.command != "summary" && o.command != "query" && o.command != "export")
      usage_error("", "unknown command '" + o.command + "'");
    return o;
  }
  if (first == "--version") {
    o.version = true;
    return o;
  }
  if (first != "summary" && first != "query" && first != "export")
    usage_error("", "unknown command '" + first + "' (commands: summary, query, export)");
  o.command = first;
  std::vector<std::string> positional;
  bool options_done = false;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-' || a == "-") {
      positional.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    if (a == "-h" || a == "--help") {
      o.help = true;
      return o;
    }
    std::string name = a, value;
    bool has_value = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.starts_with("--")) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (!takes(o.command, name)) usage_error(o.command, "unknown option '" + name + "' for " + o.command);
    if (name == "--progress") {
      if (has_value) usage_error(o.command, "--progress takes no value");
      o.progress = true;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) usage_error(o.command, name + " needs a value");
      value = args[++i];
    }
    if (name == "--format") {
      auto f = parse_format(value);
      if (!f) usage_error(o.command, "unknown format '" + value + "' (table, csv, json, md or html)");
      o.format = *f;
    } else if (name == "--top") {
      o.top = positive(o.command, name, value);
    } else if (name == "--buckets") {
      o.buckets = positive(o.command, name, value);
    } else if (name == "--section") {
      if (!is_section(value))
        usage_error(o.command, "unknown section '" + value + "' (" + section_names() + ")");
      o.sections.push_back(value);
    } else if (name == "--start") {
      o.start = value;
    } else if (name == "--end") {
      o.end = value;
    } else if (name == "--range") {
      o.range = value;
    } else if (name == "--db") {
      o.dbs.push_back(value);
    }
  }
  if (o.command == "query") {
    if (positional.empty()) usage_error(o.command, "query needs the SQL to run");
    o.sql = positional.back();
    positional.pop_back();
  } else if (o.command == "export") {
    if (positional.size() < 2) usage_error(o.command, "export needs at least one PATH and the OUT file");
    o.out = positional.back();
    positional.pop_back();
    if (o.range && (o.start || o.end)) usage_error(o.command, "--range replaces --start and --end: give one or the others");
  } else if (positional.empty()) {
    usage_error(o.command, o.command + " needs at least one PATH (a trace file, a directory or a glob)");
  }
  o.paths = std::move(positional);
  return o;
}

std::string usage(const std::string& command) {
  if (command == "summary")
    return R"(usage: rocpd-ext summary PATH... [--format table|csv|json|md|html] [--top N]
                         [--section NAME]... [--buckets N] [--progress]

The job's headline over every member PATH names: the job (members, span, GPU ops, API calls),
each member, busy time per GPU, the top kernels, the top API calls and idle time by cause.

  PATH            a trace file, a directory (searched as rocpd_open searches it) or a glob
  --format F      table (default), csv, json, md or html (one self-contained page with a
                  utilization heatmap per GPU and top-kernel bars)
  --top N         rows of the kernel and API tables (default 10)
  --section NAME  print only this section (repeatable): )" +
           section_names() + R"(
  --buckets N     columns of the html heatmap (default 100)
  --progress      progress lines on stderr during long steps

csv prints one table per section, in the order above, separated by an empty line; json prints
one object whose keys are the section names (job: an object; the others: arrays of rows).
Errors go to stderr with exit status 1 (2 for a usage error).
)";
  if (command == "query")
    return R"(usage: rocpd-ext query [PATH...] SQL [--format table|csv|json|md|html] [--progress]

Runs SQL (one or more statements) over the members PATH names, with the extension loaded: the
canonical tables (rocpd_ops, rocpd_apis, ...), the views and every function of docs/*.md. Each
statement that returns columns prints its rows (json: one array of row objects per statement).

  PATH            a trace file, a directory or a glob, opened with rocpd_open
  --format F      table (default), csv, json, md or html
  --progress      progress lines on stderr during long statements
)";
  if (command == "export")
    return R"(usage: rocpd-ext export PATH... OUT [--start T] [--end T | --range NAME] [--db NAME]...
                        [--progress]

Writes the members' ops and API calls to OUT for Perfetto UI or chrome://tracing
(rocpd_export_trace): OUT ending in .json, .json.gz or .pftrace.

  --start T, --end T   the window [start, end); T is one of
                         12000000, 12ms, 1.5s, 250us, 800ns   time since the job's first timestamp
                         25%                                  a share of the job's span
                         @1000079750000000                    a timestamp as rocpd_ops shows it
                         NAME or range:NAME                   a CPU range (rocpd_ranges): --start
                                                              is its first start, --end its last end
  --range NAME         from the first start to the last end of the ranges named NAME
  --db NAME            only this member (repeatable)
  --progress           progress lines on stderr

Prints the number of events written.
)";
  return R"(usage: rocpd-ext COMMAND [options] ...

GPU trace databases (rocprofv3 rocpd, rocmProfileData rpd, ...) federated by the rocpd_ext
SQLite extension.

  summary PATH...      the job's headline: members, span, busy per GPU, top kernels and API
                       calls, idle causes (table, csv, json, md or html)
  query [PATH...] SQL  any SQL over the opened members, in the same formats
  export PATH... OUT   a Perfetto / chrome://tracing file of a window of the job

PATH is a trace file, a directory or a glob. `rocpd-ext COMMAND --help` describes each command.
The library is librocpd_ext.so beside the executable or in its install prefix's library
directory; ROCPD_EXT_LIBRARY=/path/to/librocpd_ext.so overrides.
)";
}

}  // namespace rocpd_cli
