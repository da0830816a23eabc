// Fat trees as built (network.topology=fat-tree-built) against counts worked
// out by hand from the sizing rules of docs/topology.md: switches per level,
// every switch's cabled ports, route lengths, the up*/down* shape, the
// routing check, D-mod-K's even spread over the up-links, and a ConfigError
// naming the parameter for every tree that cannot be built.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.h"
#include "network/routing.h"
#include "network/topology.h"
#include "support/topology_refusal.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

struct Tree {
  uint32_t radix;
  uint32_t levels;
  const char* taper;
  uint32_t nodes;  // 0: the full tree
};

void PrintTo(const Tree& t, std::ostream* os) {
  *os << t.radix << " ports, " << t.levels << " levels, " << t.taper << ", " << t.nodes << " nodes";
}

TopologyParams params_of(const Tree& t) {
  return TopologyParams::of("fat-tree-built", t.nodes,
                            {{"network.fat_tree_built.radix", t.radix},
                             {"network.fat_tree_built.levels", t.levels},
                             {"network.fat_tree_built.taper", t.taper}});
}

Topology build(const Tree& t) { return build_topology(params_of(t)); }

uint64_t shape_count(const Topology& topology, const std::string& name) {
  for (const ShapeCount& count : topology.shape) {
    if (count.name == name) return count.value;
  }
  ADD_FAILURE() << "no shape count " << name;
  return 0;
}

uint32_t switches_at(const Topology& topology, uint8_t level) {
  uint32_t count = 0;
  for (const SwitchSpec& spec : topology.switches) count += spec.level == level ? 1 : 0;
  return count;
}

// --- shapes, counted by hand ---------------------------------------------------

struct Expected {
  Tree tree;
  uint32_t nodes, leaves, spines, cores, down, up;
};

void PrintTo(const Expected& e, std::ostream* os) { PrintTo(e.tree, os); }

class Shapes : public ::testing::TestWithParam<Expected> {};

TEST_P(Shapes, SwitchCountsFollowTheSizingRules) {
  const Expected e = GetParam();
  const Topology topology = build(e.tree);
  EXPECT_EQ(topology.nodes, e.nodes);
  EXPECT_EQ(switches_at(topology, 0), e.leaves);
  EXPECT_EQ(switches_at(topology, 1), e.spines);
  EXPECT_EQ(switches_at(topology, 2), e.cores);
  EXPECT_EQ(topology.switches.size(), e.leaves + e.spines + e.cores);
  EXPECT_EQ(shape_count(topology, "levels"), e.tree.levels);
  EXPECT_EQ(shape_count(topology, "leaves"), e.leaves);
  EXPECT_EQ(shape_count(topology, "spines"), e.spines);
  EXPECT_EQ(shape_count(topology, "cores"), e.cores);
  EXPECT_EQ(shape_count(topology, "leaf_down_ports"), e.down);
  EXPECT_EQ(shape_count(topology, "leaf_up_ports"), e.up);
  for (const SwitchSpec& spec : topology.switches) EXPECT_EQ(spec.ports, e.tree.radix);
}

