// Deadlock-freedom soaks of the fabrics as built and as read from a subnet:
// every source saturated for a million messages on each topology and
// routing whose channel-dependency graph the route check accepted, with
// mixed sizes on two lanes. All delivered, in order (but for adaptive
// routing, which reorders), every credit back.
// Long (seconds each): ctest -L soak, run by CI.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fabrics.h"
#include "support/saturation.h"

namespace ibsec {
namespace {

using testing::expect_soak_survived;
using testing::fabric_file;
using testing::given_roots;
using testing::opensm_tables;
using testing::saturate;

constexpr const char* kMillion = "traffic.messages=1000000";

std::vector<std::string> soak(std::vector<std::string> fabric) {
  for (const char* setting :
       {"network.virtual_lanes=2", "traffic.sizes_bytes=[64,256,2048]", "traffic.warmup_messages=20000", kMillion}) {
    fabric.emplace_back(setting);
  }
  return fabric;
}

std::string ibnetdiscover(const std::string& name) {
  return "network.ibnetdiscover.file=" + nlohmann::json(fabric_file(name, ".ibnd")).dump();
}

TEST(Soak, TaperedFatTreeAsBuilt) {
  // 2:1 at the leaves, a partly filled last leaf: 100 nodes of 36-port switches.
  expect_soak_survived(
      saturate(soak({"network.topology=fat-tree-built", "network.nodes=100", "network.fat_tree_built.taper=\"2:1\""})));
}

TEST(Soak, ThreeLevelFatTreeAsBuilt) {
  expect_soak_survived(saturate(soak({"network.topology=fat-tree-built", "network.fat_tree_built.radix=8",
                                      "network.fat_tree_built.levels=3", "network.nodes=60"})));
}

// Rings of 5 need their dateline lanes (docs/topology.md): 2 lanes, as soak() gives.
TEST(Soak, TorusWithDatelineLanes) {
  expect_soak_survived(saturate(soak({"network.topology=torus", "network.torus.dims=\"5x4x3\""})));
}

// Minimal routing: up to the group's spines, one global link, down; 1 lane.
TEST(Soak, TorusWithDatelineLanesAndVirtualOutputQueues) {
  // Packets pass blocked heads, so the order in which buffers drain differs; the lanes still break every cycle.
  expect_soak_survived(
      saturate(soak({"network.topology=torus", "network.torus.dims=\"5x4x3\"", "network.switch_buffers=voq"})));
}

TEST(Soak, DragonflyPlusMinimal) {
  expect_soak_survived(
      saturate(soak({"network.topology=dragonfly-plus", "network.dragonfly_plus.groups=5",
                     "network.dragonfly_plus.leaves=2", "network.dragonfly_plus.spines=2",
                     "network.dragonfly_plus.nodes_per_leaf=4", "network.dragonfly_plus.global_links=2"})));
}

// Adaptive routing: every up-link a choice; the choices' dependency graph is
// the check's, and packets of a session overtake each other.
TEST(Soak, TaperedFatTreeAdaptive) {
  const testing::Saturated s =
      saturate(soak({"network.topology=fat-tree-built", "network.nodes=100", "network.fat_tree_built.taper=\"2:1\"",
                     "network.adaptive_routing=minimal"}));
  expect_soak_survived(s, testing::Order::kMayChange);
  EXPECT_GT(s.statistics["out_of_order_packets"].get<uint64_t>(), 0U);
}

// UGAL: detours through a third group, their second leg on lane 1, under
// uniform traffic and under the shift that sends a whole group to the next.
void expect_ugal_survives(const char* pattern) {
  const testing::Saturated s =
      saturate(soak({"network.topology=dragonfly-plus", "network.adaptive_routing=ugal", pattern, "traffic.shift=16"}));
  expect_soak_survived(s, testing::Order::kMayChange);
  EXPECT_GT(s.statistics["nonminimal_routes"].get<uint64_t>(), 0U) << pattern;
}

TEST(Soak, DragonflyPlusUgalUniform) { expect_ugal_survives("traffic.pattern=uniform"); }

TEST(Soak, DragonflyPlusUgalGroupToGroup) { expect_ugal_survives("traffic.pattern=shift"); }

TEST(Soak, SubnetUnderMinhop) {
  expect_soak_survived(saturate(soak({"network.topology=ibnetdiscover", ibnetdiscover("tapered-2to1")})));
}

TEST(Soak, SubnetWithAMissingLinkUnderMinhop) {
  expect_soak_survived(saturate(soak({"network.topology=ibnetdiscover", ibnetdiscover("missing-link")})));
}

TEST(Soak, RingUnderUpdn) {
  const std::string roots = nlohmann::json(given_roots("ring")).dump();
  expect_soak_survived(saturate(soak({"network.topology=ibnetdiscover", ibnetdiscover("ring"), "network.routing=updn",
                                      "network.updn.root_guids=" + roots})));
}

TEST(Soak, ThreeLevelSubnetOnOpenSmsTables) {
  expect_soak_survived(
      saturate(soak({"network.topology=ibnetdiscover", ibnetdiscover("three-level"), "network.routing=lft",
                     "network.lft.file=" + nlohmann::json(opensm_tables("three-level", "updn")).dump()})));
}

}  // namespace
}  // namespace ibsec
