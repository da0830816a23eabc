// Dragonfly+ (network.topology=dragonfly-plus) against docs/topology.md: every
// leaf cabled to its nodes and to every spine of its group, every spine to
// its leaves and its global links, the same number of global links between
// every two groups; minimal routes of 1, 3 or 4 switches for every pair,
// up, across, down, on one lane with no channel-dependency cycle; global
// links equally used by the all-pairs routes; and a ConfigError naming the
// parameter for every dragonfly+ that cannot be built.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "network/routing.h"
#include "network/topology.h"
#include "support/topology_refusal.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

struct Dragonfly {
  uint32_t groups, leaves, spines, nodes_per_leaf, global_links;
  uint32_t nodes = 0;  // 0: every leaf full
};

void PrintTo(const Dragonfly& d, std::ostream* os) {
  *os << d.groups << " groups of " << d.leaves << " leaves and " << d.spines << " spines, " << d.nodes_per_leaf
      << " nodes per leaf, " << d.global_links << " global links per spine";
}

TopologyParams params_of(const Dragonfly& d) {
  return TopologyParams::of("dragonfly-plus", d.nodes,
                            {{"network.dragonfly_plus.groups", d.groups},
                             {"network.dragonfly_plus.leaves", d.leaves},
                             {"network.dragonfly_plus.spines", d.spines},
                             {"network.dragonfly_plus.nodes_per_leaf", d.nodes_per_leaf},
                             {"network.dragonfly_plus.global_links", d.global_links}});
}

// Where the test expects a node and a switch: switches group by group, leaves then spines.
struct Layout {
  Dragonfly d;
  [[nodiscard]] uint32_t per_group() const { return d.leaves + d.spines; }
  [[nodiscard]] uint32_t group_of_switch(uint32_t s) const { return s / per_group(); }
  [[nodiscard]] bool is_leaf(uint32_t s) const { return s % per_group() < d.leaves; }
  [[nodiscard]] uint32_t leaf_of_node(uint32_t n) const { return n / d.nodes_per_leaf; }  // global leaf number
  [[nodiscard]] uint32_t switch_of_node(uint32_t n) const {
    const uint32_t leaf = leaf_of_node(n);
    return leaf / d.leaves * per_group() + leaf % d.leaves;
  }
};

class DragonflyShapes : public ::testing::TestWithParam<Dragonfly> {};

TEST_P(DragonflyShapes, EveryLeafSeesItsNodesAndEverySpineAndEveryTwoGroupsShareTheirLinks) {
  const Dragonfly d = GetParam();
  const Topology t = build_topology(params_of(d));
  const Layout layout{d};
  ASSERT_EQ(t.switches.size(), size_t{d.groups} * layout.per_group());
  EXPECT_EQ(t.nodes, d.nodes != 0 ? d.nodes : d.groups * d.leaves * d.nodes_per_leaf);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> global;  // (lower group, higher group) -> cables
  for (uint32_t s = 0; s < t.switches.size(); ++s) {
    const SwitchSpec& spec = t.switches[s];
    const uint32_t group = layout.group_of_switch(s);
    std::set<uint32_t> spines_seen;
    for (uint32_t port = 0; port < spec.ports; ++port) {
      const Endpoint& peer = spec.peer[port];
      if (layout.is_leaf(s)) {
        EXPECT_EQ(spec.level, 0U);
        if (port < d.nodes_per_leaf) {
          if (peer.kind == Kind::kNode) {
            EXPECT_EQ(layout.switch_of_node(peer.index), s);
          }
          continue;
        }
        ASSERT_EQ(peer.kind, Kind::kSwitch) << "leaf " << s << " port " << port;
        EXPECT_FALSE(layout.is_leaf(peer.index));
        EXPECT_EQ(layout.group_of_switch(peer.index), group);
        spines_seen.insert(peer.index);
      } else {
        EXPECT_EQ(spec.level, 1U);
        ASSERT_EQ(peer.kind, Kind::kSwitch) << "spine " << s << " port " << port;
        if (port < d.leaves) {
          EXPECT_TRUE(layout.is_leaf(peer.index));
          EXPECT_EQ(layout.group_of_switch(peer.index), group);
        } else {
          EXPECT_FALSE(layout.is_leaf(peer.index)) << "a global link ends on a spine";
          const uint32_t other = layout.group_of_switch(peer.index);
          EXPECT_NE(other, group);
          if (group < other) ++global[{group, other}];
        }
      }
    }
    if (layout.is_leaf(s)) {
      EXPECT_EQ(spines_seen.size(), d.spines) << "leaf " << s;
    }
  }
  const uint32_t per_pair = d.spines * d.global_links / (d.groups - 1);
  ASSERT_EQ(global.size(), size_t{d.groups} * (d.groups - 1) / 2);
  for (const auto& [pair, cables] : global) EXPECT_EQ(cables, per_pair) << pair.first << "-" << pair.second;
}

