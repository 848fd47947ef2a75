// rocpd-ext: the command-line face of the rocpd_ext SQLite extension (docs/cli.md). Results go
// to stdout and nothing else does; errors go to stderr as one line with a non-zero status.
#include <iostream>

#include "commands.h"
#include "options.h"
#include "session.h"

int main(int argc, char** argv) {
  using namespace rocpd_cli;
  std::ios::sync_with_stdio(false);
  interrupt_on_sigint(nullptr);
  try {
    Options o = parse_options(argc, argv);
    if (o.version) {
      std::cout << "rocpd-ext " << ROCPD_VERSION << '\n';
      return 0;
    }
    if (o.help) {
      std::cout << usage(o.command);
      return 0;
    }
    int rc = 0;
    if (o.command == "summary") rc = run_summary(o, std::cout);
    else if (o.command == "query") rc = run_query(o, std::cout);
    else rc = run_export(o, std::cout);
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "rocpd-ext: cannot write the output\n";
      return 1;
    }
    return rc;
  } catch (const CliError& e) {
    std::cout.flush();
    std::cerr << "rocpd-ext: " << e.what() << '\n';
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "rocpd-ext: " << e.what() << '\n';
    return 1;
  }
}
