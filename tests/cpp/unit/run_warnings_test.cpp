// The warnings a result carries (sim/run_warnings.h, docs/running.md): each
// fires exactly past its threshold and not before.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/run_warnings.h"

namespace ibsec::sim {
namespace {

std::vector<std::string> kinds(const RunHealth& health) {
  std::vector<std::string> out;
  for (const RunWarning& w : run_warnings(health)) out.push_back(w.kind);
  return out;
}

RunHealth sound() {
  return {.offered_throughput = 0.1, .accepted_throughput = 0.1, .packets_measured = kMinPacketsForPercentiles};
}

TEST(RunWarnings, ASoundRunHasNone) { EXPECT_TRUE(run_warnings(sound()).empty()); }

TEST(RunWarnings, SaturatedOnlyBeyondTheShortfall) {
  RunHealth h = sound();
  h.accepted_throughput = 0.1 * (1.0 - kSaturationShortfall) + 1e-9;  // just within
  EXPECT_TRUE(kinds(h).empty());
  h.accepted_throughput = 0.1 * (1.0 - kSaturationShortfall) - 1e-6;  // just beyond
  EXPECT_EQ(kinds(h), std::vector<std::string>{"saturated"});
  const std::string message = run_warnings(h).front().message;
  EXPECT_NE(message.find("of 0.1 offered (5 % short)"), std::string::npos) << message;
}

TEST(RunWarnings, RefusedOffersAreSaturationEvenAtFullThroughput) {
  RunHealth h = sound();
  h.offers_refused = 1;
  EXPECT_EQ(kinds(h), std::vector<std::string>{"saturated"});
}

TEST(RunWarnings, NoOfferedThroughputIsNoSaturation) {
  RunHealth h = sound();
  h.offered_throughput = 0.0;
  h.accepted_throughput = 0.0;
  EXPECT_TRUE(kinds(h).empty());
}

TEST(RunWarnings, NotDrainedNamesThePacketsLeft) {
  RunHealth h = sound();
  h.drained = false;
  h.packets_stuck = 42;
  ASSERT_EQ(kinds(h), std::vector<std::string>{"not_drained"});
  EXPECT_NE(run_warnings(h).front().message.find("42 packets"), std::string::npos);
}

TEST(RunWarnings, FewPacketsBelowTenBeyondTheP99) {
  RunHealth h = sound();
  h.packets_measured = kMinPacketsForPercentiles - 1;
  EXPECT_EQ(kinds(h), std::vector<std::string>{"few_packets"});
  h.packets_measured = 0;
  EXPECT_EQ(kinds(h), std::vector<std::string>{"few_packets"});
  // 1 000 packets leave 1000 * (1 - 0.99) = 10 beyond the p99.
  EXPECT_EQ(kMinPacketsForPercentiles / 100, 10U);
}

TEST(RunWarnings, AllThreeTogetherInAFixedOrder) {
  const RunHealth h{.offered_throughput = 1.0,
                    .accepted_throughput = 0.5,
                    .offers_refused = 3,
                    .drained = false,
                    .packets_stuck = 7,
                    .packets_measured = 10};
  EXPECT_EQ(kinds(h), (std::vector<std::string>{"saturated", "not_drained", "few_packets"}));
  const auto json = warnings_json(run_warnings(h));
  ASSERT_EQ(json.size(), 3U);
  EXPECT_EQ(json[0]["kind"], "saturated");
  EXPECT_TRUE(json[0]["message"].is_string());
}

TEST(RunWarnings, APrefetchBufferThatNeverReceivedAKeySaysWhyAndHow) {
  RunHealth h = sound();
  h.prefetch_buffer = true;
  h.prefetch_triggers = 3;
  h.scheduler_policy = "batch";
  EXPECT_EQ(kinds(h), std::vector<std::string>{"prefetch_idle"});
  const std::string message = run_warnings(h).front().message;
  EXPECT_NE(message.find("no prefetch was issued (3 triggers)"), std::string::npos) << message;
  EXPECT_NE(message.find("(scheduler.policy = batch)"), std::string::npos) << message;
  EXPECT_NE(message.find("traffic.processes_per_node > 1"), std::string::npos) << message;
  h.prefetches_issued = 1;  // one prefetch: the buffer took part
  EXPECT_TRUE(kinds(h).empty());
  h.prefetch_buffer = false;  // no buffer: nothing to say
  h.prefetches_issued = 0;
  EXPECT_TRUE(kinds(h).empty());
}

}  // namespace
}  // namespace ibsec::sim
