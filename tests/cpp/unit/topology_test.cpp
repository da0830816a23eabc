// Topologies are checked against facts computed independently of the
// builder: cable symmetry, the k-ary n-tree's size and attachment rule, route
// lengths from base-k digits, the up*/down* shape of every route, and the
// contention-free property of D-mod-K routing on shift permutations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "network/links.h"
#include "network/topology.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

std::string show(const Endpoint& e) {
  const char* kind = e.kind == Kind::kNode ? "node" : e.kind == Kind::kSwitch ? "switch" : "none";
  return std::string(kind) + " " + std::to_string(e.index) + " port " + std::to_string(e.port.value());
}

Endpoint at_switch(uint32_t index, uint32_t port) {
  return {Kind::kSwitch, index, PortId(static_cast<uint16_t>(port))};
}

Endpoint at_node(uint32_t node) { return {Kind::kNode, node, PortId(0)}; }

TopologyParams single_switch(uint32_t nodes, uint32_t switch_ports = 0) {
  TopologyParams params;
  params.name = "single-switch";
  params.nodes = nodes;
  params.switch_ports = switch_ports;
  return params;
}

TopologyParams fat_tree(uint32_t k, uint32_t n) {
  return TopologyParams::of("fat-tree", 0, {{"network.fat_tree.k", k}, {"network.fat_tree.n", n}});
}

uint32_t power(uint32_t base, uint32_t exponent) {
  uint32_t result = 1;
  for (uint32_t i = 0; i < exponent; ++i) result *= base;
  return result;
}

// Lowest common ancestor level of two nodes of a k-ary n-tree: the most
// significant base-k digit in which they differ (0 if none).
uint32_t lca_level(uint32_t a, uint32_t b, uint32_t k, uint32_t n) {
  uint32_t level = 0;
  for (uint32_t digit = 0; digit < n; ++digit, a /= k, b /= k) {
    if (a % k != b % k) level = digit;
  }
  return level;
}

// Every cable is seen from both ends the same way.
void expect_cables_paired(const Topology& topology) {
  for (uint32_t s = 0; s < topology.switches.size(); ++s) {
    const SwitchSpec& spec = topology.switches[s];
    ASSERT_EQ(spec.peer.size(), spec.ports) << "switch " << s;
    ASSERT_EQ(spec.forwarding.size(), topology.nodes) << "switch " << s;
    for (uint32_t p = 0; p < spec.ports; ++p) {
      const Endpoint& far = spec.peer[p];
      if (far.kind == Kind::kNone) continue;
      const Endpoint& back = far.kind == Kind::kNode ? topology.node_link.at(far.index)
                                                     : topology.switches.at(far.index).peer.at(far.port.value());
      EXPECT_EQ(back, at_switch(s, p)) << "switch " << s << " port " << p << " -> " << show(far);
      if (far.kind == Kind::kNode) {
        EXPECT_EQ(far.port, PortId(0));
      }
    }
  }
  ASSERT_EQ(topology.node_link.size(), topology.nodes);
  for (uint32_t node = 0; node < topology.nodes; ++node) {
    const Endpoint& link = topology.node_link[node];
    ASSERT_EQ(link.kind, Kind::kSwitch) << "node " << node;
    EXPECT_EQ(topology.switches.at(link.index).peer.at(link.port.value()), at_node(node)) << "node " << node;
  }
}

// --- single switch -------------------------------------------------------

TEST(TopologySingleSwitch, NodeIOnPortIAndForwardedToPortI) {
  const Topology topology = build_topology(single_switch(8));
  EXPECT_EQ(topology.name, "single-switch");
  EXPECT_EQ(topology.nodes, 8u);
  ASSERT_EQ(topology.switches.size(), 1u);
  EXPECT_EQ(topology.switches[0].ports, 8u);
  EXPECT_EQ(topology.switches[0].level, 0u);
  expect_cables_paired(topology);
  for (uint32_t node = 0; node < 8; ++node) {
    EXPECT_EQ(topology.node_link[node], at_switch(0, node));
    EXPECT_EQ(topology.switches[0].peer[node], at_node(node));
    EXPECT_EQ(topology.switches[0].forwarding[node], PortId(static_cast<uint16_t>(node)));
  }
}