INSTANTIATE_TEST_SUITE_P(
    FatTreeBuilt, Shapes,
    ::testing::Values(
        // 4 leaves x 12 up-links = 48 > 36: two spines, 6 cables from each leaf to each.
        Expected{{36, 2, "2:1", 96}, 96, 4, 2, 0, 24, 12},
        // 9 x 12 = 108 up-links: three full spines of 36 ports, 4 cables per leaf and spine.
        Expected{{36, 2, "2:1", 216}, 216, 9, 3, 0, 24, 12},
        // The full 2:1 tree: 36 leaves, one cable from each to each of 12 spines.
        Expected{{36, 2, "2:1", 0}, 864, 36, 12, 0, 24, 12},
        // The classic 648-node full-bisection tree of 36-port switches.
        Expected{{36, 2, "1:1", 648}, 648, 36, 18, 0, 18, 18},
        // 40 ports 3:1 is 30/10; 4 leaves x 10 = 40 up-links fit one spine.
        Expected{{40, 2, "3:1", 100}, 100, 4, 1, 0, 30, 10},
        // 64 ports 1:1, 100 nodes: 4 leaves (the last with 4 nodes), 4 x 32 = 128 up-links on 2 spines.
        Expected{{64, 2, "1:1", 100}, 100, 4, 2, 0, 32, 32},
        // 3 levels of 8 ports: pods of 4 leaves and 4 spines; 5 leaves make 2 pods, whose spines'
        // 2 x 4 up-links per spine position fit one core each: 4 cores.
        Expected{{8, 3, "1:1", 20}, 20, 5, 8, 4, 4, 4},
        // The full 3-level tree of 36-port switches: 36 pods of 18 leaves, 18 x 18 cores, 11 664 nodes.
        Expected{{36, 3, "1:1", 0}, 11664, 648, 648, 324, 18, 18},
        // 3 levels at 2:1: pods of 18 leaves x 24 nodes = 432; 1 000 nodes are 42 leaves in 3 pods of
        // 12 spines; each spine position's 3 x 18 up-links need 2 cores (1 would need 54 > 36 ports).
        Expected{{36, 3, "2:1", 1000}, 1000, 42, 36, 24, 24, 12}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

// --- every switch's ports used as stated ----------------------------------------

struct PortUse {
  uint32_t nodes = 0;
  uint32_t down_switches = 0;  // cabled to a switch of a lower level
  uint32_t up_switches = 0;    // to a switch of a higher level
};

PortUse port_use(const Topology& topology, const SwitchSpec& spec) {
  PortUse use;
  for (const Endpoint& peer : spec.peer) {
    if (peer.kind == Kind::kNode) ++use.nodes;
    if (peer.kind != Kind::kSwitch) continue;
    const uint8_t level = topology.switches[peer.index].level;
    EXPECT_NE(level, spec.level) << "a cable between two switches of one level";
    (level < spec.level ? use.down_switches : use.up_switches)++;
  }
  return use;
}

void expect_cables_agree(const Topology& topology) {
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    const SwitchSpec& spec = topology.switches[s];
    for (uint16_t p = 0; p < spec.ports; ++p) {
      const Endpoint& peer = spec.peer[p];
      if (peer.kind == Kind::kSwitch) {
        EXPECT_EQ(topology.switches[peer.index].peer[peer.port.value()], (Endpoint{Kind::kSwitch, s, PortId(p)}));
      } else if (peer.kind == Kind::kNode) {
        EXPECT_EQ(topology.node_link[peer.index], (Endpoint{Kind::kSwitch, s, PortId(p)}));
      }
    }
  }
}

TEST(FatTreeBuilt, TwoLevelPortsAreUsedAsStated) {
  // 36 ports, 2:1, 100 nodes: leaves 0-3 full (24 nodes), leaf 4 holds 4; every leaf's 12 up-links
  // cabled; 5 x 12 = 60 up-links on 2 spines (S = 1 would need 60 > 36 ports), 30 ports each.
  const Topology topology = build({36, 2, "2:1", 100});
  expect_cables_agree(topology);
  ASSERT_EQ(topology.switches.size(), 7U);
  for (uint32_t leaf = 0; leaf < 5; ++leaf) {
    const PortUse use = port_use(topology, topology.switches[leaf]);
    EXPECT_EQ(use.nodes, leaf < 4 ? 24U : 4U) << "leaf " << leaf;
    EXPECT_EQ(use.up_switches, 12U) << "leaf " << leaf;
    EXPECT_EQ(use.down_switches, 0U);
  }
  for (uint32_t spine = 5; spine < 7; ++spine) {
    const PortUse use = port_use(topology, topology.switches[spine]);
    EXPECT_EQ(use.down_switches, 30U) << "spine " << spine;
    EXPECT_EQ(use.up_switches + use.nodes, 0U);
  }
  // Nodes packed: node n on leaf n / 24, port n mod 24.
  for (uint32_t n = 0; n < 100; ++n) {
    EXPECT_EQ(topology.node_link[n], (Endpoint{Kind::kSwitch, n / 24, PortId(static_cast<uint16_t>(n % 24))}));
  }
}

TEST(FatTreeBuilt, ThreeLevelPortsAreUsedAsStated) {
  // 8 ports, 1:1, 20 nodes: 5 leaves of 4 down / 4 up; pod 0 holds leaves 0-3, pod 1 leaf 4;
  // each pod has 4 spines of 4 down / 4 up; 4 cores, each with 4 cables to each of the 2 pods.
  const Topology topology = build({8, 3, "1:1", 20});
  expect_cables_agree(topology);
  ASSERT_EQ(topology.switches.size(), 17U);
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    const PortUse use = port_use(topology, topology.switches[s]);
    if (s < 5) {
      EXPECT_EQ(use.nodes, 4U) << "leaf " << s;
      EXPECT_EQ(use.up_switches, 4U) << "leaf " << s;
    } else if (s < 13) {
      const bool pod0 = s < 9;
      EXPECT_EQ(use.down_switches, pod0 ? 4U : 1U) << "spine " << s;
      EXPECT_EQ(use.up_switches, 4U) << "spine " << s;
    } else {
      EXPECT_EQ(use.down_switches, 8U) << "core " << s;
      EXPECT_EQ(use.up_switches, 0U) << "core " << s;
    }
  }
}

