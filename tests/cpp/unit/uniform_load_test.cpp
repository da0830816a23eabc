// The bound uniform traffic has on a fabric's routes (network/uniform_load.h)
// against the closed forms docs/network.md derives for each topology (the
// taper, bisection and global-link bounds), and against a pair-by-pair walk
// of every route on the reference fabrics under every routing engine, with
// links of unequal rates; and tables that loop are refused.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "network/links.h"
#include "network/topology.h"
#include "network/uniform_load.h"
#include "support/fabrics.h"

namespace ibsec::network {
namespace {

using Kind = Endpoint::Kind;

UniformLoad at_one_rate(const Topology& topology) {
  const std::vector<LinkEnds> links = links_of(topology);
  return uniform_load(topology, links, std::vector<double>(links.size(), 1.0));
}

double bound_of(const TopologyParams& params) { return at_one_rate(build_topology(params)).bound; }

TopologyParams torus(const char* dims, uint32_t per_switch, const char* half_way = "alternate") {
  return TopologyParams::of("torus", 0,
                            {{"network.torus.dims", dims},
                             {"network.torus.nodes_per_switch", per_switch},
                             {"network.torus.half_way", half_way}});
}

TopologyParams dragonfly(uint32_t groups, uint32_t per_leaf, uint32_t global_links) {
  return TopologyParams::of("dragonfly-plus", 0,
                            {{"network.dragonfly_plus.groups", groups},
                             {"network.dragonfly_plus.leaves", 4},
                             {"network.dragonfly_plus.spines", 4},
                             {"network.dragonfly_plus.nodes_per_leaf", per_leaf},
                             {"network.dragonfly_plus.global_links", global_links}});
}

TopologyParams built_tree(uint32_t nodes, const char* taper) {
  return TopologyParams::of("fat-tree-built", nodes,
                            {{"network.fat_tree_built.radix", 36},
                             {"network.fat_tree_built.levels", 2},
                             {"network.fat_tree_built.taper", taper}});
}

constexpr double kExact = 1e-12;

TEST(UniformLoad, ASingleSwitchIsBoundByItsNodesLinks) {
  const Topology topology = build_topology(TopologyParams::of("single-switch", 16));
  const UniformLoad load = at_one_rate(topology);
  EXPECT_NEAR(load.bound, 1.0, kExact);
  for (const double link : load.per_link) EXPECT_NEAR(link, 1.0, kExact);  // every link is a node's, in or out
}

TEST(UniformLoad, AFullBisectionTreeUnderDModKIsBoundByItsNodesLinks) {
  const Topology topology =
      build_topology(TopologyParams::of("fat-tree", 0, {{"network.fat_tree.k", 4}, {"network.fat_tree.n", 3}}));
  const UniformLoad load = at_one_rate(topology);
  EXPECT_NEAR(load.bound, 1.0, kExact);
  // A leaf's 4 nodes send 60 of their 63 destinations' share up its 4 up-links.
  const std::vector<LinkEnds> links = links_of(topology);
  for (size_t l = 0; l < links.size(); ++l) {
    const LinkEnds& link = links[l];
    if (link.from.kind == Kind::kSwitch && link.to.kind == Kind::kSwitch &&
        topology.switches[link.from.index].level == 0) {
      EXPECT_NEAR(load.per_link[l], 60.0 / 63.0, kExact) << l;
    }
  }
}

// (U/D)(N - 1)/(N - D): docs/network.md, "Tapered fat trees: the bound".
TEST(UniformLoad, ATaperedTreeMeetsItsTaperBoundOnALeafsUpLinks) {
  const Topology topology = build_topology(built_tree(96, "2:1"));
  const UniformLoad load = at_one_rate(topology);
  EXPECT_NEAR(load.bound, (12.0 / 24.0) * 95.0 / 72.0, kExact);
  const LinkEnds binding = links_of(topology)[load.binding_link];
  EXPECT_EQ(binding.from.kind, Kind::kSwitch);
  EXPECT_EQ(topology.switches[binding.from.index].level, 0);  // a leaf's up-link
  EXPECT_NEAR(bound_of(built_tree(60, "5:1")), (6.0 / 30.0) * 59.0 / 30.0, kExact);
  EXPECT_NEAR(bound_of(built_tree(144, "2:1")), (12.0 / 24.0) * 143.0 / 120.0, kExact);
}

// 8/(c k) (N - 1)/N for k a multiple of 4 under the alternating half-way
// rule; k/(k + 2) of it for no-wrap; (N - 1)/N / (c L) with L = ((k/2)(k/2 - 1)/2
// + ceil(k/4))/k for k = 2 mod 4, where an odd number of sources share a
// channel's half-way traffic unevenly; 8k/(c(k^2 - 1)) (N - 1)/N for odd k:
// docs/network.md, "Tori: the bound".
TEST(UniformLoad, ATorusMeetsItsBisectionBound) {
  EXPECT_NEAR(bound_of(torus("8x8", 1)), 63.0 / 64.0, kExact);
  EXPECT_NEAR(bound_of(torus("8x8", 1, "no-wrap")), 0.8 * 63.0 / 64.0, kExact);
  EXPECT_NEAR(bound_of(torus("4x4", 4)), 0.5 * 63.0 / 64.0, kExact);
  EXPECT_NEAR(bound_of(torus("4x4", 4, "no-wrap")), (2.0 / 3.0) * 0.5 * 63.0 / 64.0, kExact);
  EXPECT_NEAR(bound_of(torus("6x6", 2)), 71.0 / 72.0 / (2.0 * 5.0 / 6.0), kExact);  // not 8/12: 9/10 of it
  EXPECT_NEAR(bound_of(torus("10x10", 1)), 99.0 / 100.0 / (13.0 / 10.0), kExact);   // (10 + 3)/10, not 10/8
  EXPECT_NEAR(bound_of(torus("7x7", 2)), 56.0 / 96.0 * 97.0 / 98.0, kExact);
  EXPECT_NEAR(bound_of(torus("4x4x4", 1)), 1.0, kExact);  // 8/4 = 2: the nodes' links bind
}

// m (N - 1)/N_g^2: docs/network.md, "Dragonfly+: the bound".
TEST(UniformLoad, ADragonflyPlusMeetsItsGlobalLinkBound) {
  EXPECT_NEAR(bound_of(dragonfly(5, 4, 1)), 79.0 / 256.0, kExact);
  EXPECT_NEAR(bound_of(dragonfly(9, 4, 2)), 143.0 / 256.0, kExact);
  EXPECT_NEAR(bound_of(dragonfly(5, 8, 2)), 2.0 * 159.0 / 1024.0, kExact);
}

// Every route walked pair by pair, each source offering its own link's
// rate: what uniform_load must add up to by other means.
std::vector<double> walked_loads(const Topology& topology, const std::vector<LinkEnds>& links,
                                 const std::vector<double>& rate) {
  std::map<std::pair<uint32_t, uint16_t>, size_t> link_of;
  for (size_t l = 0; l < links.size(); ++l) {
    if (links[l].from.kind == Kind::kSwitch) link_of[{links[l].from.index, links[l].from.port.value()}] = l;
  }
  std::vector<double> carried(links.size(), 0.0);
  const double share = 1.0 / (topology.nodes - 1);
  for (uint32_t s = 0; s < topology.nodes; ++s) {
    for (uint32_t d = 0; d < topology.nodes; ++d) {
      if (s == d) continue;
      carried[s] += rate[s] * share;
      for (const auto& [sw, port] : topology.route(NodeId(s), NodeId(d)))
        carried[link_of.at({sw, port.value()})] += rate[s] * share;
    }
  }
  for (size_t l = 0; l < links.size(); ++l) carried[l] /= rate[l];
  return carried;
}

void expect_walked_loads(const TopologyParams& params) {
  const Topology topology = build_topology(params);
  const std::vector<LinkEnds> links = links_of(topology);
  std::vector<double> rate;
  for (size_t l = 0; l < links.size(); ++l) rate.push_back(1.0 + static_cast<double>(l % 3));  // unequal rates
  const UniformLoad load = uniform_load(topology, links, rate);
  const std::vector<double> walked = walked_loads(topology, links, rate);
  double highest = 0.0;
  for (size_t l = 0; l < links.size(); ++l) {
    EXPECT_NEAR(load.per_link[l], walked[l], 1e-9 * std::max(1.0, walked[l])) << "link " << l;
    highest = std::max(highest, walked[l]);
  }
  EXPECT_NEAR(load.bound, 1.0 / highest, 1e-9);
  EXPECT_NEAR(load.per_link[load.binding_link], highest, 1e-9);
}

class ReferenceFabric : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceFabric, EveryRoutingsLoadsAreTheSumOfItsRoutes) {
  for (const char* routing : {"topology", "updn", "lft"}) {
    SCOPED_TRACE(routing);
    expect_walked_loads(testing::fabric_params(GetParam(), routing));
  }
}

INSTANTIATE_TEST_SUITE_P(Fabrics, ReferenceFabric, ::testing::ValuesIn(testing::reference_fabrics()));

TEST(UniformLoad, FtreesAndAdaptiveAndBuiltRoutesAreTheSumOfTheirRoutes) {
  for (const std::string& name : testing::ftree_fabrics()) {
    SCOPED_TRACE(name);
    expect_walked_loads(testing::fabric_params(name, "ftree"));
  }
  expect_walked_loads(torus("5x4x3", 2));
  expect_walked_loads(dragonfly(5, 4, 1));
  expect_walked_loads(built_tree(70, "2:1"));  // partly filled leaves
  TopologyParams adaptive = built_tree(96, "2:1");
  adaptive.adaptive = "minimal";
  expect_walked_loads(adaptive);  // the forwarding tables' own routes
}

TEST(UniformLoad, TablesThatLoopAreRefused) {
  Topology topology =
      build_topology(TopologyParams::of("fat-tree", 0, {{"network.fat_tree.k", 2}, {"network.fat_tree.n", 2}}));
  // Send node 3's packets from its leaf back up and from the spine back down the same way.
  const uint32_t leaf = topology.node_link[3].index;
  const PortId up = topology.switches[leaf].forwarding[0];
  const Endpoint spine = topology.switches[leaf].peer[up.value()];
  topology.switches[leaf].forwarding.set(3, up);
  topology.switches[spine.index].forwarding.set(3, spine.port);
  EXPECT_THROW(at_one_rate(topology), std::logic_error);
}

TEST(UniformLoad, AFabricOfOneNodeHasNoUniformTraffic) {
  const UniformLoad load = at_one_rate(build_topology(TopologyParams::of("single-switch", 1)));
  EXPECT_EQ(load.bound, 0.0);
}

}  // namespace
}  // namespace ibsec::network
