#include "options.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string_view>

#include "compare.h"
#include "export_split.h"
#include "session.h"
#include "summary.h"

namespace rocpd_cli {

namespace {
constexpr int kUsage = 2;
const char* const kCommands = "summary, query, export, compare";

bool is_command(std::string_view c) { return c == "summary" || c == "query" || c == "export" || c == "compare"; }

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

// The long name of a short option.
std::string long_name(std::string_view opt) {
  if (opt == "-f") return "--format";
  if (opt == "-n") return "--top";
  if (opt == "-o") return "--output";
  return std::string(opt);
}

bool takes(const std::string& command, std::string_view opt) {
  if (opt == "--progress" || opt == "--output" || opt == "--no-cache") return true;
  if (command == "summary")
    return opt == "--format" || opt == "--top" || opt == "--section" || opt == "--buckets" || opt == "--timeunit" ||
           opt == "--by-rank" || opt == "--steps";
  if (command == "compare")
    return opt == "--format" || opt == "--top" || opt == "--section" || opt == "--timeunit" || opt == "--label" ||
           opt == "--steps" || opt == "--raw-names";
  if (command == "query") return opt == "--format" || opt == "--allow-write";
  if (command == "export")
    return opt == "--start" || opt == "--end" || opt == "--range" || opt == "--db" || opt == "--split" ||
           opt == "--steps" || opt == "--drop-domain" || opt == "--members" || opt == "--no-counters" ||
           opt == "--no-args";
  return false;
}

bool is_flag(std::string_view opt) {
  return opt == "--progress" || opt == "--by-rank" || opt == "--allow-write" || opt == "--no-cache" ||
         opt == "--raw-names" || opt == "--no-counters" || opt == "--no-args";
}

// The first word of SQL statements: an argument starting with one is never taken for a path.
bool starts_like_sql(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
  std::string word(s.substr(0, n));
  for (auto& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* const kWords[] = {"select", "with", "values", "pragma", "explain", "create", "drop", "attach",
                                       "detach", "insert", "update", "delete", "replace", "begin", "commit", "end",
                                       "rollback", "vacuum", "analyze", "reindex", "savepoint", "release", "alter"};
  for (const char* w : kWords)
    if (word == w) return true;
  return false;
}

// `query PATH` with the SQL forgotten: the last argument is a path, not SQL.
bool looks_like_path(const std::string& s) {
  std::error_code ec;
  if (std::filesystem::exists(s, ec)) return true;
  if (s.find_first_of(" \t\r\n") != std::string::npos || starts_like_sql(s)) return false;
  if (s.find_first_of("/*?[") != std::string::npos) return true;
  for (const char* ext : {".db", ".rpd", ".sqlite", ".json", ".json.gz", ".zst"})
    if (s.ends_with(ext)) return true;
  return false;
}

// A flag option (is_flag) given.
void set_flag(Options& o, const std::string& name) {
  if (name == "--progress") o.progress = true;
  else if (name == "--by-rank") o.by_rank = true;
  else if (name == "--no-cache") o.no_cache = true;
  else if (name == "--raw-names") o.raw_names = true;
  else if (name == "--no-counters") o.no_counters = true;
  else if (name == "--no-args") o.no_args = true;
  else o.allow_write = true;
}

// An option with its value.
void set_value(Options& o, const std::string& name, const std::string& value) {
  if (name == "--format") {
    auto f = parse_format(value);
    if (!f) usage_error(o.command, "unknown format '" + value + "' (table, csv, json, md or html)");
    o.format = *f;
  } else if (name == "--top") {
    o.top = positive(o.command, name, value);
  } else if (name == "--buckets") {
    o.buckets = positive(o.command, name, value);
  } else if (name == "--timeunit") {
    auto u = parse_time_unit(value);
    if (!u) usage_error(o.command, "unknown time unit '" + value + "' (auto, ns, us, ms or s)");
    o.timeunit = *u;
  } else if (name == "--section") {
    bool known = o.command == "compare" ? is_compare_section(value) : is_section(value);
    if (!known)
      usage_error(o.command, "unknown section '" + value + "' (" +
                                 (o.command == "compare" ? compare_section_names() : section_names()) + ")");
    o.sections.push_back(value);
  } else if (name == "--label") {
    if (o.labels.size() == 2) usage_error(o.command, "--label is given once per side (two at most)");
    if (value.empty()) usage_error(o.command, "--label needs a non-empty name");
    o.labels.push_back(value);
  } else if (name == "--output") {
    if (value.empty()) usage_error(o.command, "--output needs a file name");
    o.output = value;
  } else if (name == "--start") {
    o.start = value;
  } else if (name == "--end") {
    o.end = value;
  } else if (name == "--range") {
    o.range = value;
  } else if (name == "--db") {
    o.dbs.push_back(value);
  } else if (name == "--drop-domain") {
    // hsa,marker or repeated
    for (size_t a = 0; a <= value.size();) {
      const size_t b = std::min(value.find(',', a), value.size());
      if (b == a) usage_error(o.command, "--drop-domain needs API domain names such as hsa or marker, got '" + value + "'");
      o.drop_domains.push_back(value.substr(a, b - a));
      a = b + 1;
    }
  } else if (name == "--members") {
    if (value.empty()) usage_error(o.command, "--members needs a GLOB pattern of member names such as 'rank[0-3]'");
    o.member_globs.push_back(value);
  } else if (name == "--split") {
    if (!is_split_spec(value))
      usage_error(o.command, "--split takes ranks, steps or a number of time windows from 1 to 10000, got '" + value + "'");
    o.split = value;
  } else if (name == "--steps") {
    if (value.empty()) usage_error(o.command, "--steps needs a LIKE pattern of step range names such as 'train_step%'");
    o.steps = value;
  }
}

// The SQL (query), the OUT file (export) and the paths, from the positional arguments.
void take_positionals(Options& o, std::vector<std::string>& positional) {
  if (o.command == "query") {
    if (positional.empty()) usage_error(o.command, "query needs the SQL to run");
    o.sql = positional.back();
    positional.pop_back();
    if (looks_like_path(o.sql))
      usage_error(o.command, "missing SQL: the last argument '" + o.sql +
                                 "' is a path, and the SQL to run comes after the paths (rocpd-ext query PATH... SQL)");
  } else if (o.command == "export") {
    if (o.output) {
      // -o OUT names the file to write; every positional is then a PATH.
      o.out = *o.output;
      o.output.reset();
    } else {
      if (positional.size() < 2) usage_error(o.command, "export needs at least one PATH and the OUT file");
      o.out = positional.back();
      positional.pop_back();
    }
    if (positional.empty()) usage_error(o.command, "export needs at least one PATH and the OUT file");
    if (o.range && (o.start || o.end)) usage_error(o.command, "--range replaces --start and --end: give one or the others");
  } else if (o.command == "compare") {
    if (positional.size() != 2)
      usage_error(o.command, "compare needs two sides, A and B (each a trace file, a directory or a quoted glob), got " +
                                 std::to_string(positional.size()));
  } else if (positional.empty()) {
    usage_error(o.command, o.command + " needs at least one PATH (a trace file, a directory or a glob)");
  }
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) usage_error("", std::string("a command is needed: ") + kCommands);
  const std::string& first = args[0];
  if (first == "-h" || first == "--help" || first == "help") {
    o.help = true;
    if (args.size() > 1) o.command = args[1];
    if (!o.command.empty() && !is_command(o.command)) usage_error("", "unknown command '" + o.command + "'");
    return o;
  }
  if (first == "--version") {
    o.version = true;
    return o;
  }
  if (!is_command(first)) usage_error("", "unknown command '" + first + "' (commands: " + kCommands + ")");
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
    std::string name = long_name(a), value;
    bool has_value = false;
    if (auto eq = a.find('='); eq != std::string::npos && a.starts_with("--")) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (!takes(o.command, name)) usage_error(o.command, "unknown option '" + a.substr(0, a.find('=')) + "' for " + o.command);
    if (is_flag(name)) {
      if (has_value) usage_error(o.command, name + " takes no value");
      set_flag(o, name);
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) usage_error(o.command, name + " needs a value");
      value = args[++i];
    }
    set_value(o, name, value);
  }
  take_positionals(o, positional);
  o.paths = std::move(positional);
  return o;
}