// --- routes ----------------------------------------------------------------------

// Levels strictly rise, then strictly fall: up*/down* without a turn back up.
void expect_up_then_down(const Topology& topology, NodeId src, NodeId dst) {
  const auto route = topology.route(src, dst);
  bool falling = false;
  for (size_t i = 1; i < route.size(); ++i) {
    const int step = topology.switches[route[i].first].level - topology.switches[route[i - 1].first].level;
    ASSERT_TRUE(step == 1 || step == -1) << src.value() << " -> " << dst.value();
    if (step < 0) falling = true;
    ASSERT_FALSE(falling && step > 0) << "down then up: " << src.value() << " -> " << dst.value();
  }
}

class Routes : public ::testing::TestWithParam<Tree> {};

TEST_P(Routes, EveryPairIsRoutedUpThenDownWithoutDeadlock) {
  const Tree tree = GetParam();
  const Topology topology = build(tree);
  EXPECT_NO_THROW(check_routes(topology, "network.routing"));
  const uint32_t down = static_cast<uint32_t>(shape_count(topology, "leaf_down_ports"));
  const uint32_t pod_nodes = tree.levels == 3 ? down * tree.radix / 2 : topology.nodes;
  for (uint32_t a = 0; a < topology.nodes; a += 3) {
    for (uint32_t b = 0; b < topology.nodes; ++b) {
      const uint32_t expected = a / down == b / down ? 1 : a / pod_nodes == b / pod_nodes ? 3 : 5;
      ASSERT_EQ(topology.switch_hops(NodeId(a), NodeId(b)), expected) << a << " -> " << b;
      expect_up_then_down(topology, NodeId(a), NodeId(b));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FatTreeBuilt, Routes,
                         ::testing::Values(Tree{36, 2, "2:1", 100}, Tree{36, 2, "1:1", 50}, Tree{40, 2, "3:1", 100},
                                           Tree{8, 3, "1:1", 20}, Tree{12, 3, "2:1", 100}),
                         [](const auto& info) { return "case" + std::to_string(info.index); });

// D-mod-K: from any leaf, the destinations elsewhere are spread evenly over
// its up-links, and each cable a spine sends down carries the same number.
TEST(FatTreeBuilt, DModKSpreadsDestinationsEvenlyOverTheTaperedLinks) {
  const Topology topology = build({36, 2, "2:1", 216});  // 9 full leaves, 3 spines
  for (uint32_t leaf = 0; leaf < 9; ++leaf) {
    std::map<uint16_t, uint32_t> per_up_port;
    for (uint32_t d = 0; d < topology.nodes; ++d) {
      if (d / 24 != leaf) ++per_up_port[topology.switches[leaf].forwarding[d].value()];
    }
    ASSERT_EQ(per_up_port.size(), 12U) << "leaf " << leaf;
    for (const auto& [port, count] : per_up_port) EXPECT_EQ(count, 8U * 2U) << "leaf " << leaf << " port " << port;
  }
  std::map<std::pair<uint32_t, uint16_t>, uint32_t> per_down_cable;  // destinations reaching a leaf through it
  for (uint32_t src = 0; src < 24; ++src) {
    for (uint32_t d = 24; d < topology.nodes; ++d) {
      const auto route = topology.route(NodeId(src), NodeId(d));
      ++per_down_cable[{route[1].first, route[1].second.value()}];
    }
  }
  ASSERT_EQ(per_down_cable.size(), 8U * 12U);  // every down cable into leaves 1-8
  for (const auto& [cable, count] : per_down_cable) EXPECT_EQ(count, 24U * 2U);
}

// Across pods: every spine up-link and every core cable down into the other
// pod carries the same number of the pod-to-pod routes.
TEST(FatTreeBuilt, DModKSpreadsPodToPodRoutesEvenlyOverSpinesAndCores) {
  const Topology topology = build({8, 3, "1:1", 32});  // 2 full pods of 4 leaves of 4 nodes
  std::map<std::pair<uint32_t, uint16_t>, uint32_t> up_to_core;
  std::map<std::pair<uint32_t, uint16_t>, uint32_t> down_from_core;
  for (uint32_t src = 0; src < 16; ++src) {
    for (uint32_t d = 16; d < 32; ++d) {
      const auto route = topology.route(NodeId(src), NodeId(d));
      ASSERT_EQ(route.size(), 5U);
      ++up_to_core[{route[1].first, route[1].second.value()}];
      ++down_from_core[{route[2].first, route[2].second.value()}];
    }
  }
  ASSERT_EQ(up_to_core.size(), 16U);      // 4 spines x 4 up-links
  ASSERT_EQ(down_from_core.size(), 16U);  // 4 cores x 4 cables to pod 1
  for (const auto& [link, count] : up_to_core) EXPECT_EQ(count, 16U) << "switch " << link.first;
  for (const auto& [link, count] : down_from_core) EXPECT_EQ(count, 16U) << "switch " << link.first;
}

// --- refusals ----------------------------------------------------------------------

void expect_refused(const Tree& tree, const std::string& field, const std::string& says, uint32_t switch_ports = 0) {
  TopologyParams params = params_of(tree);
  params.switch_ports = switch_ports;
  const std::string message = testing::refusal_of(params, field);
  EXPECT_NE(message.find(says), std::string::npos) << message;
}

// The tree with network.fat_tree_built.spines given.
TopologyParams params_with_spines(const Tree& tree, uint32_t spines) {
  TopologyParams params = params_of(tree);
  params.own = ParameterValues({{"network.fat_tree_built.radix", tree.radix},
                                {"network.fat_tree_built.levels", tree.levels},
                                {"network.fat_tree_built.taper", tree.taper},
                                {"network.fat_tree_built.spines", spines}});
  return params;
}

Topology build_with_spines(const Tree& tree, uint32_t spines) {
  return build_topology(params_with_spines(tree, spines));
}

// How many cables join each (lower switch, upper switch) pair.
std::map<std::pair<uint32_t, uint32_t>, uint32_t> cables_up(const Topology& topology) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> cables;
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    for (const Endpoint& peer : topology.switches[s].peer) {
      if (peer.kind == Kind::kSwitch && topology.switches[peer.index].level > topology.switches[s].level)
        ++cables[{s, peer.index}];
    }
  }
  return cables;
}

