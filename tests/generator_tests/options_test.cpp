// The rocpd_gen command line: defaults, and the exact text of every usage error.
#include <gtest/gtest.h>

#include "options.h"

namespace rocpd_gen {
namespace {

Options parse(std::initializer_list<std::string_view> args) { return parse_options(std::vector<std::string_view>(args)); }

std::string error_of(std::initializer_list<std::string_view> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GenOptions, RequiredAndDefaults) {
  const Options o = parse({"--out", "d", "--procs", "3", "--format", "mixed", "--ops", "1000", "--seed", "9"});
  EXPECT_EQ(o.out, "d");
  EXPECT_EQ(o.procs, 3);
  EXPECT_EQ(o.format, Format::Mixed);
  EXPECT_EQ(o.ops, 1000);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.gpus, 4);
  EXPECT_EQ(o.queues, 2);
  EXPECT_EQ(o.sessions, 1);
  EXPECT_EQ(o.apis_extra, 250);
  EXPECT_EQ(o.markers, 20);
  EXPECT_EQ(file_format(o, 0), Format::Rpd2);
  EXPECT_EQ(file_format(o, 1), Format::Rpd3);
  EXPECT_EQ(file_format(o, 2), Format::Rocpd);
  EXPECT_EQ(file_format(o, 3), Format::Rpd2);
}

TEST(GenOptions, EqualsFormAndOverrides) {
  const Options o = parse({"--out=d", "--procs=1", "--format=rpd3", "--ops=10", "--seed=18446744073709551615",
                           "--gpus", "8", "--queues", "3", "--sessions", "2", "--apis-extra", "0", "--markers", "5"});
  EXPECT_EQ(o.seed, 18446744073709551615u);
  EXPECT_EQ(o.gpus, 8);
  EXPECT_EQ(o.queues, 3);
  EXPECT_EQ(o.sessions, 2);
  EXPECT_EQ(o.apis_extra, 0);
  EXPECT_EQ(o.markers, 5);
  EXPECT_TRUE(parse({"--help"}).help);
}

TEST(GenOptions, ErrorTexts) {
  EXPECT_EQ(error_of({"--procs", "1", "--format", "rpd2", "--ops", "1", "--seed", "1"}),
            "missing required option --out");
  EXPECT_EQ(error_of({"--out", "d", "--format", "rpd2", "--ops", "1", "--seed", "1"}),
            "missing required option --procs");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "1", "--ops", "1", "--seed", "1"}),
            "missing required option --format");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "1", "--format", "rpd2", "--seed", "1"}),
            "missing required option --ops");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "1", "--format", "rpd2", "--ops", "1"}),
            "missing required option --seed");
  EXPECT_EQ(error_of({"--bogus", "1"}), "unknown option '--bogus'");
  EXPECT_EQ(error_of({"stray"}), "unexpected argument 'stray'");
  EXPECT_EQ(error_of({"--out"}), "option --out needs a value");
  EXPECT_EQ(error_of({"--out="}), "option --out needs a non-empty directory");
  EXPECT_EQ(error_of({"--procs", "x"}), "option --procs expects an integer, got 'x'");
  EXPECT_EQ(error_of({"--procs", "0"}), "option --procs must be between 1 and 100000, got 0");
  EXPECT_EQ(error_of({"--ops", "-5"}), "option --ops must be between 1 and 100000000, got -5");
  EXPECT_EQ(error_of({"--gpus", "65"}), "option --gpus must be between 1 and 64, got 65");
  EXPECT_EQ(error_of({"--queues", "0"}), "option --queues must be between 1 and 64, got 0");
  EXPECT_EQ(error_of({"--sessions", "99"}), "option --sessions must be between 1 and 64, got 99");
  EXPECT_EQ(error_of({"--seed", "-1"}), "option --seed expects a non-negative integer, got '-1'");
  EXPECT_EQ(error_of({"--format", "rpd4"}), "option --format must be rpd2, rpd3, rocpd or mixed, got 'rpd4'");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "1", "--format", "rocpd", "--ops", "1", "--seed", "1", "--sessions", "2"}),
            "option --sessions applies to rpd files only (rocpd files hold one process each)");
}

}  // namespace
}  // namespace rocpd_gen