std::string usage(const std::string& command) {
  if (command == "summary")
    return R"(usage: rocpd-ext summary PATH... [-f|--format table|csv|json|md|html] [-n|--top N]
                         [--section NAME]... [--timeunit auto|ns|us|ms|s] [--by-rank]
                         [--buckets N] [--steps PATTERN] [-o|--output FILE] [--progress] [--no-cache]

The job's headline over every member PATH names. The first line: where the GPUs' time went
(compute, communication, copies, idle); then the sections: the job, its members, the breakdown per
GPU, busy time per GPU, copies (bytes, bandwidth), the top kernels and API calls, stragglers and
step times (jobs with collectives and steps), the critical path's share per kind of the slowest and
the median step (jobs with steps), idle time by cause. Warnings (a counter-collection
trace, members of different runs, a trace opened twice, ...) go to stderr.

  PATH            a trace file, a directory (searched as rocpd_open searches it) or a glob
  -f, --format F  table (default), csv, json, md or html (one self-contained page with a
                  utilization heatmap per GPU and top-kernel bars)
  -n, --top N     rows of every section (default 10)
  --section NAME  print only this section (repeatable): )" +
           section_names() + R"(
  --timeunit U    durations in table, md and html: auto (default: each in the unit that fits
                  it, 1.23 ms), or every one in ns, us, ms or s; csv and json are always ns
  --by-rank       one headline line per member (per process in a file of several), most idle first
  --buckets N     columns of the html heatmap (default 100)
  --steps P       the step ranges: marker ranges named LIKE P (default 'ProfilerStep#%'), for the
                  steps and critical path sections (rocpd_step_pattern)
  -o, --output F  write the output to F instead of stdout (replaced once complete)
  --progress      progress lines on stderr: the whole command's about once a second, long steps'
  --no-cache      convert traces (PyTorch, nsys) into temporary databases, not the cache

