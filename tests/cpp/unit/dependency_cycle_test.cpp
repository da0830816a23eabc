// The channel-dependency check takes a destination whose routes are an
// earlier one's but for the last hop only once (network/routing.h,
// DestinationGrouping): the cycle it reports is the one every destination's
// routes give, and a destination whose routes differ anywhere else is still
// taken.
#include <gtest/gtest.h>

#include <vector>

#include "network/routing.h"
#include "network/topology.h"
#include "network/topology_wiring.h"

namespace ibsec::network {
namespace {

constexpr auto kEvery = DestinationGrouping::kEveryDestination;

// Four switches in a ring with two nodes each (node 2s + i on switch s port
// i), switch s port 2 cabled to switch s+1 port 3. Node 2s + 1's routes go
// clockwise when `second_clockwise`, as everything else's does when
// `all_clockwise`; otherwise a route takes the ring as a line, clockwise to
// a higher switch and anticlockwise to a lower one, never crossing the
// cable from switch 3 to switch 0.
Topology ring_of_pairs(bool all_clockwise, bool second_clockwise) {
  Topology ring = wiring::unwired_topology("ring", 8);
  for (uint32_t s = 0; s < 4; ++s) ring.switches.push_back(wiring::make_switch(4, 0, 8));
  for (uint32_t s = 0; s < 4; ++s) {
    wiring::connect(ring, wiring::node_card(2 * s), wiring::switch_port(s, 0));
    wiring::connect(ring, wiring::node_card(2 * s + 1), wiring::switch_port(s, 1));
    wiring::connect(ring, wiring::switch_port(s, 2), wiring::switch_port((s + 1) % 4, 3));
  }
  for (uint32_t s = 0; s < 4; ++s) {
    for (uint32_t dst = 0; dst < 8; ++dst) {
      const uint32_t home = dst / 2;
      const bool clockwise = all_clockwise || (second_clockwise && dst % 2 == 1) || home > s;
      const uint16_t port = home == s ? dst % 2 : (clockwise ? 2 : 3);
      ring.switches[s].forwarding.set(dst, PortId(port));
    }
  }
  return ring;
}

TEST(DependencyCycleGrouping, ARingsCycleIsTheSameWhetherEachDestinationIsTakenOrNot) {
  const Topology ring = ring_of_pairs(true, false);
  const std::vector<Channel> cycle = dependency_cycle(ring);
  ASSERT_EQ(cycle.size(), 4U);
  for (const Channel& channel : cycle) EXPECT_EQ(channel.port, PortId(2));
  EXPECT_EQ(cycle, dependency_cycle(ring, kEvery));
}

TEST(DependencyCycleGrouping, ADestinationWhoseRoutesDifferBeyondItsSwitchIsStillTaken) {
  // The even nodes' routes are a line, and alone close no cycle; the odd
  // nodes share their switches with them but go clockwise, which does.
  EXPECT_TRUE(dependency_cycle(ring_of_pairs(false, false)).empty());
  const Topology ring = ring_of_pairs(false, true);
  const std::vector<Channel> cycle = dependency_cycle(ring);
  EXPECT_EQ(cycle.size(), 4U);
  EXPECT_EQ(cycle, dependency_cycle(ring, kEvery));
}

TEST(DependencyCycleGrouping, BuiltFabricsGiveTheSameAnswerEitherWay) {
  auto adaptive = [](TopologyParams params) {
    params.adaptive = "minimal";
    return build_topology(params);
  };
  const std::vector<Topology> fabrics{
      adaptive(TopologyParams::of("fat-tree-built", 128,
                                  {{"network.fat_tree_built.radix", 8}, {"network.fat_tree_built.levels", 3}})),
      adaptive(TopologyParams::of("fat-tree-built", 96,
                                  {{"network.fat_tree_built.radix", 12},
                                   {"network.fat_tree_built.levels", 3},
                                   {"network.fat_tree_built.taper", "2:1"}})),
      adaptive(TopologyParams::of("fat-tree", 0, {{"network.fat_tree.k", 2}, {"network.fat_tree.n", 4}})),
      adaptive(TopologyParams::of("dragonfly-plus", 0,
                                  {{"network.dragonfly_plus.groups", 5},
                                   {"network.dragonfly_plus.leaves", 4},
                                   {"network.dragonfly_plus.spines", 4},
                                   {"network.dragonfly_plus.nodes_per_leaf", 4},
                                   {"network.dragonfly_plus.global_links", 1}})),
  };
  for (const Topology& fabric : fabrics) {
    EXPECT_TRUE(dependency_cycle(fabric).empty()) << fabric.name;
    EXPECT_TRUE(dependency_cycle(fabric, kEvery).empty()) << fabric.name;
  }
  // Dimension order on one lane, without the datelines' lane maps: a cycle
  // round a ring of the torus, three nodes a switch.
  Topology torus = build_topology(
      TopologyParams::of("torus", 0, {{"network.torus.dims", "5x5"}, {"network.torus.nodes_per_switch", 3}}));
  for (SwitchSpec& spec : torus.switches) spec.lane_map.clear();
  const std::vector<Channel> cycle = dependency_cycle(torus);
  EXPECT_FALSE(cycle.empty());
  EXPECT_EQ(cycle, dependency_cycle(torus, kEvery));
}

}  // namespace
}  // namespace ibsec::network
