// Our minhop, updn and ftree against the tables OpenSM 3.3 programmed into the
// same fabric under ibsim (tests/fabrics/regenerate.sh), entry for entry,
// and the loaded tables (network.routing=lft) against both.
#include <gtest/gtest.h>

#include <sstream>

#include "core/errors.h"
#include "network/routing.h"
#include "network/routings/minhop.h"
#include "support/fabrics.h"

namespace ibsec {
namespace {

using network::Topology;
using testing::fabric_params;

std::string fabric_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::erase(name, '-');
  return name;
}

// Every (switch, destination) entry where the two table sets differ, one a
// line; empty when they are equal.
std::string table_differences(const Topology& ours, const Topology& opensm) {
  std::ostringstream differences;
  for (size_t s = 0; s < ours.switches.size(); ++s) {
    for (uint32_t node = 0; node < ours.nodes; ++node) {
      const PortId mine = ours.switches[s].forwarding[node];
      const PortId theirs = opensm.switches[s].forwarding[node];
      if (mine == theirs) continue;
      differences << network::switch_name(ours, static_cast<uint32_t>(s)) << ", destination LID "
                  << ours.subnet->node_lid[node] << ": port " << mine.value() << ", OpenSM's " << theirs.value()
                  << "\n";
    }
  }
  return differences.str();
}

// The route between every pair under both; the first pair that differs.
std::string route_differences(const Topology& a, const Topology& b) {
  for (uint32_t src = 0; src < a.nodes; ++src) {
    for (uint32_t dst = 0; dst < a.nodes; ++dst) {
      if (a.route(NodeId(src), NodeId(dst)) != b.route(NodeId(src), NodeId(dst)))
        return std::to_string(src) + " -> " + std::to_string(dst);
    }
  }
  return "";
}

std::string config_error_of(const network::TopologyParams& params) {
  try {
    network::build_topology(params);
  } catch (const ConfigError& e) {
    return e.field() + ": " + e.what();
  }
  return "";
}

class OpenSmRoutes : public ::testing::TestWithParam<std::string> {};

TEST_P(OpenSmRoutes, MinhopEqualsOpenSmsTablesEntryForEntry) {
  const Topology ours = network::build_topology(fabric_params(GetParam(), "minhop"));
  const Topology opensm = network::build_topology(fabric_params(GetParam(), "lft"));
  ASSERT_EQ(ours.switches.size(), opensm.switches.size());
  EXPECT_EQ(table_differences(ours, opensm), "");
}

TEST_P(OpenSmRoutes, LoadedTablesGiveTheSameRoutesAsMinhop) {
  const Topology ours = network::build_topology(fabric_params(GetParam()));
  const Topology loaded = network::build_topology(fabric_params(GetParam(), "lft"));
  EXPECT_EQ(route_differences(ours, loaded), "");
}

INSTANTIATE_TEST_SUITE_P(Fabrics, OpenSmRoutes, ::testing::ValuesIn(testing::reference_fabrics()), fabric_name);

class OpenSmUpdnRoutes : public ::testing::TestWithParam<std::string> {};

TEST_P(OpenSmUpdnRoutes, UpdnEqualsOpenSmsTablesEntryForEntry) {
  const Topology ours = network::build_topology(fabric_params(GetParam(), "updn"));
  const Topology opensm = network::build_topology(fabric_params(GetParam(), "lft", "updn"));
  ASSERT_EQ(ours.switches.size(), opensm.switches.size());
  EXPECT_EQ(table_differences(ours, opensm), "");
}

TEST_P(OpenSmUpdnRoutes, LoadedUpdnTablesGiveTheSameRoutesAsUpdn) {
  const Topology ours = network::build_topology(fabric_params(GetParam(), "updn"));
  const Topology loaded = network::build_topology(fabric_params(GetParam(), "lft", "updn"));
  EXPECT_EQ(route_differences(ours, loaded), "");
}

INSTANTIATE_TEST_SUITE_P(Fabrics, OpenSmUpdnRoutes, ::testing::ValuesIn(testing::updn_fabrics()), fabric_name);

class OpenSmFtreeRoutes : public ::testing::TestWithParam<std::string> {};

TEST_P(OpenSmFtreeRoutes, FtreeEqualsOpenSmsTablesEntryForEntry) {
  const Topology ours = network::build_topology(fabric_params(GetParam(), "ftree"));
  const Topology opensm = network::build_topology(fabric_params(GetParam(), "lft", "ftree"));
  ASSERT_EQ(ours.switches.size(), opensm.switches.size());
  EXPECT_EQ(table_differences(ours, opensm), "");
}

TEST_P(OpenSmFtreeRoutes, LoadedFtreeTablesGiveTheSameRoutesAsFtree) {
  const Topology ours = network::build_topology(fabric_params(GetParam(), "ftree"));
  const Topology loaded = network::build_topology(fabric_params(GetParam(), "lft", "ftree"));
  EXPECT_EQ(route_differences(ours, loaded), "");
}

// Fat-tree routes go up and then down only: the channel-dependency check
// (which build_topology also runs) finds no cycle in ours or OpenSM's.
TEST_P(OpenSmFtreeRoutes, FtreeTablesHaveNoDependencyCycle) {
  EXPECT_TRUE(network::dependency_cycle(network::build_topology(fabric_params(GetParam(), "ftree"))).empty());
  EXPECT_TRUE(network::dependency_cycle(network::build_topology(fabric_params(GetParam(), "lft", "ftree"))).empty());
}

// Ftree's own tables differ from minhop's: the comparison above would
// catch an engine that fell back to minhop.
TEST_P(OpenSmFtreeRoutes, FtreeDiffersFromMinhop) {
  const Topology ftree = network::build_topology(fabric_params(GetParam(), "ftree"));
  const Topology minhop = network::build_topology(fabric_params(GetParam(), "minhop"));
  EXPECT_NE(table_differences(ftree, minhop), "");
}

INSTANTIATE_TEST_SUITE_P(Fabrics, OpenSmFtreeRoutes, ::testing::ValuesIn(testing::ftree_fabrics()), fabric_name);

// Ftree on trees not read from a subnet (switch indices for GUIDs): a
// k-ary n-tree, a 2:1 tapered 2-level tree as built with its last leaf
// partly filled, and a full 3-level one (a partly filled pod has spines
// with fewer down-going groups, which OpenSM refuses); every pair routed,
// no dependency cycle.
TEST(FtreeOnGeneratedTrees, RoutesEveryPairWithoutADependencyCycle) {
  const std::vector<network::TopologyParams> trees{
      network::TopologyParams::of("fat-tree", 0, {{"network.fat_tree.k", 4}, {"network.fat_tree.n", 3}}),
      network::TopologyParams::of("fat-tree-built", 100,
                                  {{"network.fat_tree_built.radix", 36}, {"network.fat_tree_built.taper", "2:1"}}),
      network::TopologyParams::of("fat-tree-built", 0,
                                  {{"network.fat_tree_built.radix", 8}, {"network.fat_tree_built.levels", 3}}),
  };
  for (network::TopologyParams params : trees) {
    params.routing = "ftree";
    const std::string error = config_error_of(params);
    EXPECT_EQ(error, "") << params.name;
    if (!error.empty()) continue;
    const Topology topology = network::build_topology(params);
    EXPECT_TRUE(network::dependency_cycle(topology).empty()) << params.name;
    for (uint32_t src = 0; src < topology.nodes; ++src) {
      for (uint32_t dst = 0; dst < topology.nodes; ++dst)
        ASSERT_NO_THROW((void)topology.route(NodeId(src), NodeId(dst)));
    }
  }
}

// Where OpenSM's ftree finds no fat tree it routes minhop; ours refuses,
// naming the routing and the reason OpenSM gives (ERR AB0A on missing-link:
// its spines have 3 and 2 down-going port groups; ERR AB2B on the ring:
// every switch has nodes, so every one is a root).
TEST(FtreeRefusal, MissingLinkIsNotAFatTreeForOpenSm) {
  const std::string error = config_error_of(fabric_params("missing-link", "ftree"));
  EXPECT_EQ(error.rfind("network.routing: ", 0), 0U) << error;
  EXPECT_NE(error.find("different numbers of down-going port groups"), std::string::npos) << error;
  EXPECT_NE(error.find("minhop"), std::string::npos) << error;
}

TEST(FtreeRefusal, RingIsNotAFatTree) {
  const std::string error = config_error_of(fabric_params("ring", "ftree"));
  EXPECT_EQ(error.rfind("network.routing: ", 0), 0U) << error;
  EXPECT_NE(error.find("every switch has nodes"), std::string::npos) << error;
}

// The comparison above can fail: one entry of OpenSM's tables moved to
// another cabled port is one difference, named.
TEST(OpenSmTableComparison, OneChangedEntryIsReported) {
  const Topology ours = network::build_topology(fabric_params("missing-link", "updn"));
  Topology changed = network::build_topology(fabric_params("missing-link", "lft", "updn"));
  ASSERT_EQ(table_differences(ours, changed), "");
  network::Forwarding& entries = changed.switches[0].forwarding;
  entries.set(0, PortId(static_cast<uint16_t>(entries[0].value() == 1 ? 2 : 1)));
  const std::string differences = table_differences(ours, changed);
  EXPECT_EQ(std::ranges::count(differences, '\n'), 1) << differences;
  EXPECT_NE(differences.find("destination LID " + std::to_string(ours.subnet->node_lid[0])), std::string::npos);
}

// Updn where the fabrics differ: minhop's shortest paths round the ring
// close a channel-dependency cycle, ours and OpenSM's alike, and both are
// refused; updn's, from the root sw0, have none.
TEST(RingFabric, MinhopIsRefusedForADependencyCycle) {
  const std::string cycle = "the forwarding tables can deadlock: their channel-dependency graph has the cycle";
  EXPECT_NE(config_error_of(fabric_params("ring")).find(cycle), std::string::npos);
  EXPECT_NE(config_error_of(fabric_params("ring", "minhop")).find(cycle), std::string::npos);
  EXPECT_NE(config_error_of(fabric_params("ring", "lft", "minhop")).find(cycle), std::string::npos);
}

TEST(RingFabric, UpdnIsAcceptedWhereMinhopOnTheSameFabricHasACycle) {
  const Topology updn = network::build_topology(fabric_params("ring", "updn"));
  EXPECT_TRUE(network::dependency_cycle(updn).empty());
  Topology minhop = updn;
  network::route_minhop(minhop);
  EXPECT_FALSE(network::dependency_cycle(minhop).empty());
  EXPECT_NE(table_differences(updn, minhop), "");
}

TEST(RingFabric, UpdnWithoutRootsNamesTheParameter) {
  network::TopologyParams params = fabric_params("ring", "updn");
  params.routing_own = ParameterValues({{"network.updn.root_guids", nlohmann::json::array()}});
  const std::string error = config_error_of(params);
  EXPECT_EQ(error.rfind("network.updn.root_guids: ", 0), 0U) << error;
  EXPECT_NE(error.find("no switch looks like a root"), std::string::npos) << error;
}

TEST(RingFabric, AnUnknownRootGuidNamesTheParameter) {
  network::TopologyParams params = fabric_params("ring", "updn");
  for (const std::string guid : {"0x100000", "sw0"}) {
    params.routing_own = ParameterValues({{"network.updn.root_guids", nlohmann::json::array({guid})}});
    const std::string error = config_error_of(params);
    EXPECT_EQ(error.rfind("network.updn.root_guids: ", 0), 0U) << error;
    EXPECT_NE(error.find("\"" + guid + "\""), std::string::npos) << error;
  }
}

// Tori routed by OpenSM's torus-2QoS under ibsim (tests/fabrics/torus-*,
// docs/topology.md "torus"). The fabric as ibnetdiscover printed it, with
// the tables OpenSM programmed loaded as they are: not through
// build_topology, whose one-lane check refuses torus-2QoS's tables on the
// 4x4 (they rely on OpenSM's lanes per path).
Topology unchecked(const std::string& name, const std::string& engine) {
  const network::TopologyParams params = fabric_params(name, "lft", engine);
  Topology topology = network::TopologyRegistry::get(params.name).build(params);
  const network::RoutingEntry& lft = network::RoutingRegistry::get("lft");
  lft.route(topology, params.routing_own.subset(lft.parameters));
  return topology;
}

struct TorusFabric {
  const char* name;
  const char* dims;
  size_t half_way_entries;  // where the two half-way rules differ: sources at coordinates 1 and 2 of a ring of 4
};

void PrintTo(const TorusFabric& f, std::ostream* os) { *os << f.name; }

Topology our_torus(const TorusFabric& fabric, const char* half_way) {
  return network::build_topology(network::TopologyParams::of(
      "torus", 0, {{"network.torus.dims", fabric.dims}, {"network.torus.half_way", half_way}}));
}

// Every (switch, node) entry where ours, whose ports are InfiniBand's minus
// one (port 0 of a real switch is its own), differs from OpenSM's.
size_t torus_differences(const Topology& ours, const Topology& opensm, std::string* first = nullptr) {
  size_t count = 0;
  for (size_t s = 0; s < ours.switches.size(); ++s) {
    for (uint32_t node = 0; node < ours.nodes; ++node) {
      const uint32_t mine = ours.switches[s].forwarding[node].value() + 1U;
      const uint32_t theirs = opensm.switches[s].forwarding[node].value();
      if (mine == theirs) continue;
      if (count++ == 0 && first != nullptr) {
        *first = "switch " + std::to_string(s) + ", node " + std::to_string(node) + ": port " + std::to_string(mine) +
                 ", OpenSM's " + std::to_string(theirs);
      }
    }
  }
  return count;
}

class OpenSmTorus : public ::testing::TestWithParam<TorusFabric> {};

TEST_P(OpenSmTorus, TheFabricIsOurTorusCabledTheSameWay) {
  const Topology opensm = unchecked(GetParam().name, "torus-2QoS");
  const Topology ours = our_torus(GetParam(), "no-wrap");
  ASSERT_EQ(opensm.nodes, ours.nodes);
  ASSERT_EQ(opensm.switches.size(), ours.switches.size());
  // Nodes and switches in LID order are our node and switch numbers.
  for (uint32_t n = 0; n < ours.nodes; ++n) {
    EXPECT_EQ(opensm.node_link[n].index, ours.node_link[n].index) << "node " << n;
    EXPECT_EQ(opensm.node_link[n].port.value(), ours.node_link[n].port.value() + 1U) << "node " << n;
  }
  for (size_t s = 0; s < ours.switches.size(); ++s) {
    for (uint16_t p = 0; p < ours.switches[s].ports; ++p) {
      const network::Endpoint& mine = ours.switches[s].peer[p];
      const network::Endpoint& theirs = opensm.switches[s].peer[p + 1];
      EXPECT_EQ(theirs.kind, mine.kind);
      EXPECT_EQ(theirs.index, mine.index) << "switch " << s << " port " << p;
    }
  }
}

TEST_P(OpenSmTorus, NoWrapHalfWayEqualsTorus2QosEntryForEntry) {
  std::string first;
  EXPECT_EQ(torus_differences(our_torus(GetParam(), "no-wrap"), unchecked(GetParam().name, "torus-2QoS"), &first), 0U)
      << first;
}

TEST_P(OpenSmTorus, AlternateHalfWayDiffersOnlyThereAndEveryRouteIsAsLong) {
  const Topology ours = our_torus(GetParam(), "alternate");
  const Topology opensm = unchecked(GetParam().name, "torus-2QoS");
  EXPECT_EQ(torus_differences(ours, opensm), GetParam().half_way_entries);
  for (uint32_t src = 0; src < ours.nodes; ++src) {
    for (uint32_t dst = 0; dst < ours.nodes; ++dst) {
      ASSERT_EQ(ours.switch_hops(NodeId(src), NodeId(dst)), opensm.switch_hops(NodeId(src), NodeId(dst)))
          << src << " -> " << dst;
    }
  }
}

// OpenSM's minhop on the same tori equals ours entry for entry. Its tables
// turn between dimensions in any order, so on both tori they close a
// channel-dependency cycle on one lane, where dimension order has none
// (neither torus has a ring of 5).
TEST_P(OpenSmTorus, MinhopEqualsOpenSmsMinhop) {
  Topology ours = unchecked(GetParam().name, "minhop");
  const Topology opensm = ours;
  network::route_minhop(ours);
  EXPECT_EQ(table_differences(ours, opensm), "");
  EXPECT_FALSE(network::dependency_cycle(ours).empty());
  EXPECT_TRUE(network::dependency_cycle(our_torus(GetParam(), "alternate")).empty());
}

// 4x4: the rules differ half way round from coordinate 1 (to 3) and 2 (to
// 0). In x, the 8 switches at x = 1 or 2 for the 4 nodes (x + 2, any y); in
// y, the 8 at y = 1 or 2 for the 1 node (same x, y + 2): 40 entries.
INSTANTIATE_TEST_SUITE_P(Fabrics, OpenSmTorus,
                         ::testing::Values(TorusFabric{"torus-4x4", "4x4", 40}, TorusFabric{"torus-3x3x3", "3x3x3", 0}),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace ibsec
