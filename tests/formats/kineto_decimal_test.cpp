// kineto_decimal: JSON number text -> exact integers, against values built the other way round
// (integers formatted as Kineto writes them) and the edges of int64.
#include "formats/kineto/kineto_decimal.h"

#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <string>

namespace rocpd::formats::kineto {
namespace {

std::string micros(int64_t ns) {  // as Kineto's writer formats a time: µs with three decimals
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t a = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", sign, static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  return buf;
}

TEST(KinetoDecimal, RoundTripsEveryFormattedTime) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    int64_t ns = static_cast<int64_t>(rng() >> (rng() % 64));
    if (i % 3 == 0) ns = -ns;
    if (ns == INT64_MIN) continue;
    int64_t got = 0;
    ASSERT_EQ(micros_to_ns(micros(ns), got), NumberStatus::Ok) << micros(ns);
    ASSERT_EQ(got, ns) << micros(ns);
    // The same value as an integer of ns times 10^-3, and with trailing zeros.
    ASSERT_EQ(micros_to_ns(std::to_string(ns) + "e-3", got), NumberStatus::Ok);
    ASSERT_EQ(got, ns);
    ASSERT_EQ(micros_to_ns(micros(ns) + "000", got), NumberStatus::Ok);
    ASSERT_EQ(got, ns);
  }
}

TEST(KinetoDecimal, NearTwoToThe53) {
  int64_t got = 0;
  for (int64_t ns = (int64_t{1} << 53) - 1000; ns <= (int64_t{1} << 53) + 1000; ++ns) {
    ASSERT_EQ(micros_to_ns(micros(ns), got), NumberStatus::Ok);
    ASSERT_EQ(got, ns);
  }
}

TEST(KinetoDecimal, RoundsHalvesAwayFromZero) {
  int64_t got = 0;
  struct Case {
    const char* text;
    int64_t ns;
  } cases[] = {{"0.0005", 1},  {"0.00049999", 0}, {"-0.0005", -1}, {"12.3456", 12346}, {"12.3454", 12345},
               {"1.5e3", 1500000}, {"1E-4", 0}, {"5e-4", 1}, {"-5e-4", -1}, {"0.0", 0}, {"-0", 0}, {"68.0", 68000},
               {"1e-999999999", 0}};
  for (const auto& c : cases) {
    ASSERT_EQ(micros_to_ns(c.text, got), NumberStatus::Ok) << c.text;
    EXPECT_EQ(got, c.ns) << c.text;
  }
}

TEST(KinetoDecimal, EdgesOfInt64) {
  int64_t got = 0;
  EXPECT_EQ(integer_value("9223372036854775807", got), NumberStatus::Ok);
  EXPECT_EQ(got, INT64_MAX);
  EXPECT_EQ(integer_value("-9223372036854775808", got), NumberStatus::Ok);
  EXPECT_EQ(got, INT64_MIN);
  EXPECT_EQ(integer_value("9223372036854775808", got), NumberStatus::Overflow);
  EXPECT_EQ(integer_value("-9223372036854775809", got), NumberStatus::Overflow);
  EXPECT_EQ(micros_to_ns("9223372036854775.807", got), NumberStatus::Ok);
  EXPECT_EQ(got, INT64_MAX);
  EXPECT_EQ(micros_to_ns("9223372036854775.808", got), NumberStatus::Overflow);
  EXPECT_EQ(micros_to_ns("1e30", got), NumberStatus::Overflow);
  EXPECT_EQ(micros_to_ns("1e99999999999999999999", got), NumberStatus::Overflow);
  EXPECT_EQ(integer_value("100000000000000000000000000000000000000000000", got), NumberStatus::Overflow);
}

TEST(KinetoDecimal, IntegersRefuseFractions) {
  int64_t got = 0;
  EXPECT_EQ(integer_value("68.0", got), NumberStatus::Ok);
  EXPECT_EQ(got, 68);
  EXPECT_EQ(integer_value("1e3", got), NumberStatus::Ok);
  EXPECT_EQ(got, 1000);
  EXPECT_EQ(integer_value("1.5", got), NumberStatus::NotInteger);
  EXPECT_EQ(integer_value("1e-1", got), NumberStatus::NotInteger);
  for (const char* bad : {"", "-", ".5", "1.", "1e", "1e+", "x", "1x", "--1", "NaN"})
    EXPECT_EQ(integer_value(bad, got), NumberStatus::Malformed) << bad;
}

}  // namespace
}  // namespace rocpd::formats::kineto