TEST(FatTreeBuilt, GivenSpinesTakeEachLeafsUpLinksEvenly) {
  // The shape of tests/fabrics/tapered-2to1: 4 leaves of 24 nodes, 12 up-links each, 2 to each of 6 spines
  // (the fewest spines would be 2, with 6 cables to each).
  const Topology topology = build_with_spines({36, 2, "2:1", 96}, 6);
  expect_cables_agree(topology);
  EXPECT_EQ(shape_count(topology, "spines"), 6U);
  ASSERT_EQ(switches_at(topology, 1), 6U);
  const auto cables = cables_up(topology);
  EXPECT_EQ(cables.size(), 4U * 6U);
  for (const auto& [pair, count] : cables) EXPECT_EQ(count, 2U) << "leaf " << pair.first << " spine " << pair.second;
  check_routes(topology, "network.routing");
  // The same port use as the fixture OpenSM routed: leaves 24 nodes + 12 up, spines 8 down of 36.
  const Topology fixture = build_topology(TopologyParams::of(
      "ibnetdiscover", 0, {{"network.ibnetdiscover.file", std::string(IBSEC_FABRICS_DIR) + "/tapered-2to1.ibnd"}}));
  std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> ours, theirs;
  for (const SwitchSpec& spec : topology.switches) {
    const PortUse use = port_use(topology, spec);
    ours.insert({use.nodes, use.down_switches, use.up_switches});
  }
  for (const SwitchSpec& spec : fixture.switches) {
    uint32_t nodes = 0, switches = 0;
    for (const Endpoint& peer : spec.peer) (peer.kind == Kind::kNode ? nodes : switches) += peer.kind != Kind::kNone;
    // The fixture's switches carry no levels: a spine's switch cables are its down-links.
    theirs.insert(nodes > 0 ? std::tuple(nodes, 0U, switches) : std::tuple(0U, switches, 0U));
  }
  EXPECT_EQ(ours, theirs);
}

