// Adaptive routing's port sets (network.adaptive_routing=minimal) against
// docs/topology.md, "Adaptive routing": on a fat tree a switch may take any
// of its up ports towards a node not below it and only its table's port
// otherwise; on a dragonfly+ a leaf may take any spine that has a global link
// to the destination's group; every path through the choices has the table
// route's number of switches; UGAL's detours on a dragonfly+ offered at the
// source group only, weighed by length, loop-free and on two lanes; and
// fabrics whose choices could deadlock are refused naming the parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "network/routing.h"
#include "network/topology.h"
#include "support/config_refusal.h"
#include "support/topology_refusal.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

Topology adaptive(TopologyParams params) {
  params.adaptive = "minimal";
  return build_topology(params);
}

TopologyParams fat_tree(uint32_t k, uint32_t n) {
  return TopologyParams::of("fat-tree", 0, {{"network.fat_tree.k", k}, {"network.fat_tree.n", n}});
}

TopologyParams built_tree(uint32_t nodes, uint32_t radix, uint32_t levels, const char* taper) {
  return TopologyParams::of("fat-tree-built", nodes,
                            {{"network.fat_tree_built.radix", radix},
                             {"network.fat_tree_built.levels", levels},
                             {"network.fat_tree_built.taper", taper}});
}

TopologyParams dragonfly(uint32_t groups, uint32_t leaves, uint32_t spines, uint32_t per_leaf, uint32_t global) {
  return TopologyParams::of("dragonfly-plus", 0,
                            {{"network.dragonfly_plus.groups", groups},
                             {"network.dragonfly_plus.leaves", leaves},
                             {"network.dragonfly_plus.spines", spines},
                             {"network.dragonfly_plus.nodes_per_leaf", per_leaf},
                             {"network.dragonfly_plus.global_links", global}});
}

std::set<uint16_t> as_set(std::span<const PortId> ports) {
  std::set<uint16_t> set;
  for (const PortId p : ports) set.insert(p.value());
  return set;
}

std::set<uint16_t> up_ports(const Topology& t, uint32_t s) {
  std::set<uint16_t> up;
  const SwitchSpec& spec = t.switches[s];
  for (uint16_t p = 0; p < spec.ports; ++p) {
    const Endpoint& peer = spec.peer[p];
    if (peer.kind == Kind::kSwitch && t.switches[peer.index].level > spec.level) up.insert(p);
  }
  return up;
}

// Every path the choices allow from src's switch, each counted in switches;
// fails on a path that does not end at dst.
void path_lengths(const Topology& t, uint32_t dst, Endpoint at, uint32_t so_far, std::set<uint32_t>& lengths) {
  if (at.kind == Kind::kNode) {
    EXPECT_EQ(at.index, dst);
    lengths.insert(so_far);
    return;
  }
  ASSERT_EQ(at.kind, Kind::kSwitch);
  ASSERT_LE(so_far, t.switches.size()) << "a loop";
  for (const PortId out : t.switches[at.index].candidates(dst)) {
    path_lengths(t, dst, t.switches[at.index].peer[out.value()], so_far + 1, lengths);
  }
}

void expect_every_path_as_short_as_the_table_route(const Topology& t) {
  for (uint32_t src = 0; src < t.nodes; ++src) {
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      std::set<uint32_t> lengths;
      path_lengths(t, dst, t.node_link[src], 0, lengths);
      EXPECT_EQ(lengths, std::set<uint32_t>{t.switch_hops(NodeId(src), NodeId(dst))}) << src << " -> " << dst;
    }
  }
}

// The ports of switch s cabled to the same switch as `port` (parallel cables), or `port` alone to a node.
std::set<uint16_t> ports_alongside(const Topology& t, uint32_t s, PortId port) {
  const SwitchSpec& spec = t.switches[s];
  const Endpoint& to = spec.peer[port.value()];
  if (to.kind == Kind::kNode) return {port.value()};
  std::set<uint16_t> ports;
  for (uint16_t p = 0; p < spec.ports; ++p) {
    if (spec.peer[p].kind == Kind::kSwitch && spec.peer[p].index == to.index) ports.insert(p);
  }
  return ports;
}