csv prints one table per section, in the order above, separated by an empty line; json prints
one object whose keys are the section names (job: an object; the others: arrays of rows).
Errors go to stderr with exit status 1 (2 for a usage error).
)";
  if (command == "query")
    return R"(usage: rocpd-ext query [PATH...] SQL [-f|--format table|csv|json|md|html] [-o|--output FILE]
                       [--allow-write] [--progress] [--no-cache]

Runs SQL (one or more statements) over the members PATH names, with the extension loaded: the
canonical tables (rocpd_ops, rocpd_apis, ...), the views and every function of docs/*.md. Each
statement that returns columns prints its rows as they come (json: one array of row objects per
statement).

  PATH            a trace file, a directory or a glob, opened with rocpd_open
  -f, --format F  table (default), csv, json, md or html
  -o, --output F  write the output to F instead of stdout (replaced once complete)
  --allow-write   let the SQL write files (ATTACH read-write, VACUUM INTO, rocpd_import,
                  rocpd_compress, rocpd_export_trace); without it the connection writes none
  --progress      progress lines on stderr: the whole command's about once a second, long statements'
  --no-cache      convert traces (PyTorch, nsys) into temporary databases, not the cache
)";
  if (command == "export")
    return R"(usage: rocpd-ext export PATH... OUT [--start T] [--end T | --range NAME] [--db NAME]...
                        [--members GLOB]... [--drop-domain D,...] [--no-counters] [--no-args]
                        [--split ranks|steps|N [--steps PATTERN]] [--progress] [--no-cache]
       rocpd-ext export PATH... -o OUT ...

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
  --members GLOB       only members whose name matches (repeatable; 'rank[0-3]', 'node1_*')
  --drop-domain D,...  leave out the API calls of these domains (hip, hsa, marker, rccl, cuda, ...)
  --no-counters        no GPU utilization counter tracks
  --no-args            no debug annotations (correlation_id, op_id, call arguments) on slices
  --split S            several files, OUT.<part>.json (rocpd_export_split): ranks (one per
                       member), steps (one per step, --steps PATTERN, and 'before'/'after' the
                       steps), or N (N equal windows of time); each row in one part
  --progress           progress lines on stderr
  --no-cache           convert traces (PyTorch, nsys) into temporary databases, not the cache

Prints the number of events written.
)";
  if (command == "compare")
    return R"(usage: rocpd-ext compare A B [--label NAME_A [--label NAME_B]] [-f|--format table|csv|json|md|html]
                        [-n|--top N] [--section NAME]... [--timeunit auto|ns|us|ms|s]
                        [--steps PATTERN] [--raw-names] [-o|--output FILE] [--progress] [--no-cache]

Compares two runs: A and B are each a trace file, a directory or a quoted glob. First the step
time (count, mean, median, p90; without steps the work per second of capture) and where the
GPUs' time went (compute, communication, copies, idle) in each run, then what differs in the
runs themselves (devices, world size, framework and driver versions), then per kernel, runtime
API call and copy kind the calls, totals and medians of each side, a Mann-Whitney test of their
durations, and a ranking by the significant changes only (median change per call x calls per
step, or per second); the other rows say "within noise".

  --label NAME    the name of side A (first) and of side B (second); default A and B
  -f, --format F  table (default), csv, json, md or html
  -n, --top N     rows of every section (default 10)
  --section NAME  print only this section (repeatable): )" +
           compare_section_names() + R"(
  --timeunit U    durations in table, md and html: auto, ns, us, ms or s (csv and json: ns)
  --steps P       the step ranges the time per step counts: marker ranges named LIKE P (default
                  'ProfilerStep#%'; rocpd_step_pattern)
  --raw-names     pair kernels and calls by their raw names (default: normalised names, without
                  template digests ~1a2b3c, _vNNNN suffixes, op_id = N / seq = N counters)
  -o, --output F  write the output to F instead of stdout (replaced once complete)
  --progress      progress lines on stderr: the whole command's about once a second, long steps'
  --no-cache      convert traces (PyTorch, nsys) into temporary databases, not the cache
)";
  return R"(usage: rocpd-ext COMMAND [options] ...

GPU trace databases (rocprofv3 rocpd, rocmProfileData rpd, Nsight Systems, PyTorch profiler, ...)
federated by the rocpd_ext SQLite extension.

  summary PATH...      the job's headline: where the GPUs' time went, members, copies, top
                       kernels and API calls, stragglers, idle causes (table, csv, json, md, html)
  query [PATH...] SQL  any SQL over the opened members, in the same formats
  export PATH... OUT   a Perfetto / chrome://tracing file of a window of the job
  compare A B          two runs side by side: what changed, per kernel, API call and copy

PATH is a trace file, a directory or a glob. `rocpd-ext COMMAND --help` describes each command.
The library is librocpd_ext.so beside the executable or in its install prefix's library
directory; ROCPD_EXT_LIBRARY=/path/to/librocpd_ext.so overrides.
)";
}

}  // namespace rocpd_cli