TEST(FatTreeBuilt, AThreeLevelPodTakesOneSpinePerLeafUpLink) {
  // A pod's spines have r/2 ports down to its r/2 leaves: one cable from each leaf, so U spines per pod and no
  // other count. 8 ports, 1:1: 4 up-links per leaf; 40 nodes fill 10 leaves in 3 pods.
  const Topology given = build_with_spines({8, 3, "1:1", 40}, 4);
  EXPECT_EQ(shape_count(given, "spines"), 4U * 3U);
  EXPECT_EQ(given.switches.size(), build({8, 3, "1:1", 40}).switches.size());
  const std::string message =
      testing::refusal_of(params_with_spines({8, 3, "1:1", 40}, 2), "network.fat_tree_built.spines");
  EXPECT_NE(message.find("per pod for 40 nodes on a 3-level tree"), std::string::npos) << message;
  EXPECT_NE(message.find("4 down / 4 up ports per leaf: 4"), std::string::npos) << message;
}

void expect_spines_refused(uint32_t spines, const std::string& says) {
  const std::string message =
      testing::refusal_of(params_with_spines({36, 2, "2:1", 96}, spines), "network.fat_tree_built.spines");
  EXPECT_NE(message.find(says), std::string::npos) << message;
  EXPECT_NE(message.find(": 2, 3, 4, 6, 12"), std::string::npos) << message;
}

TEST(FatTreeBuilt, RefusesSpinesThatCannotTakeTheUpLinksEvenly) {
  expect_spines_refused(5, "must divide each leaf's 12 up-links");
  expect_spines_refused(13, "must divide each leaf's 12 up-links");
  expect_spines_refused(1, "leaves more cables on a spine than its 36 down ports");  // 4 x 12 = 48
}

TEST(FatTreeBuilt, RefusesNodesThatDoNotFit) {
  expect_refused({36, 2, "2:1", 865}, "network.nodes", "at most 864 nodes fit");
  expect_refused({36, 2, "2:1", 865}, "network.nodes", "levels=3");
  expect_refused({36, 3, "1:1", 11665}, "network.nodes", "at most 11664 nodes fit");
  expect_refused({36, 2, "2:1", 24}, "network.nodes", "one leaf holds");
  expect_refused({8, 3, "1:1", 16}, "network.nodes", "one pod holds");
}

TEST(FatTreeBuilt, RefusesAnOddOrTooSmallRadix) {
  expect_refused({35, 2, "1:1", 40}, "network.fat_tree_built.radix", "must be even");
  expect_refused({2, 2, "1:1", 2}, "network.fat_tree_built.radix", "must be from 4");
  expect_refused({36, 2, "1:1", 40}, "network.switch_ports", "must be 0", 48);
}

TEST(FatTreeBuilt, RefusesAnImpossibleTaper) {
  expect_refused({40, 2, "2:1", 100}, "network.fat_tree_built.taper", "cannot split 40 ports 2:1");
  expect_refused({64, 2, "2:1", 100}, "network.fat_tree_built.taper", "cannot split 64 ports 2:1");
  expect_refused({36, 2, "1:2", 100}, "network.fat_tree_built.taper", "down >= up");
  expect_refused({36, 2, "2:0", 100}, "network.fat_tree_built.taper", "down >= up");
  expect_refused({36, 2, "two to one", 100}, "network.fat_tree_built.taper", "down:up ports");
  expect_refused({36, 4, "1:1", 100}, "network.fat_tree_built.levels", "must be 2 or 3");
}

}  // namespace
}  // namespace ibsec::network
