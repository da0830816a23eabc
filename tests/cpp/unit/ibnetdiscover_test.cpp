// The ibnetdiscover reader, the LFT loader and the deadlock check: a small
// fabric written out here, then each way its file or tables can be wrong,
// each refused with its file, line and field.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/errors.h"
#include "network/links.h"
#include "network/routing.h"
#include "network/topology.h"
#include "network/topology_wiring.h"
#include "support/config_refusal.h"
#include "support/scratch_files.h"

namespace ibsec::network {
namespace {

// Two 4-port switches cabled port 3 to port 3; CA "a" (one port) on switch
// a, CA "b" (two ports) on switch b. LIDs: switches 1, 2; CA ports 3, 4, 5.
const std::vector<std::string> kFabric = {
    R"(switchguid=0x10(10))",                                                        // 1
    R"(Switch	4 "S-0000000000000010"		# "sw-a" base port 0 lid 1 lmc 0)",  // 2
    R"([1]	"H-0000000000000020"[1](21) 		# "node-a" lid 3 4xSDR)",    // 3
    R"([3]	"S-0000000000000011"[3]		# "sw-b" lid 2 4xSDR)",              // 4
    "",                                                                              // 5
    R"(switchguid=0x11(11))",                                                        // 6
    R"(Switch	4 "S-0000000000000011"		# "sw-b" base port 0 lid 2 lmc 0)",  // 7
    R"([1]	"H-0000000000000030"[1](31) 		# "node-b" lid 4 4xSDR)",    // 8
    R"([2]	"H-0000000000000030"[2](32) 		# "node-b" lid 5 4xSDR)",    // 9
    R"([3]	"S-0000000000000010"[3]		# "sw-a" lid 1 4xSDR)",              // 10
    "",                                                                              // 11
    R"(caguid=0x20)",                                                                // 12
    R"(Ca	1 "H-0000000000000020"		# "node-a")",                        // 13
    R"([1](21) 	"S-0000000000000010"[1]		# lid 3 lmc 0 "sw-a" lid 1 4xSDR)",  // 14
    "",                                                                              // 15
    R"(caguid=0x30)",                                                                // 16
    R"(Ca	2 "H-0000000000000030"		# "node-b")",                        // 17
    R"([1](31) 	"S-0000000000000011"[1]		# lid 4 lmc 0 "sw-b" lid 2 4xSDR)",  // 18
    R"([2](32) 	"S-0000000000000011"[2]		# lid 5 lmc 0 "sw-b" lid 2 4xSDR)",  // 19
};

// The tables minhop gives that fabric, as ibroute prints them.
const std::vector<std::string> kTables = {
    "Unicast lids [0x0-0x5] of switch Lid 1 guid 0x0000000000000010 (sw-a):",  // 1
    "  Lid  Out   Destination",                                                // 2
    "       Port     Info ",                                                   // 3
    "0x0001 000 : (Switch portguid 0x0000000000000010: 'sw-a')",               // 4
    "0x0002 003 : (Switch portguid 0x0000000000000011: 'sw-b')",               // 5
    "0x0003 001 : (Channel Adapter portguid 0x0000000000000021: 'node-a')",    // 6
    "0x0004 003 : (Channel Adapter portguid 0x0000000000000031: 'node-b')",    // 7
    "0x0005 003 : (Channel Adapter portguid 0x0000000000000032: 'node-b')",    // 8
    "5 valid lids dumped ",                                                    // 9
    "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000000011 (sw-b):",  // 10
    "  Lid  Out   Destination",                                                // 11
    "       Port     Info ",                                                   // 12
    "0x0001 003",                                                              // 13
    "0x0002 000",                                                              // 14
    "0x0003 003",                                                              // 15
    "0x0004 001",                                                              // 16
    "0x0005 002",                                                              // 17
    "5 valid lids dumped ",                                                    // 18
};

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::vector<std::string> with_line(std::vector<std::string> lines, size_t number, const std::string& text) {
  lines.at(number - 1) = text;
  return lines;
}

std::string write(const std::string& name, const std::vector<std::string>& lines) {
  return testing::write_file(testing::scratch_dir("ibsec_ibnd_") / name, joined(lines));
}

TopologyParams fabric(const std::vector<std::string>& lines, const std::string& routing = kTopologyOwnRouting,
                      const std::vector<std::string>& tables = kTables) {
  TopologyParams params =
      TopologyParams::of("ibnetdiscover", 0, {{"network.ibnetdiscover.file", write("f.ibnd", lines)}});
  params.routing = routing;
  if (routing == "lft") params.routing_own = ParameterValues({{"network.lft.file", write("f.lft", tables)}});
  return params;
}

// The ConfigError building the topology throws, as "field: message".
std::string error_of(const TopologyParams& params) {
  try {
    (void)build_topology(params);
  } catch (const ConfigError& e) {
    return e.field() + ": " + e.what();
  }
  return "built";
}

void expect_error(const TopologyParams& params, const std::string& where, const std::string& problem) {
  const std::string error = error_of(params);
  EXPECT_NE(error.find(where), std::string::npos) << error;
  EXPECT_NE(error.find(problem), std::string::npos) << error;
}

TEST(Ibnetdiscover, ReadsSwitchesAndCaPortsInLidOrder) {
  const Topology topology = build_topology(fabric(kFabric));
  ASSERT_EQ(topology.nodes, 3U);
  ASSERT_EQ(topology.switches.size(), 2U);
  EXPECT_EQ(topology.subnet->node_lid, (std::vector<uint16_t>{3, 4, 5}));
  EXPECT_EQ(topology.subnet->switch_lid, (std::vector<uint16_t>{1, 2}));
  EXPECT_EQ(topology.subnet->switch_guid, (std::vector<uint64_t>{0x10, 0x11}));
  EXPECT_EQ(topology.subnet->link_rate, "SDR");
  EXPECT_EQ(topology.subnet->link_width, "4x");
  EXPECT_EQ(topology.switches[0].ports, 5U);  // InfiniBand's port numbers: 0 (management) and 1..4
  EXPECT_EQ(topology.node_link[0], (Endpoint{Endpoint::Kind::kSwitch, 0, PortId(1)}));
  EXPECT_EQ(topology.node_link[2], (Endpoint{Endpoint::Kind::kSwitch, 1, PortId(2)}));
  EXPECT_EQ(topology.switches[0].peer[3], (Endpoint{Endpoint::Kind::kSwitch, 1, PortId(3)}));
  EXPECT_EQ(topology.switches[0].peer[0].kind, Endpoint::Kind::kNone);
  const std::vector<std::pair<uint32_t, PortId>> route{{0, PortId(3)}, {1, PortId(2)}};
  EXPECT_EQ(topology.route(NodeId(0), NodeId(2)), route);
}

TEST(Ibnetdiscover, RefusesAMalformedLine) {
  expect_error(fabric(with_line(kFabric, 3, R"([1] H-0000000000000020 1)")), "f.ibnd:3: field 'line'",
               "not a device header");
}

TEST(Ibnetdiscover, RefusesAnUnknownDevice) {
  expect_error(fabric(with_line(kFabric, 3, R"([1]	"H-0000000000000099"[1](21) 		# "x" lid 3 4xSDR)")),
               "f.ibnd:3: field 'remote'", "unknown device \"H-0000000000000099\"");
}

TEST(Ibnetdiscover, RefusesAPortOutOfRange) {
  expect_error(
      fabric(with_line(kFabric, 3, R"([7]	"H-0000000000000020"[1](21) 		# "node-a" lid 3 4xSDR)")),
      "f.ibnd:3: field 'port'", "7 is out of range 1..4");
}

TEST(Ibnetdiscover, RefusesARemotePortOutOfRange) {
  expect_error(fabric(with_line(kFabric, 4, R"([3]	"S-0000000000000011"[9]		# "sw-b" lid 2 4xSDR)")),
               "f.ibnd:4: field 'remote port'", "does not exist");
}

TEST(Ibnetdiscover, RefusesEndsThatDisagree) {
  expect_error(fabric(with_line(kFabric, 10, R"([3]	"S-0000000000000010"[2]		# "sw-a" lid 1 4xSDR)")),
               "f.ibnd:4: field 'remote'", "but line 10 cables");
}

TEST(Ibnetdiscover, RefusesACableListedAtOneEndOnly) {
  expect_error(fabric(with_line(kFabric, 14, "")), "f.ibnd:3: field 'remote'", "is not listed at that end");
}

TEST(Ibnetdiscover, RefusesEndsOfDifferentRates) {
  expect_error(
      fabric(with_line(kFabric, 14, R"([1](21) 	"S-0000000000000010"[1]		# lid 3 lmc 0 "sw-a" lid 1 4xDDR)")),
      "f.ibnd:3: field 'rate'", "4xSDR here, 4xDDR at the other end (line 14)");
}

TEST(Ibnetdiscover, KeepsEveryCablesOwnRate) {
  // node-b's first port on 4xDDR, the switches' cable on 12xQDR; the rest 4xSDR.
  auto lines = with_line(kFabric, 8, R"([1]	"H-0000000000000030"[1](31) 		# "node-b" lid 4 4xDDR)");
  lines = with_line(lines, 18, R"([1](31) 	"S-0000000000000011"[1]		# lid 4 lmc 0 "sw-b" lid 2 4xDDR)");
  lines = with_line(lines, 4, R"([3]	"S-0000000000000011"[3]		# "sw-b" lid 2 12xQDR)");
  lines = with_line(lines, 10, R"([3]	"S-0000000000000010"[3]		# "sw-a" lid 1 12xQDR)");
  const Topology topology = build_topology(fabric(lines));
  const CableRate sdr{"SDR", "4x"};
  const CableRate ddr{"DDR", "4x"};
  const CableRate qdr{"QDR", "12x"};
  EXPECT_EQ(topology.node_rate, (std::vector<std::optional<CableRate>>{sdr, ddr, sdr}));
  EXPECT_EQ(topology.rate_at({Endpoint::Kind::kSwitch, 1, PortId(1)}), ddr);  // node 1's cable, switch end
  EXPECT_EQ(topology.rate_at({Endpoint::Kind::kSwitch, 0, PortId(3)}), qdr);
  EXPECT_EQ(topology.rate_at({Endpoint::Kind::kSwitch, 1, PortId(3)}), qdr);
  EXPECT_EQ(topology.rate_at({Endpoint::Kind::kSwitch, 0, PortId(0)}), std::nullopt);  // management port
  const std::vector<RateCount> counts = cable_rate_counts(topology);
  ASSERT_EQ(counts.size(), 3U);  // slowest first, one-way links
  EXPECT_EQ(counts[0].rate, sdr);
  EXPECT_EQ(counts[0].links, 4U);
  EXPECT_EQ(counts[1].rate, ddr);
  EXPECT_EQ(counts[1].links, 2U);
  EXPECT_EQ(counts[2].rate, qdr);
  EXPECT_EQ(counts[2].links, 2U);
}

TEST(Ibnetdiscover, RefusesAMalformedRate) {
  auto lines = with_line(kFabric, 3, R"([1]	"H-0000000000000020"[1](21) 		# "node-a" lid 3 QDR)");
  expect_error(fabric(lines), "f.ibnd:3: field 'rate'", "no width and speed (e.g. 4xQDR) at the end");
  lines = with_line(kFabric, 3, R"([1]	"H-0000000000000020"[1](21) 		# "node-a" lid 3 3xQDR)");
  expect_error(fabric(lines), "f.ibnd:3: field 'rate'", "unknown link width 3x");
}

TEST(Ibnetdiscover, RefusesAnUnmodelledSpeed) {
  auto lines = with_line(kFabric, 3, R"([1]	"H-0000000000000020"[1](21) 		# "node-a" lid 3 4xFDR10)");
  expect_error(fabric(lines), "f.ibnd:3: field 'rate'", "FDR10 is not a modelled generation");
}

TEST(Ibnetdiscover, RefusesALidGivenTwice) {
  expect_error(
      fabric(with_line(kFabric, 19, R"([2](32) 	"S-0000000000000011"[2]		# lid 4 lmc 0 "sw-b" lid 2 4xSDR)")),
      "f.ibnd:19: field 'lid'", "LID 4 is given twice (line 18)");
}

TEST(Ibnetdiscover, RefusesASwitchWithoutLid) {
  expect_error(fabric(with_line(kFabric, 2, R"(Switch	4 "S-0000000000000010"		# "sw-a" lid-less)")),
               "f.ibnd:2: field 'lid'", "a subnet manager must have assigned LIDs");
}

TEST(Ibnetdiscover, RefusesAPortListedTwice) {
  expect_error(fabric(with_line(kFabric, 4, kFabric[2])), "f.ibnd:4: field 'port'", "listed twice (line 3)");
}

TEST(Ibnetdiscover, RefusesRouters) {
  expect_error(fabric(with_line(kFabric, 13, R"(Rt	1 "H-0000000000000020"		# "node-a")")),
               "f.ibnd:13: field 'type'", "routers are not modelled");
}

TEST(Ibnetdiscover, RefusesAPortBeforeAnyHeader) {
  expect_error(fabric({kFabric[2]}), "f.ibnd:1: field 'port'", "before any Switch or Ca header");
}

TEST(Ibnetdiscover, RefusesAFabricWithoutNodes) {
  expect_error(fabric({"# nothing but a comment"}), "network.ibnetdiscover.file", "no Switch or Ca record");
}

TEST(Ibnetdiscover, RefusesANodeCountOtherThanTheFiles) {
  TopologyParams params = fabric(kFabric);
  params.nodes = 4;
  expect_error(params, "network.nodes", "the 3 cabled CA ports");
}

// --- loaded tables ---------------------------------------------------------

TEST(LoadedTables, EqualMinhopOnTheSmallFabric) {
  const Topology minhop = build_topology(fabric(kFabric));
  const Topology loaded = build_topology(fabric(kFabric, "lft"));
  for (size_t s = 0; s < minhop.switches.size(); ++s) {
    EXPECT_EQ(minhop.switches[s].forwarding, loaded.switches[s].forwarding) << "switch " << s;
  }
}

TEST(LoadedTables, NeedAFabricWithLids) {
  TopologyParams params = TopologyParams::of("fat-tree");
  params.routing = "lft";
  expect_error(params, "network.routing", "needs network.topology=ibnetdiscover");
}

TEST(LoadedTables, RefuseAnUnknownSwitch) {
  const auto tables = with_line(kTables, 10, "Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0000000000000099 (sw-x):");
  expect_error(fabric(kFabric, "lft", tables), "f.lft:10: field 'guid'", "is not a switch of");
}

TEST(LoadedTables, RefuseAPortOutOfRange) {
  expect_error(fabric(kFabric, "lft", with_line(kTables, 6, "0x0003 007")), "f.lft:6: field 'port'",
               "port 7 of a switch with ports 0..4");
}

TEST(LoadedTables, RefuseAnUnknownLid) {
  expect_error(fabric(kFabric, "lft", with_line(kTables, 8, "0x0009 003")), "f.lft:8: field 'lid'",
               "LID 9 is no switch or CA port");
}

TEST(LoadedTables, RefuseAMalformedLine) {
  expect_error(fabric(kFabric, "lft", with_line(kTables, 5, "0x0002 three")), "f.lft:5: field 'line'",
               "not a table header");
}

TEST(LoadedTables, RefuseASecondTableForOneSwitch) {
  expect_error(fabric(kFabric, "lft", with_line(kTables, 10, kTables[0])), "f.lft:10: field 'guid'",
               "a second table for this switch (the first at line 1)");
}

TEST(LoadedTables, RefuseAMissingSwitch) {
  const std::vector<std::string> first_only(kTables.begin(), kTables.begin() + 9);
  expect_error(fabric(kFabric, "lft", first_only), "f.lft: no table for switch 1 (LID 2)", "0x0000000000000011");
}

TEST(LoadedTables, RefuseALoop) {
  // Switch b sends LID 4 back to switch a, which sends it to switch b.
  expect_error(fabric(kFabric, "lft", with_line(kTables, 16, "0x0004 003")), "network.lft.file",
               "forwarding loop through switch 0 (LID 1)");
}

TEST(LoadedTables, RefuseAnUncabledPort) {
  expect_error(fabric(kFabric, "lft", with_line(kTables, 16, "0x0004 004")), "network.lft.file",
               "switch 1 (LID 2) forwards to port 4, which is not cabled");
}

// --- channel dependencies --------------------------------------------------

// Four switches in a ring, node i on switch i port 0, switch i port 2
// cabled to switch i+1 port 1; every packet goes clockwise. No route loops,
// but the clockwise channels wait on each other in a circle.
Topology clockwise_ring() {
  Topology ring{.name = "ring",
                .nodes = 4,
                .switches = {},
                .node_link = {},
                .subnet = {},
                .shape = {},
                .lanes_needed = 1,
                .lanes_needed_by = {},
                .node_rate = {}};
  ring.node_link.resize(4);
  for (uint32_t s = 0; s < 4; ++s) ring.switches.push_back(wiring::make_switch(3, 0, 4));
  for (uint32_t s = 0; s < 4; ++s) {
    wiring::connect(ring, wiring::node_card(s), wiring::switch_port(s, 0));
    wiring::connect(ring, wiring::switch_port(s, 2), wiring::switch_port((s + 1) % 4, 1));
    for (uint32_t dst = 0; dst < 4; ++dst) ring.switches[s].forwarding.set(dst, PortId(dst == s ? 0 : 2));
  }
  return ring;
}

TEST(DependencyCycle, FindsTheRingsCycle) {
  const std::vector<Channel> cycle = dependency_cycle(clockwise_ring());
  ASSERT_EQ(cycle.size(), 4U);
  for (const Channel& channel : cycle) EXPECT_EQ(channel.port, PortId(2));
}

TEST(DependencyCycle, RefusesTheRingNamingTheCycle) {
  const std::string message =
      testing::config_refusal([] { check_routes(clockwise_ring(), "network.lft.file"); }, "network.lft.file");
  EXPECT_NE(message.find("can deadlock"), std::string::npos) << message;
  EXPECT_NE(message.find("switch 0 port 2 -> switch 1 port 2"), std::string::npos) << message;
}

TEST(DependencyCycle, BreakingTheRingAtOneLinkMakesItAcyclic) {
  // Clockwise (port 2) to a higher switch, anticlockwise (port 1) to a
  // lower one: no route crosses the cable between switches 3 and 0, so the
  // ring is used as a line and every chain of dependencies ends.
  Topology ring = clockwise_ring();
  for (uint32_t s = 0; s < 4; ++s) {
    for (uint32_t dst = 0; dst < 4; ++dst) {
      if (dst != s) ring.switches[s].forwarding.set(dst, PortId(dst > s ? 2 : 1));
    }
  }
  EXPECT_TRUE(dependency_cycle(ring).empty());
}

TEST(DependencyCycle, NoneInAFatTree) {
  TopologyParams params = TopologyParams::of("fat-tree", 0, {{"network.fat_tree.n", 3}});
  EXPECT_TRUE(dependency_cycle(build_topology(params)).empty());
}

}  // namespace
}  // namespace ibsec::network
