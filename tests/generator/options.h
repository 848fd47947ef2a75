// Command line of rocpd_gen (a contract: tests, fixtures, demo and bench call it).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocpd_gen {

enum class Format { Rpd2, Rpd3, Rocpd, Mixed };

struct Options {
  std::string out;
  int procs = 0;
  Format format = Format::Rpd2;
  std::string format_name;  // as given: rpd2 | rpd3 | rocpd | mixed
  int64_t ops = 0;
  uint64_t seed = 0;
  int gpus = 4;
  int queues = 2;
  int sessions = 1;
  int64_t apis_extra = -1;  // -1: ops / 4
  int64_t markers = -1;     // -1: ops / 50
  bool help = false;
};

// A bad command line; what() is the message shown after "rocpd_gen: ".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Options parse_options(const std::vector<std::string_view>& args);
std::string_view usage_text();

// The format of file i: the requested one, or [rpd2, rpd3, rocpd][i % 3] for mixed.
Format file_format(const Options& options, int rank);

}  // namespace rocpd_gen
