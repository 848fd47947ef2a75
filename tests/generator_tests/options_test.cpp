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
  EXPECT_EQ(error_of({"--format", "rpd4"}), "option --format must be rpd2, rpd3, rocpd, rocpd4, rocprofsys, mixed, nsys, kineto or vendors, got 'rpd4'");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "1", "--format", "rocpd", "--ops", "1", "--seed", "1", "--sessions", "2"}),
            "option --sessions applies to rpd files only (rocpd files hold one process each)");
}

TEST(GenOptions, LayoutAndJobOptions) {
  const Options d = parse({"--out", "d", "--procs", "2", "--format", "rocpd", "--ops", "10", "--seed", "1"});
  EXPECT_EQ(d.rocpd_version, "");
  EXPECT_EQ(d.rocpd_patch, -1);
  EXPECT_EQ(d.counters, 0);
  EXPECT_EQ(d.merge, 0);
  EXPECT_EQ(d.rpd_nodes, 0);
  EXPECT_EQ(d.host_skew, 0);
  EXPECT_EQ(rank_node(d, 3), 1);
  const Options o = parse({"--out", "d", "--procs", "2", "--format", "rocpd", "--ops", "10", "--seed", "1",
                           "--rocpd-version", "3.0.4", "--counters", "8", "--merge", "2", "--host-skew", "5000"});
  EXPECT_EQ(o.rocpd_version, "3.0.4");
  EXPECT_EQ(o.rocpd_patch, 4);
  EXPECT_EQ(o.counters, 8);
  EXPECT_EQ(o.merge, 2);
  EXPECT_EQ(o.host_skew, 5000);
  EXPECT_EQ(parse({"--out", "d", "--procs", "1", "--format", "mixed", "--ops", "1", "--seed", "1", "--rocpd-version", "3"})
                .rocpd_patch,
            -1);
  const Options n = parse({"--out", "d", "--procs", "5", "--format", "rpd3", "--ops", "1", "--seed", "1", "--rpd-nodes", "3"});
  EXPECT_EQ(rank_node(n, 4), 1);
  const auto base = [](std::string_view format, std::string_view option, std::string_view value) {
    return error_of({"--out", "d", "--procs", "1", "--format", format, "--ops", "1", "--seed", "1", option, value});
  };
  EXPECT_EQ(base("rocpd", "--rocpd-version", "3.0.6"), "option --rocpd-version must be 3 or 3.0.0 .. 3.0.5, got '3.0.6'");
  EXPECT_EQ(base("rpd3", "--rocpd-version", "3.0.1"),
            "option --rocpd-version applies to rocpd files only (--format rocpd or mixed)");
  EXPECT_EQ(base("rpd2", "--counters", "2"), "option --counters applies to rocpd files only (--format rocpd or mixed)");
  EXPECT_EQ(base("rocpd", "--counters", "9"), "option --counters must be between 0 and 8, got 9");
  EXPECT_EQ(base("mixed", "--merge", "2"), "option --merge applies to --format rocpd only");
  EXPECT_EQ(base("rocpd", "--rpd-nodes", "2"), "option --rpd-nodes applies to rpd3 files only (--format rpd3 or mixed)");
  EXPECT_EQ(base("rpd2", "--host-skew", "-1"), "option --host-skew must be between 0 and 100000000000, got -1");
}

}  // namespace
}  // namespace rocpd_gen