// Down to dst the table's port and its parallel cables; up, every up port.
void expect_fat_tree_choices(const Topology& t) {
  ASSERT_TRUE(t.adaptive());
  for (uint32_t s = 0; s < t.switches.size(); ++s) {
    const SwitchSpec& spec = t.switches[s];
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      const Endpoint& table_peer = spec.peer[spec.forwarding[dst].value()];
      const bool down = table_peer.kind == Kind::kNode || t.switches[table_peer.index].level < spec.level;
      const std::set<uint16_t> expected = down ? ports_alongside(t, s, spec.forwarding[dst]) : up_ports(t, s);
      EXPECT_EQ(as_set(spec.candidates(dst)), expected) << "switch " << s << ", node " << dst;
    }
  }
  expect_every_path_as_short_as_the_table_route(t);
}

TEST(AdaptiveRouting, OffGivesNoChoice) {
  const Topology t = build_topology(fat_tree(4, 3));
  EXPECT_FALSE(t.adaptive());
  for (const SwitchSpec& spec : t.switches) EXPECT_TRUE(spec.choices.empty());
}

TEST(AdaptiveRouting, FullFatTreeOffersEveryUpPortTowardsANodeNotBelow) {
  expect_fat_tree_choices(adaptive(fat_tree(4, 3)));
}

TEST(AdaptiveRouting, TaperedTwoLevelTreeOffersEveryUpPort) {
  expect_fat_tree_choices(adaptive(built_tree(96, 36, 2, "2:1")));
}

TEST(AdaptiveRouting, TaperedThreeLevelTreeWithAPartialLeafOffersEveryUpPort) {
  expect_fat_tree_choices(adaptive(built_tree(70, 8, 3, "3:1")));
}

// 8 groups of 4 leaves and 8 spines, 7 global links a spine: every spine has
// one link to every other group, so a leaf may take any spine towards a node
// on another leaf, and a spine has one way: down to the node's leaf in its
// own group, else its link to the node's group.
TEST(AdaptiveRouting, DragonflyPlusLeafMayTakeAnySpineWhenEverySpineReachesEveryGroup) {
  const Topology t = adaptive(dragonfly(8, 4, 8, 2, 7));
  const uint32_t per_group = 4 + 8;
  for (uint32_t s = 0; s < t.switches.size(); ++s) {
    const SwitchSpec& spec = t.switches[s];
    const bool leaf = s % per_group < 4;
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      const uint32_t dst_leaf = t.node_link[dst].index;
      std::set<uint16_t> expected;
      if (dst_leaf == s) {
        expected = {t.node_link[dst].port.value()};
      } else if (leaf) {
        expected = up_ports(t, s);
      } else {
        for (uint16_t p = 0; p < spec.ports; ++p) {
          const uint32_t peer = spec.peer[p].index;
          const bool same_group = dst_leaf / per_group == s / per_group;
          if (same_group ? peer == dst_leaf : peer / per_group == dst_leaf / per_group) expected.insert(p);
        }
      }
      EXPECT_EQ(as_set(spec.candidates(dst)), expected) << "switch " << s << ", node " << dst;
    }
  }
  expect_every_path_as_short_as_the_table_route(t);
}

// The default dragonfly+: one global link between two groups, so only the
// spine holding it leads out of the group; inside it any spine does.
TEST(AdaptiveRouting, DragonflyPlusWithOneLinkPerPairChoosesOnlyInsideAGroup) {
  const Topology t = adaptive(dragonfly(5, 4, 4, 4, 1));
  const uint32_t per_group = 8;
  for (uint32_t s = 0; s < t.switches.size(); s += per_group) {  // each group's first leaf
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      const uint32_t dst_switch = t.node_link[dst].index;
      const bool same_group = dst_switch / per_group == s / per_group;
      const size_t expected = dst_switch == s ? 1 : (same_group ? 4 : 1);
      EXPECT_EQ(t.switches[s].candidates(dst).size(), expected) << "switch " << s << ", node " << dst;
    }
  }
  expect_every_path_as_short_as_the_table_route(t);
}

// ---- UGAL on dragonfly+ ----

Topology ugal(TopologyParams params) {
  params.adaptive = "ugal";
  return build_topology(params);
}

