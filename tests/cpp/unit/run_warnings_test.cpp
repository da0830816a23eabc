// The warnings a result carries (sim/run_warnings.h, docs/running.md): each
// fires exactly past its threshold and not before.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
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

TEST(RunWarnings, FewPacketsInAReplayAsksForALongerTraceNotForTrafficMessages) {
  RunHealth h = sound();
  h.packets_measured = 10;
  h.replay = true;
  const std::string replay = run_warnings(h).front().message;
  EXPECT_EQ(replay.find("traffic.messages"), std::string::npos) << replay;
  EXPECT_NE(replay.find("replay a longer trace"), std::string::npos) << replay;
  h.replay = false;
  const std::string synthetic = run_warnings(h).front().message;
  EXPECT_NE(synthetic.find("raise traffic.messages"), std::string::npos) << synthetic;
}

std::vector<std::string> ignored_messages(const std::set<std::string>& given, bool replay,
                                          const std::string& pattern = "uniform") {
  std::vector<std::string> out;
  for (const RunWarning& w : ignored_parameter_warnings(given, {.replay = replay, .traffic_pattern = pattern})) {
    EXPECT_EQ(w.kind, "parameters_ignored");
    out.push_back(w.message);
  }
  return out;
}

TEST(IgnoredParameters, TrafficGivenToAReplayIsNamedOnce) {
  const auto messages = ignored_messages({"nic.security", "traffic.load", "traffic.messages", "seed"}, true);
  ASSERT_EQ(messages.size(), 1U);
  EXPECT_NE(messages[0].find("traffic.load, traffic.messages had no effect: a trace replay"), std::string::npos)
      << messages[0];
}

TEST(IgnoredParameters, ReplayAndSchedulerGivenToSyntheticTrafficAreNamedByReason) {
  const auto messages =
      ignored_messages({"replay.compute_scale", "scheduler.policy", "trace.placement", "traffic.load"}, false);
  ASSERT_EQ(messages.size(), 2U);
  EXPECT_NE(messages[0].find("replay.compute_scale, trace.placement had no effect"), std::string::npos) << messages[0];
  EXPECT_NE(messages[1].find("scheduler.policy had no effect"), std::string::npos) << messages[1];
}

TEST(IgnoredParameters, PatternParametersUnderAnotherPatternAreNamed) {
  const auto messages = ignored_messages({"traffic.hotspot.fraction", "traffic.shift"}, false, "uniform");
  ASSERT_EQ(messages.size(), 2U);
  EXPECT_NE(messages[0].find("traffic.hotspot.fraction had no effect: traffic.hotspot.* shapes traffic.pattern = "
                             "hotspot only"),
            std::string::npos)
      << messages[0];
  EXPECT_NE(messages[1].find("traffic.shift had no effect"), std::string::npos) << messages[1];
}

TEST(IgnoredParameters, ParametersTheRunReadsAreNotNamed) {
  EXPECT_TRUE(ignored_messages({"traffic.load", "nic.security", "network.nodes"}, false).empty());
  EXPECT_TRUE(
      ignored_messages({"replay.compute_scale", "scheduler.policy", "trace.placement", "trace.file"}, true).empty());
  EXPECT_TRUE(ignored_messages({"traffic.hotspot.nodes", "traffic.hotspot.fraction"}, false, "hotspot").empty());
  EXPECT_TRUE(ignored_messages({"traffic.shift"}, false, "shift").empty());
  // A key that only begins like a group is not in it.
  EXPECT_TRUE(ignored_messages({"trace.placements_note"}, false).empty());
}

}  // namespace
}  // namespace ibsec::sim
