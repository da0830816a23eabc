// Adaptive routing (network.adaptive_routing=minimal) under load: nothing
// lost, no deadlock, every credit back; packets of a session overtake each
// other and the cards count it (RFC 4737); runs repeat exactly; and the
// functional crypto's replay window accepts the reordering while still
// stopping every replay that follows its original.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/model_support.h"
#include "support/saturation.h"

namespace ibsec {
namespace {

using testing::run_here;
using testing::saturate;
using testing::Saturated;

uint64_t count(const nlohmann::ordered_json& v) { return v.get<uint64_t>(); }

// 96 nodes on 36-port switches, 2:1: four leaves of 24 nodes and 12 up-links
// over two spines, six parallel cables from each leaf to each spine.
const std::vector<std::string> kTaperedAdaptive{"network.topology=fat-tree-built", "network.nodes=96",
                                                "network.fat_tree_built.taper=2:1", "network.adaptive_routing=minimal",
                                                "traffic.messages=60000"};

TEST(AdaptiveRouting, SaturatedTaperedTreeDeliversEverythingWithPacketsReordered) {
  const Saturated s = saturate(kTaperedAdaptive);
  EXPECT_TRUE(s.outcome.drained);
  EXPECT_EQ(s.statistics["packets_delivered"], s.statistics["packets_handed_over"]);
  EXPECT_EQ(s.statistics["credits_missing_at_end"], 0);
  EXPECT_GT(count(s.statistics["offers_refused"]), 0U) << "the sources were not saturated";
  EXPECT_GT(count(s.statistics["adaptive_choices"]), 1000U);
  // One-packet messages of one session take different up-links, so some arrive out of order.
  EXPECT_GT(count(s.statistics["out_of_order_packets"]), 0U);
  EXPECT_GT(count(s.statistics["reordered_sessions"]), 0U);
  EXPECT_LE(count(s.statistics["reordered_sessions"]), 96U * 95U);
  EXPECT_GT(count(s.statistics["reordering_extent_max"]), 0U);
}

TEST(AdaptiveRouting, TheSameConfigurationGivesTheSameRun) {
  std::vector<std::string> overrides{"traffic.load=1.0", "nic.security=NoSecurity", "traffic.max_backlog_packets=32"};
  overrides.insert(overrides.end(), kTaperedAdaptive.begin(), kTaperedAdaptive.end());
  const std::string first = testing::run_in_child(overrides);
  ASSERT_NE(first.find("\"adaptive_choices\""), std::string::npos);
  EXPECT_EQ(first, testing::run_in_child(overrides));
}

// 8 groups of 4 leaves and 8 spines, 2 nodes a leaf, 7 global links a spine:
// every spine reaches every group, so a leaf may take any of them.
TEST(AdaptiveRouting, SaturatedDragonflyPlusDeliversEverything) {
  const Saturated s =
      saturate({"network.topology=dragonfly-plus", "network.dragonfly_plus.groups=8", "network.dragonfly_plus.leaves=4",
                "network.dragonfly_plus.spines=8", "network.dragonfly_plus.nodes_per_leaf=2",
                "network.dragonfly_plus.global_links=7", "network.adaptive_routing=minimal", "traffic.messages=40000"});
  EXPECT_TRUE(s.outcome.drained);
  EXPECT_EQ(s.statistics["packets_delivered"], s.statistics["packets_handed_over"]);
  EXPECT_EQ(s.statistics["credits_missing_at_end"], 0);
  EXPECT_GT(count(s.statistics["adaptive_choices"]), 1000U);
}

TEST(AdaptiveRouting, WithoutItNothingIsReordered) {
  std::vector<std::string> off = kTaperedAdaptive;
  off[3] = "network.adaptive_routing=off";
  const Saturated s = saturate(off);
  EXPECT_EQ(s.statistics["out_of_order_packets"], 0);
  EXPECT_EQ(s.statistics["adaptive_choices"], 0);
}

// Multi-packet messages at high load on a 4-ary 2-tree reorder packets by
// up to tens of sequence numbers, inside the window of 64: no genuine packet
// is refused. A replay 2 µs behind its original is refused as the duplicate,
// unless reordering let it arrive first, when it is delivered in the
// original's place (the same bytes) and the original is the duplicate.
TEST(AdaptiveRouting, TheReplayWindowAcceptsReorderingAndStillStopsReplays) {
  sim::RunOutcome outcome;
  const auto result =
      run_here({"network.topology=fat-tree", "network.adaptive_routing=minimal", "traffic.load=0.7",
                "traffic.sizes_bytes=[2048]", "traffic.messages=6000", "nic.crypto.mode=functional",
                "nic.security=SKC-6", "attack.link=node 0 out", "attack.replay=0.3", "attack.replay_delay_us=2"},
               &outcome);
  const auto& statistics = result["statistics"];
  const auto& attack = result["attack"];
  EXPECT_TRUE(outcome.drained);
  EXPECT_GT(count(statistics["out_of_order_packets"]), 1000U);
  EXPECT_LT(count(statistics["reordering_extent_max"]), 64U);
  EXPECT_EQ(attack["false_drops"], 0);
  EXPECT_EQ(statistics["payload_mismatches"], 0);
  EXPECT_EQ(statistics["packets_delivered"], statistics["packets_handed_over"]);
  const auto& replay = attack["kinds"]["replay"];
  EXPECT_GT(count(replay["attacked"]), 50U);
  EXPECT_EQ(replay["delivered"], 0);
  EXPECT_EQ(count(replay["detected"]) + count(attack["replays_ahead_of_original"]), count(replay["attacked"]));
  EXPECT_EQ(count(statistics["packets_dropped_replay"]), count(replay["attacked"]));
  for (const auto& warning : result["warnings"]) EXPECT_NE(warning["kind"], "genuine_packets_refused");
}

// The same fabric with a window of 8, narrower than its reordering: genuine
// packets are refused as too old, their messages never complete, and the
// result says so and what to widen, instead of passing for a clean run.
TEST(AdaptiveRouting, AWindowNarrowerThanTheReorderingRefusesGenuinePacketsAndSaysSo) {
  const auto result = run_here({"network.topology=fat-tree", "network.adaptive_routing=minimal", "traffic.load=0.7",
                                "traffic.sizes_bytes=[2048]", "traffic.messages=6000", "nic.crypto.mode=functional",
                                "nic.security=SKC-6", "nic.crypto.replay_window_packets=8"});
  const auto& statistics = result["statistics"];
  EXPECT_GT(count(statistics["packets_dropped_replay"]), 0U);
  EXPECT_LT(count(statistics["messages_delivered"]), count(statistics["messages_handed_over"]));
  const auto& warnings = result["warnings"];
  const auto refused =
      std::ranges::find_if(warnings, [](const auto& w) { return w["kind"] == "genuine_packets_refused"; });
  ASSERT_NE(refused, warnings.end()) << warnings.dump();
  EXPECT_NE((*refused)["message"].template get<std::string>().find(
                std::to_string(count(statistics["packets_dropped_replay"])) + " genuine packets refused"),
            std::string::npos)
      << (*refused)["message"];
}

// The default dragonfly+ (5 groups of 16 nodes, one global link between two
// groups) with every node sending to the node 16 on: a whole group to the
// next. Minimal routes put it all on one global link, λ* = 1/16 of the link
// rate (docs/network.md); UGAL detours through the other groups' links too.
std::vector<std::string> group_to_group(const char* adaptive) {
  return {"network.topology=dragonfly-plus",
          "traffic.pattern=shift",
          "traffic.shift=16",
          "network.virtual_lanes=2",
          std::string("network.adaptive_routing=") + adaptive,
          "traffic.messages=40000"};
}

TEST(AdaptiveRouting, GroupToGroupTrafficOnMinimalRoutesStopsAtOneGlobalLink) {
  const Saturated s = saturate(group_to_group("minimal"));
  const double accepted = testing::accepted_payload(s);
  EXPECT_LE(accepted, 1.0 / 16 * 1.01);
  EXPECT_GE(accepted, 1.0 / 16 * 0.95);
}

TEST(AdaptiveRouting, UgalTakesGroupToGroupTrafficBeyondTheMinimalBound) {
  const Saturated s = saturate(group_to_group("ugal"));
  EXPECT_TRUE(s.outcome.drained);
  EXPECT_EQ(s.statistics["packets_delivered"], s.statistics["packets_handed_over"]);
  EXPECT_EQ(s.statistics["credits_missing_at_end"], 0);
  EXPECT_GT(count(s.statistics["nonminimal_routes"]), 1000U);
  const double accepted = testing::accepted_payload(s);
  EXPECT_GT(accepted, 1.0 / 16 * 1.1);
  // Each detour crosses two global links: at most 2.5 of a group's 4 carry its traffic (docs/network.md).
  EXPECT_LT(accepted, 2.5 / 16);
}

// Two global links a spine, two between every two groups (m = 2, 32 nodes a
// group): UGAL's detours, whose second leg crosses one global link only,
// take group-to-group traffic to 0.92 of its bound, (m + (S·H − m)/2)/N_g =
// 5/32, where minimal routes stop at m/N_g = 2/32 (docs/network.md,
// "Dragonfly+: the bound").
TEST(AdaptiveRouting, UgalWithTwoGlobalLinksASpineTakesGroupToGroupTrafficNearItsBound) {
  const Saturated s = saturate({"network.topology=dragonfly-plus", "network.dragonfly_plus.nodes_per_leaf=8",
                                "network.dragonfly_plus.global_links=2", "traffic.pattern=shift", "traffic.shift=32",
                                "network.virtual_lanes=2", "network.adaptive_routing=ugal", "traffic.messages=100000"});
  testing::expect_soak_survived(s, testing::Order::kMayChange);
  const double accepted = testing::accepted_payload(s);
  EXPECT_LT(accepted, 5.0 / 32);
  EXPECT_GT(accepted, 0.85 * 5.0 / 32) << "minimal routes: 2/32";
}

}  // namespace
}  // namespace ibsec