// Every path the choices and detours allow from src, followed through the
// lane maps as a packet would be; fails on one that loops or ends elsewhere.
void detour_path_lengths(const Topology& t, uint32_t dst, Endpoint at, uint8_t lane, uint32_t so_far,
                         std::set<uint32_t>& lengths) {
  if (at.kind == Kind::kNode) {
    EXPECT_EQ(at.index, dst);
    lengths.insert(so_far);
    return;
  }
  ASSERT_LE(so_far, 7U) << "longer than a detour: a loop";
  const SwitchSpec& spec = t.switches[at.index];
  for (const PortId out : spec.candidates(dst, at.port.value(), lane)) {
    detour_path_lengths(t, dst, spec.peer[out.value()], spec.out_lane(at.port.value(), out.value(), lane), so_far + 1,
                        lengths);
  }
}

// The default dragonfly+ (5 groups of 4 leaves and 4 spines, one global link
// a spine): from a leaf every spine is a way to another group, the one with
// the link the shortest; a spine reached from a leaf on lane 0 may take its
// global link to any group; a packet that came across a global link, or up
// on lane 1, may not detour again.
TEST(AdaptiveRouting, UgalOffersEverySpineAndEveryGlobalLinkAtTheSourceGroupOnly) {
  const Topology t = ugal(dragonfly(5, 4, 4, 4, 1));
  EXPECT_EQ(t.lanes_needed, 2U);
  const uint32_t dst = 79;  // the last group's last node
  const SwitchSpec& leaf = t.switches[0];
  const auto from_node = leaf.candidates(dst, 0, 3);  // any lane a card sends on
  EXPECT_EQ(as_set(from_node), up_ports(t, 0));
  const uint16_t set = leaf.choices.set_for(dst, 0, 3);
  const std::vector<uint8_t>& hops = leaf.choices.hops[set];
  const uint16_t table = leaf.forwarding[dst].value();
  for (size_t i = 0; i < from_node.size(); ++i) {
    // leaf, spine with the link, spine, leaf: 4; any other spine leads on a longer path.
    if (from_node[i].value() == table) {
      EXPECT_EQ(hops[i], 4U);
    } else {
      EXPECT_GT(hops[i], 4U);
    }
  }
  const uint32_t spine = 4;  // group 0's first spine: leaves on ports 0-3, its global link on port 4
  const SwitchSpec& s = t.switches[spine];
  EXPECT_EQ(as_set(s.candidates(dst, 0, 0)).count(4), 1U) << "from a leaf on lane 0: its global link";
  EXPECT_EQ(as_set(s.candidates(dst, 0, 1)), as_set(s.candidates(dst))) << "on lane 1: no second detour";
  EXPECT_EQ(as_set(s.candidates(dst, 4, 0)), as_set(s.candidates(dst))) << "across a global link: none";
  EXPECT_EQ(as_set(s.candidates(3, 0, 0)), as_set(s.candidates(3))) << "to its own group: none";
}

TEST(AdaptiveRouting, EveryUgalPathEndsAtItsDestinationWithinSevenSwitches) {
  const Topology t = ugal(dragonfly(5, 4, 4, 4, 1));
  for (uint32_t src = 0; src < t.nodes; src += 3) {
    for (uint32_t dst = 0; dst < t.nodes; ++dst) {
      std::set<uint32_t> lengths;
      detour_path_lengths(t, dst, t.node_link[src], 0, 0, lengths);
      ASSERT_FALSE(lengths.empty());
      EXPECT_EQ(*lengths.begin(), t.switch_hops(NodeId(src), NodeId(dst))) << src << " -> " << dst;
    }
  }
}

