// rocpd-ext: the command-line face of the rocpd_ext SQLite extension (docs/cli.md). Results go
// to stdout (or the -o file) and nothing else does; warnings go to stderr, errors too as one line
// with a non-zero status.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "commands.h"
#include "log_warnings.h"
#include "options.h"
#include "output_file.h"
#include "session.h"
#include "text_clean.h"

namespace {
// stdout could not take the output (a closed pipe, a full disk): the status says so.
int flushed(int rc) {
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "rocpd-ext: cannot write the output\n";
    return 1;
  }
  return rc;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace rocpd_cli;
  std::ios::sync_with_stdio(false);
  show_extension_warnings();
  interrupt_on_sigint(nullptr);
  try {
    Options o = parse_options(argc, argv);
    if (o.version) {
      std::cout << "rocpd-ext " << ROCPD_VERSION << '\n';
      return flushed(0);
    }
    if (o.help) {
      std::cout << usage(o.command);
      return flushed(0);
    }
    // Read by rocpd_open when it converts a trace (docs/formats.md, "The conversion cache").
    if (o.no_cache) ::setenv("ROCPD_CACHE", "0", 1);
    // The connections' rocpd_step_pattern() (docs/ranks.md, "Steps"): every step table and view follows it.
    if (o.steps) ::setenv("ROCPD_STEP_PATTERN", o.steps->c_str(), 1);
    std::unique_ptr<OutputFile> file;
    if (o.output) file = std::make_unique<OutputFile>(*o.output);
    std::ostream& out = file ? file->stream() : std::cout;
    int rc = 0;
    if (o.command == "summary") rc = run_summary(o, out, file.get());
    else if (o.command == "query") rc = run_query(o, out, file.get());
    else if (o.command == "compare") rc = run_compare(o, out, file.get());
    else rc = run_export(o, out);
    if (file) file->commit();
    return flushed(rc);
  } catch (const CliError& e) {
    std::cout.flush();
    std::cerr << "rocpd-ext: " << terminal_text(e.what()) << '\n';
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "rocpd-ext: " << terminal_text(e.what()) << '\n';
    return 1;
  }
}