// Minimal routes: 1 switch on the same leaf, 3 in the group (leaf, spine,
// leaf), 4 across groups (leaf, spine, spine, leaf), up then across then
// down; one lane suffices, and no dependency cycle.
TEST_P(DragonflyShapes, EveryRouteIsMinimalAndGoesUpAcrossDown) {
  const Dragonfly d = GetParam();
  const Topology t = build_topology(params_of(d));
  const Layout layout{d};
  for (uint32_t src = 0; src < t.nodes; ++src) {
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      const uint32_t a = layout.switch_of_node(src);
      const uint32_t b = layout.switch_of_node(dst);
      const uint32_t expected = a == b ? 1 : layout.group_of_switch(a) == layout.group_of_switch(b) ? 3 : 4;
      const auto route = t.route(NodeId(src), NodeId(dst));
      ASSERT_EQ(route.size(), expected) << src << " -> " << dst;
      if (expected == 4) {
        EXPECT_TRUE(layout.is_leaf(route[0].first) && !layout.is_leaf(route[1].first) &&
                    !layout.is_leaf(route[2].first) && layout.is_leaf(route[3].first));
        EXPECT_EQ(layout.group_of_switch(route[1].first), layout.group_of_switch(a));
        EXPECT_EQ(layout.group_of_switch(route[2].first), layout.group_of_switch(b));
      }
    }
  }
  EXPECT_EQ(t.lanes_needed, 1U);
  EXPECT_FALSE(t.maps_lanes());
  EXPECT_TRUE(dependency_cycle(t).empty());
  EXPECT_NO_THROW(check_routes(t, "network.routing"));
  EXPECT_NO_THROW(check_virtual_lanes(t, 1));
}

// Under all-pairs traffic every global link carries the same number of
// routes: destinations spread over the links between two groups by n mod
// their number, and the sources of a group are all its nodes.
class FullDragonflies : public ::testing::TestWithParam<Dragonfly> {};

TEST_P(FullDragonflies, GlobalLinksAreEquallyUsedByAllPairs) {
  const Dragonfly d = GetParam();
  const Topology t = build_topology(params_of(d));
  const Layout layout{d};
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> routes;  // (spine, global port) -> routes leaving on it
  for (uint32_t src = 0; src < t.nodes; ++src) {
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      for (const auto& [s, port] : t.route(NodeId(src), NodeId(dst))) {
        if (!layout.is_leaf(s) && port.value() >= d.leaves) ++routes[{s, port.value()}];
      }
    }
  }
  ASSERT_EQ(routes.size(), size_t{d.groups} * d.spines * d.global_links);
  const uint64_t group_nodes = uint64_t{d.leaves} * d.nodes_per_leaf;
  const uint64_t per_pair = d.spines * d.global_links / (d.groups - 1);
  for (const auto& [link, count] : routes) EXPECT_EQ(count, group_nodes * group_nodes / per_pair);
}

// Shapes with every leaf full (a partly filled one loads the links unequally)...
const std::vector<Dragonfly> kFull{{5, 4, 4, 4, 1}, {2, 2, 2, 2, 1}, {3, 3, 2, 2, 2}, {5, 2, 4, 2, 2}, {9, 2, 4, 1, 2}};

// ... and those with one partly filled.
std::vector<Dragonfly> every_shape() {
  std::vector<Dragonfly> shapes = kFull;
  shapes.push_back({4, 3, 3, 3, 2, 31});
  return shapes;
}

std::string name_of(const ::testing::TestParamInfo<Dragonfly>& info) {
  const Dragonfly& d = info.param;
  std::string name = std::to_string(d.groups) + "groups_" + std::to_string(d.leaves) + "leaves_" +
                     std::to_string(d.spines) + "spines_" + std::to_string(d.nodes_per_leaf) + "per_leaf_" +
                     std::to_string(d.global_links) + "global";
  if (d.nodes != 0) name += "_" + std::to_string(d.nodes) + "nodes";
  return name;
}

INSTANTIATE_TEST_SUITE_P(DragonflyPlus, DragonflyShapes, ::testing::ValuesIn(every_shape()), name_of);
INSTANTIATE_TEST_SUITE_P(DragonflyPlus, FullDragonflies, ::testing::ValuesIn(kFull), name_of);

TEST(DragonflyPlus, TheDefaultIsFiveGroupsOfSixteenNodesAndSaysItsShape) {
  const Topology t = build_topology(TopologyParams::of("dragonfly-plus"));
  EXPECT_EQ(t.nodes, 80U);
  EXPECT_EQ(t.switches.size(), 40U);
  std::map<std::string, uint64_t> shape;
  for (const ShapeCount& count : t.shape) shape[count.name] = count.value;
  EXPECT_EQ(shape.at("groups"), 5U);
  EXPECT_EQ(shape.at("global_links_per_group_pair"), 1U);
  EXPECT_EQ(shape.at("diameter"), 4U);
}

TEST(DragonflyPlus, RefusesWhatCannotBeBuilt) {
  EXPECT_NE(testing::refusal_of(params_of({1, 2, 2, 2, 1}), "network.dragonfly_plus.groups").find("at least 2"),
            std::string::npos);
  // 4 spines x 1 link = 4 links do not divide among 6 other groups; 3 links each would.
  const std::string uneven = testing::refusal_of(params_of({7, 2, 4, 2, 1}), "network.dragonfly_plus.global_links");
  EXPECT_NE(uneven.find("do not divide evenly among the other 6 groups"), std::string::npos) << uneven;
  EXPECT_NE(uneven.find("can take 3, 6 global links each"), std::string::npos) << uneven;
  EXPECT_NE(testing::refusal_of(params_of({5, 4, 4, 4, 1, 81}), "network.nodes").find("at most 80 nodes"),
            std::string::npos);
  EXPECT_FALSE(testing::refusal_of(params_of({5, 4, 4, 4, 0}), "network.dragonfly_plus.global_links").empty());
  TopologyParams small = params_of({5, 4, 4, 4, 1});
  small.switch_ports = 7;
  EXPECT_NE(testing::refusal_of(small, "network.switch_ports").find("at least the 8 ports"), std::string::npos);
  small.switch_ports = 40;  // a 40-port switch: every switch gets 40 ports, the spare ones unused
  EXPECT_EQ(build_topology(small).switches.front().ports, 40U);
}

}  // namespace
}  // namespace ibsec::network
