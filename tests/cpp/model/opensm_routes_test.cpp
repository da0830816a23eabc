// Our minhop against the tables OpenSM 3.3 programmed into the same fabric
// under ibsim (tests/fabrics/regenerate.sh), entry for entry, and the
// loaded tables (network.routing=lft) against both.
#include <gtest/gtest.h>

#include "network/routing.h"
#include "support/fabrics.h"

namespace ibsec {
namespace {

using network::Topology;
using testing::fabric_params;

class OpenSmRoutes : public ::testing::TestWithParam<std::string> {};

TEST_P(OpenSmRoutes, MinhopEqualsOpenSmsTablesEntryForEntry) {
  const Topology ours = network::build_topology(fabric_params(GetParam(), "minhop"));
  const Topology opensm = network::build_topology(fabric_params(GetParam(), "lft"));
  ASSERT_EQ(ours.switches.size(), opensm.switches.size());
  size_t compared = 0;
  for (size_t s = 0; s < ours.switches.size(); ++s) {
    for (uint32_t node = 0; node < ours.nodes; ++node) {
      EXPECT_EQ(ours.switches[s].forwarding[node], opensm.switches[s].forwarding[node])
          << network::switch_name(ours, static_cast<uint32_t>(s)) << ", destination LID "
          << ours.subnet->node_lid[node];
      ++compared;
    }
  }
  EXPECT_EQ(compared, ours.switches.size() * ours.nodes);
}

TEST_P(OpenSmRoutes, LoadedTablesGiveTheSameRoutesAsMinhop) {
  const Topology ours = network::build_topology(fabric_params(GetParam()));
  const Topology loaded = network::build_topology(fabric_params(GetParam(), "lft"));
  for (uint32_t src = 0; src < ours.nodes; ++src) {
    for (uint32_t dst = 0; dst < ours.nodes; ++dst) {
      EXPECT_EQ(ours.route(NodeId(src), NodeId(dst)), loaded.route(NodeId(src), NodeId(dst))) << src << " -> " << dst;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fabrics, OpenSmRoutes, ::testing::ValuesIn(testing::reference_fabrics()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace ibsec