TEST(TopologySingleSwitch, SparePortsStayUnconnected) {
  const Topology topology = build_topology(single_switch(5, 8));
  ASSERT_EQ(topology.switches[0].ports, 8u);
  expect_cables_paired(topology);
  for (uint32_t p = 5; p < 8; ++p) EXPECT_EQ(topology.switches[0].peer[p].kind, Kind::kNone) << p;
}

TEST(TopologySingleSwitch, EveryPairCrossesOneSwitch) {
  const uint32_t nodes = 16;
  const Topology topology = build_topology(single_switch(nodes));
  for (uint32_t src = 0; src < nodes; ++src) {
    for (uint32_t dst = 0; dst < nodes; ++dst) {
      if (src == dst) continue;
      EXPECT_EQ(topology.switch_hops(NodeId(src), NodeId(dst)), 1u) << src << " -> " << dst;
      const auto route = topology.route(NodeId(src), NodeId(dst));
      ASSERT_EQ(route.size(), 1u);
      EXPECT_EQ(route[0], std::make_pair(0u, PortId(static_cast<uint16_t>(dst))));
    }
  }
}

TEST(TopologySingleSwitch, OneNodeIsAllowed) {
  const Topology topology = build_topology(single_switch(1));
  EXPECT_EQ(topology.switches.at(0).ports, 1u);
  EXPECT_EQ(topology.switch_hops(NodeId(0), NodeId(0)), 1u);
}

// --- k-ary n-trees --------------------------------------------------------

struct TreeShape {
  uint32_t k;
  uint32_t n;
  bool all_pairs;  // otherwise a fixed sample per source
};

class TopologyFatTree : public ::testing::TestWithParam<TreeShape> {
 protected:
  void SetUp() override {
    k_ = GetParam().k;
    n_ = GetParam().n;
    nodes_ = power(k_, n_);
    per_level_ = nodes_ / k_;
    topology_ = build_topology(fat_tree(k_, n_));
  }

  [[nodiscard]] uint32_t level_of(uint32_t switch_index) const { return switch_index / per_level_; }

  // All pairs for small trees; for big ones every source with a fixed
  // pseudo-random sample of destinations plus its farthest mirror.
  [[nodiscard]] std::vector<std::pair<uint32_t, uint32_t>> pairs() const {
    std::vector<std::pair<uint32_t, uint32_t>> result;
    std::mt19937 random(12345);
    std::uniform_int_distribution<uint32_t> any(0, nodes_ - 1);
    for (uint32_t src = 0; src < nodes_; ++src) {
      if (GetParam().all_pairs) {
        for (uint32_t dst = 0; dst < nodes_; ++dst) result.emplace_back(src, dst);
        continue;
      }
      for (int i = 0; i < 32; ++i) result.emplace_back(src, any(random));
      result.emplace_back(src, nodes_ - 1 - src);
    }
    return result;
  }

  void expect_minimal_up_down(uint32_t src, uint32_t dst) const;

  uint32_t k_ = 0;
  uint32_t n_ = 0;
  uint32_t nodes_ = 0;
  uint32_t per_level_ = 0;
  Topology topology_;
};

TEST_P(TopologyFatTree, SizesMatchTheDefinition) {
  EXPECT_EQ(topology_.name, "fat-tree");
  EXPECT_EQ(topology_.nodes, nodes_);
  ASSERT_EQ(topology_.switches.size(), n_ * per_level_);
  for (uint32_t s = 0; s < topology_.switches.size(); ++s) {
    EXPECT_EQ(topology_.switches[s].ports, 2 * k_) << "switch " << s;
    EXPECT_EQ(topology_.switches[s].level, level_of(s)) << "switch " << s;
  }
}

TEST_P(TopologyFatTree, CablesArePairedAndComplete) {
  expect_cables_paired(topology_);
  for (uint32_t s = 0; s < topology_.switches.size(); ++s) {
    const uint32_t level = level_of(s);
    const auto& peer = topology_.switches[s].peer;
    for (uint32_t p = 0; p < peer.size(); ++p) {
      const bool up = p >= k_;
      if (up && level == n_ - 1) {
        EXPECT_EQ(peer[p].kind, Kind::kNone) << "top switch " << s << " port " << p;
      } else if (!up && level == 0) {
        EXPECT_EQ(peer[p], at_node(s * k_ + p)) << "leaf " << s << " port " << p;
      } else {
        ASSERT_EQ(peer[p].kind, Kind::kSwitch) << "switch " << s << " port " << p;
        EXPECT_EQ(level_of(peer[p].index), up ? level + 1 : level - 1) << "switch " << s << " port " << p;
        EXPECT_EQ(peer[p].port.value() >= k_, !up) << "up meets down: switch " << s << " port " << p;
      }
    }
  }
}