// With 2 global links a spine, the fewest hops from a spine that holds no
// link into the destination's group can run across a third group. A
// detour's second leg takes the spine's leaves instead, so lane 1 crosses
// one global link and the routes cannot deadlock on 2 lanes; every path
// still ends at its destination within 7 switches.
TEST(AdaptiveRouting, UgalWithSeveralGlobalLinksASpineCrossesOneGlobalLinkOnItsSecondLeg) {
  for (const TopologyParams& params : {dragonfly(9, 4, 4, 4, 2), dragonfly(5, 4, 4, 8, 2)}) {
    const Topology t = ugal(params);
    EXPECT_TRUE(dependency_cycle(t).empty());
    const uint32_t per_group = 8;  // 4 leaves, then 4 spines
    for (uint32_t s = 0; s < t.switches.size(); ++s) {
      if (s % per_group < 4) continue;
      const SwitchSpec& spine = t.switches[s];
      for (uint32_t dst = 0; dst < t.nodes; dst += 5) {
        const uint32_t dst_group = t.node_link[dst].index / per_group;
        if (dst_group == s / per_group) continue;
        bool holds_link = false;
        for (uint16_t p = 4; p < spine.ports; ++p) holds_link |= spine.peer[p].index / per_group == dst_group;
        for (const PortId out : spine.candidates(dst, 4, 1)) {  // came across its first global link
          const uint32_t to = spine.peer[out.value()].index;
          if (holds_link) {
            EXPECT_EQ(to / per_group, dst_group) << "switch " << s << " to node " << dst;
          } else {
            EXPECT_LT(out.value(), 4) << "switch " << s << " to node " << dst << ": down, not across again";
          }
        }
      }
    }
    for (uint32_t src = 0; src < t.nodes; src += 7) {
      for (uint32_t dst = 0; dst < t.nodes; dst += 3) {
        std::set<uint32_t> lengths;
        detour_path_lengths(t, dst, t.node_link[src], 0, 0, lengths);
        ASSERT_FALSE(lengths.empty());
        EXPECT_EQ(*lengths.begin(), t.switch_hops(NodeId(src), NodeId(dst))) << src << " -> " << dst;
      }
    }
  }
}

TEST(AdaptiveRouting, UgalNeedsTwoLanesAndSaysWhichCycleOneWouldClose) {
  const Topology t = ugal(dragonfly(5, 4, 4, 4, 1));
  EXPECT_NO_THROW(check_virtual_lanes(t, 2));
  const std::string message = testing::config_refusal([&] { check_virtual_lanes(t, 1); }, "network.virtual_lanes");
  EXPECT_NE(message.find("UGAL"), std::string::npos) << message;
  EXPECT_NE(message.find("back to the first"), std::string::npos) << message;
}

TEST(AdaptiveRouting, UgalIsRefusedWhereNoDetourIsBuilt) {
  TopologyParams tree = fat_tree(4, 2);
  tree.adaptive = "ugal";
  EXPECT_NE(testing::refusal_of(tree, "network.adaptive_routing").find("use minimal"), std::string::npos);
  TopologyParams other_tables = dragonfly(5, 4, 4, 4, 1);
  other_tables.routing = "minhop";
  other_tables.adaptive = "ugal";
  EXPECT_NE(testing::refusal_of(other_tables, "network.adaptive_routing").find("its own routing"), std::string::npos);
}

TEST(AdaptiveRouting, ATorusIsRefusedForTheCycleItsChoicesClose) {
  TopologyParams params = TopologyParams::of("torus", 0, {{"network.torus.dims", "4x4"}});
  params.adaptive = "minimal";
  const std::string message = testing::refusal_of(params, "network.adaptive_routing");
  EXPECT_NE(message.find("adaptive routing may choose can deadlock"), std::string::npos) << message;
  EXPECT_NE(message.find("-> back to the first"), std::string::npos) << message;
}

// Up*/down* on a ring takes the long way round where a short one would close
// a cycle; minimal choices take the short one, and are refused for it.
TEST(AdaptiveRouting, MinimalChoicesOnARingAreRefusedWhateverTheTables) {
  TopologyParams params =
      TopologyParams::of("ibnetdiscover", 0, {{"network.ibnetdiscover.file", IBSEC_FABRICS_DIR "/ring.ibnd"}});
  params.routing = "updn";
  params.routing_own = ParameterValues({{"network.updn.root_guids", nlohmann::json::array({"0x200000"})}});
  params.adaptive = "minimal";
  const std::string message = testing::refusal_of(params, "network.adaptive_routing");
  EXPECT_NE(message.find("adaptive routing may choose can deadlock"), std::string::npos) << message;
}

TEST(AdaptiveRouting, AnUnknownModeIsRefused) {
  TopologyParams params = fat_tree(4, 2);
  params.adaptive = "sometimes";
  const std::string message = testing::refusal_of(params, "network.adaptive_routing");
  EXPECT_NE(message.find("off, minimal"), std::string::npos) << message;
}

}  // namespace
}  // namespace ibsec::network
