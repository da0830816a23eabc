// The one place the engine turns configuration values into numbers
// (core/parameters): every read is range-checked at its edges, naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "core/errors.h"
#include "core/parameters.h"

namespace ibsec {
namespace {

using json = nlohmann::json;

ParameterValues with(const json& value) { return ParameterValues({{"k", value}}); }

void expect_refused(const std::function<void()>& read, const std::string& words = "") {
  try {
    read();
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "k");
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ParameterValues, CountsAtTheirEdges) {
  EXPECT_EQ(with(0).count("k"), 0U);
  EXPECT_EQ(with(UINT32_MAX).count("k"), UINT32_MAX);
  expect_refused([] { (void)with(uint64_t{UINT32_MAX} + 1).count("k"); }, "at most 4294967295");
  EXPECT_EQ(with(UINT64_MAX).count("k", UINT64_MAX), UINT64_MAX);
  // 2^64 parses as a double; it must not wrap to 0.
  expect_refused([] { (void)with(json::parse("18446744073709551616")).count("k", UINT64_MAX); }, "at most");
  expect_refused([] { (void)with(-1).count("k"); }, "whole number >= 0");
  expect_refused([] { (void)with(1e308).count("k", UINT64_MAX); }, "at most");
  expect_refused([] { (void)with(1e-308).count("k"); }, "whole number");
  expect_refused([] { (void)with(std::numeric_limits<double>::infinity()).count("k", UINT64_MAX); });
  expect_refused([] { (void)with("NaN").count("k"); }, "whole number");
  EXPECT_EQ(with(4.0).count("k"), 4U);  // a whole number written as a float
}

TEST(ParameterValues, NumbersAtTheirEdges) {
  EXPECT_EQ(with(0.0).non_negative("k"), 0.0);
  EXPECT_EQ(with(1e308).non_negative("k"), 1e308);
  EXPECT_EQ(with(1e-308).positive("k"), 1e-308);
  expect_refused([] { (void)with(0.0).positive("k"); }, "> 0");
  expect_refused([] { (void)with(-1e-308).non_negative("k"); }, ">= 0");
  expect_refused([] { (void)with(std::numeric_limits<double>::infinity()).non_negative("k"); });
  expect_refused([] { (void)with(std::numeric_limits<double>::quiet_NaN()).non_negative("k"); });
  expect_refused([] { (void)with("inf").number("k"); }, "expected a number");
  EXPECT_EQ(with(1.0).fraction("k"), 1.0);
  expect_refused([] { (void)with(1.0000001).fraction("k"); }, "at most 1");
}

TEST(ParameterValues, DurationsFitTheModelsClock) {
  EXPECT_EQ(with(2.5).duration("k", 1e3, false), 2'500'000U);  // 2.5 us
  EXPECT_EQ(with(0.0).duration("k", 1.0, false), 0U);
  EXPECT_EQ(with(1e6).duration("k", 1e9, false), kMaxDuration);  // 10^6 s: the longest
  expect_refused([] { (void)with(1.000001e6).duration("k", 1e9, false); }, "too long");
  expect_refused([] { (void)with(1e300).duration("k", 1.0, false); }, "too long");
  expect_refused([] { (void)with(1e-308).duration("k", 1e6, true); }, "at least 1 ps");
  EXPECT_EQ(with(0.001).duration("k", 1.0, true), 1U);  // 1 ps
  expect_refused([] { (void)with(-1).duration("k", 1.0, false); }, ">= 0");
}

TEST(ParameterValues, ClocksHaveAPeriodOfAtLeastATick) {
  EXPECT_EQ(with(270.0).clock_mhz("k").period(), 3704U);
  EXPECT_EQ(with(1e6).clock_mhz("k").period(), 1U);
  EXPECT_EQ(with(1e-6).clock_mhz("k").period(), 1'000'000'000'000U);
  expect_refused([] { (void)with(1e7).clock_mhz("k"); }, "1e+06 MHz");
  expect_refused([] { (void)with(1e-300).clock_mhz("k"); });
  expect_refused([] { (void)with(0).clock_mhz("k"); }, "> 0");
}

}  // namespace
}  // namespace ibsec