// One one-way link per card output and per cabled switch port, in the
// order a run numbers them: cards by node id, then switches by index and port.
TEST_P(TopologyFatTree, LinksAreCardOutputsThenSwitchPortsInOrder) {
  const std::vector<LinkEnds> links = links_of(topology_);
  const uint32_t top_ports = per_level_ * k_;  // the top level's unused up ports
  ASSERT_EQ(links.size(), nodes_ + n_ * per_level_ * 2 * k_ - top_ports);
  for (uint32_t n = 0; n < nodes_; ++n) {
    EXPECT_EQ(links[n].from, (Endpoint{Kind::kNode, n, PortId(0)}));
    EXPECT_EQ(links[n].to, topology_.node_link[n]);
  }
  for (size_t i = nodes_ + 1; i < links.size(); ++i) {
    const auto key = [](const LinkEnds& l) { return std::pair(l.from.index, l.from.port.value()); };
    EXPECT_LT(key(links[i - 1]), key(links[i])) << "link " << i;
    EXPECT_EQ(links[i].to, topology_.switches[links[i].from.index].peer[links[i].from.port.value()]);
  }
}

// Each consecutive pair of switches is joined by the cable the first one
// sends on; levels climb from 0 to the LCA level L and fall back to 0 with no
// turn from down to up, so the route crosses 2L + 1 switches.
void TopologyFatTree::expect_minimal_up_down(uint32_t src, uint32_t dst) const {
  const auto route = topology_.route(NodeId(src), NodeId(dst));
  const uint32_t lca = lca_level(src, dst, k_, n_);
  ASSERT_EQ(route.size(), 2 * lca + 1) << src << " -> " << dst;
  EXPECT_EQ(topology_.switch_hops(NodeId(src), NodeId(dst)), route.size());
  EXPECT_EQ(route.front().first, topology_.node_link[src].index);
  bool descending = false;
  for (size_t i = 0; i + 1 < route.size(); ++i) {
    const auto [here, out] = route[i];
    const Endpoint& next = topology_.switches[here].peer[out.value()];
    ASSERT_EQ(next.kind, Kind::kSwitch) << src << " -> " << dst << " hop " << i;
    ASSERT_EQ(next.index, route[i + 1].first) << src << " -> " << dst << " hop " << i;
    const bool up = level_of(next.index) == level_of(here) + 1;
    EXPECT_EQ(up, out.value() >= k_) << src << " -> " << dst << " hop " << i;
    EXPECT_FALSE(up && descending) << "down->up turn: " << src << " -> " << dst << " hop " << i;
    descending = descending || !up;
  }
  const auto [last, out] = route.back();
  EXPECT_EQ(level_of(last), 0u);
  EXPECT_EQ(topology_.switches[last].peer[out.value()], at_node(dst));
}

TEST_P(TopologyFatTree, RoutesAreMinimalUpStarDownStar) {
  for (const auto& [src, dst] : pairs()) {
    expect_minimal_up_down(src, dst);
    if (::testing::Test::HasFailure()) return;  // one broken route says enough
  }
}

// D-mod-K on a full tree: for dst = (src + s) mod N, no two routes share a
// link at any level, up or down (Zahavi et al. 2010).
TEST_P(TopologyFatTree, ShiftPermutationsShareNoLink) {
  const uint32_t radix = 2 * k_;
  std::set<uint32_t> shifts;
  for (const uint32_t s : {1u, 2u, k_ - 1, k_, k_ + 1, nodes_ / 2, nodes_ - 1, (nodes_ / 3) | 1}) {
    if (s % nodes_ != 0) shifts.insert(s % nodes_);
  }
  for (const uint32_t shift : shifts) {
    std::vector<uint32_t> users(topology_.switches.size() * radix, 0);
    std::vector<uint32_t> expected_up(n_, 0);  // routes climbing out of each level
    std::vector<uint32_t> used_up(n_, 0);
    for (uint32_t src = 0; src < nodes_; ++src) {
      const uint32_t dst = (src + shift) % nodes_;
      for (uint32_t l = 0; l < lca_level(src, dst, k_, n_); ++l) ++expected_up[l];
      for (const auto& [index, out] : topology_.route(NodeId(src), NodeId(dst))) {
        uint32_t& count = users[index * radix + out.value()];
        if (++count == 2) {
          ADD_FAILURE() << "shift " << shift << ": switch " << index << " port " << out.value() << " shared";
        }
        if (out.value() >= k_ && count == 1) ++used_up[level_of(index)];
      }
    }
    EXPECT_EQ(used_up, expected_up) << "shift " << shift;
  }
}

