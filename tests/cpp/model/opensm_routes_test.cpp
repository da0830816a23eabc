// Our minhop and updn against the tables OpenSM 3.3 programmed into the
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

// The comparison above can fail: one entry of OpenSM's tables moved to
// another cabled port is one difference, named.
TEST(OpenSmTableComparison, OneChangedEntryIsReported) {
  const Topology ours = network::build_topology(fabric_params("missing-link", "updn"));
  Topology changed = network::build_topology(fabric_params("missing-link", "lft", "updn"));
  ASSERT_EQ(table_differences(ours, changed), "");
  PortId& entry = changed.switches[0].forwarding[0];
  entry = PortId(static_cast<uint16_t>(entry.value() == 1 ? 2 : 1));
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

}  // namespace
}  // namespace ibsec