// Names the tree in ctest's test list (instead of dumping the struct's bytes).
void PrintTo(const TreeShape& shape, std::ostream* out) { *out << shape.k << "-ary " << shape.n << "-tree"; }

std::string shape_name(const ::testing::TestParamInfo<TreeShape>& info) {
  return "k" + std::to_string(info.param.k) + "n" + std::to_string(info.param.n);
}

INSTANTIATE_TEST_SUITE_P(Trees, TopologyFatTree,
                         ::testing::Values(TreeShape{2, 3, true}, TreeShape{4, 3, true}, TreeShape{4, 5, false},
                                           TreeShape{32, 2, false}, TreeShape{3, 1, true}),
                         shape_name);

TEST(TopologyFatTreeOptions, WiderSwitchesLeaveSparePortsUnused) {
  TopologyParams params = fat_tree(4, 3);
  params.switch_ports = 36;
  params.nodes = 64;
  const Topology topology = build_topology(params);
  expect_cables_paired(topology);
  for (const SwitchSpec& spec : topology.switches) {
    ASSERT_EQ(spec.ports, 36u);
    for (uint32_t p = 8; p < 36; ++p) EXPECT_EQ(spec.peer[p].kind, Kind::kNone);
  }
  EXPECT_EQ(topology.switch_hops(NodeId(0), NodeId(63)), 5u);
}

// The route worked by hand in docs/topology.md: 5 = (1,1,0) to 46 = (2,3,2)
// in base 4 differ first in digit 2, so 2*2 + 1 switches.
TEST(TopologyFatTreeOptions, MatchesTheWorkedExampleInTheDocs) {
  const Topology topology = build_topology(fat_tree(4, 3));
  using Hop = std::pair<uint32_t, PortId>;
  const std::vector<Hop> expected = {
      {1, PortId(6)}, {18, PortId(7)}, {46, PortId(2)}, {26, PortId(3)}, {11, PortId(2)}};
  EXPECT_EQ(topology.route(NodeId(5), NodeId(46)), expected);
}

TEST(TopologyFatTreeOptions, DefaultParamsAreA4Ary2TreeOf16Nodes) {
  const Topology topology = build_topology(TopologyParams::of("fat-tree"));
  EXPECT_EQ(topology.nodes, 16u);
  EXPECT_EQ(topology.switches.size(), 8u);
}

// --- routing through hand-broken tables -------------------------------------

TEST(TopologyRoute, RejectsNodesOutsideTheTopology) {
  const Topology topology = build_topology(single_switch(4));
  EXPECT_THROW((void)topology.switch_hops(NodeId(4), NodeId(0)), std::out_of_range);
  EXPECT_THROW((void)topology.route(NodeId(0), NodeId(4)), std::out_of_range);
}

TEST(TopologyRoute, DetectsMisdeliveryAndLoops) {
  Topology misdelivers = build_topology(single_switch(4));
  misdelivers.switches[0].forwarding.set(2, PortId(3));
  EXPECT_THROW((void)misdelivers.route(NodeId(0), NodeId(2)), std::logic_error);

  // The leaf above node 3 sends it back up; the top switch sends it down to
  // that leaf again.
  Topology loops = build_topology(fat_tree(2, 2));
  const uint32_t leaf = loops.node_link[3].index;
  loops.switches[leaf].forwarding.set(3, PortId(2));
  EXPECT_THROW((void)loops.switch_hops(NodeId(0), NodeId(3)), std::logic_error);
}

// --- configuration errors ---------------------------------------------------

void expect_config_error(const TopologyParams& params, const std::string& field, const std::string& problem = "") {
  try {
    (void)build_topology(params);
    ADD_FAILURE() << "accepted parameters that should fail on " << field;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
  }
}

TEST(TopologyConfig, UnknownNameListsTheKnownOnes) {
  TopologyParams params;
  params.name = "x";
  std::string known;
  for (const auto& name : TopologyRegistry::names()) known += (known.empty() ? "" : ", ") + name;
  expect_config_error(params, "network.topology", "unknown topology 'x'; known: " + known);
  const auto names = TopologyRegistry::names();
  EXPECT_TRUE(std::ranges::find(names, "fat-tree") != names.end());
  EXPECT_TRUE(std::ranges::find(names, "single-switch") != names.end());
}

TEST(TopologyConfig, RejectsBadSingleSwitch) {
  EXPECT_EQ(build_topology(single_switch(0)).nodes, 16U);  // 0 = the paper's cluster
  expect_config_error(single_switch(70000), "network.nodes");
  expect_config_error(single_switch(8, 6), "network.switch_ports", "at least network.nodes = 8");
  expect_config_error(single_switch(8, 70000), "network.switch_ports");
}

TEST(TopologyConfig, RejectsBadFatTreeShape) {
  expect_config_error(fat_tree(1, 3), "network.fat_tree.k", "at least 2");
  expect_config_error(fat_tree(0, 3), "network.fat_tree.k");
  expect_config_error(fat_tree(4, 0), "network.fat_tree.n", "at least 1");
  expect_config_error(fat_tree(40000, 1), "network.fat_tree.k", "80000 ports");
}

TEST(TopologyConfig, RejectsFatTreesOfTooManyNodes) {
  expect_config_error(fat_tree(2, 21), "network.fat_tree.n", "1048576");
  expect_config_error(fat_tree(4294967295u, 4294967295u), "network.fat_tree.k");
  expect_config_error(fat_tree(2, 4000000000u), "network.fat_tree.n");
}

// A tree's own routes are its rule: 262 144 nodes on 1 024 switches hold
// no table, and route as D-mod-K does (up to the top, down by digits).
TEST(ForwardingByRule, AGeneratedTreeHoldsNoTable) {
  const Topology tree = build_topology(fat_tree(512, 2));
  ASSERT_EQ(tree.switches.size(), 1024U);
  for (const SwitchSpec& spec : tree.switches) ASSERT_TRUE(spec.forwarding.by_rule());
  EXPECT_EQ(tree.switch_hops(NodeId(0), NodeId(511)), 1U);
  EXPECT_EQ(tree.switch_hops(NodeId(0), NodeId(262143)), 3U);
  // Node 262 143's leaf digit is 511: every leaf climbs to top switch 511.
  EXPECT_EQ(tree.route(NodeId(0), NodeId(262143)).front(), std::make_pair(0U, PortId(512 + 511)));
}

// Tables of a routing engine, or adaptive routing's choice sets, for the
// same tree would be 268 M entries: refused by the key that asks for them.
TEST(ForwardingByRule, TablesTooLargeAreRefusedByTheKeyThatAsksForThem) {
  TopologyParams params = fat_tree(512, 2);
  params.routing = "minhop";
  expect_config_error(params, "network.routing", "268435456 forwarding-table entries");
  params = fat_tree(512, 2);
  params.adaptive = "minimal";
  expect_config_error(params, "network.adaptive_routing", "268435456 choice-set entries");
}

// Editing one entry of a rule's switch turns it into its table, that entry changed.
TEST(ForwardingByRule, OneEntrySetMakesTheTableTheRuleStandsFor) {
  Topology tree = build_topology(fat_tree(4, 3));
  const Forwarding rule = tree.switches[0].forwarding;
  Forwarding& edited = tree.switches[0].forwarding;
  const PortId other(static_cast<uint16_t>(rule[63].value() == 0 ? 1 : 0));
  edited.set(63, other);
  EXPECT_FALSE(edited.by_rule());
  for (uint32_t d = 0; d < 63; ++d) EXPECT_EQ(edited[d], rule[d]) << "destination " << d;
  EXPECT_EQ(edited[63], other);
  EXPECT_NE(edited, rule);
  edited.set(63, rule[63]);
  EXPECT_EQ(edited, rule);
}

TEST(TopologyConfig, RejectsFatTreeNodesAndPortsThatDoNotFit) {
  TopologyParams params = fat_tree(4, 3);
  params.nodes = 16;
  expect_config_error(params, "network.nodes", "k^n = 64");
  params = fat_tree(4, 2);
  params.switch_ports = 6;
  expect_config_error(params, "network.switch_ports", "must be at least 8 for a 4-ary fat tree (2k ports), got 6");
  params.switch_ports = 70000;
  expect_config_error(params, "network.switch_ports");
}

}  // namespace
}  // namespace ibsec::network
