// Zero-load latency against the closed form of docs/cic.md: key look-up and
// GCM at both ends on the card clock, plus serialization once and wire and
// switch delay per hop. A single packet crosses an idle network, so nothing
// queues and the model must match to the picosecond.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "network/topology.h"
#include "nic/gcm_unit.h"
#include "support/closed_form.h"
#include "support/fabrics.h"
#include "support/model_support.h"

namespace ibsec {
namespace {

using testing::config_with;
using testing::fabric_file;
using testing::fabric_params;
using testing::message_at;
using namespace testing;  // the closed form

// Sends two messages of `bytes` bytes on one session, the second long after
// the first, and returns both packets' latencies.
std::pair<Tick, Tick> two_packets(const std::vector<std::string>& overrides, uint32_t source, uint32_t destination,
                                  uint32_t bytes = 256) {
  const sim::SimConfig config = config_with(overrides);
  const Tick later = 10'000 * kPeriod;
  sim::Cluster cluster(
      config, {message_at(0, source, destination, bytes, 0), message_at(later, source, destination, bytes, 1)});
  const sim::RunOutcome outcome = cluster.run();
  EXPECT_TRUE(outcome.drained);
  const auto& delivered = cluster.scripted()->delivered();
  EXPECT_EQ(delivered.size(), 2U);
  if (delivered.size() != 2) return {0, 0};
  EXPECT_EQ(delivered[1].handover, later);
  return {delivered[0].delivered - delivered[0].handover, delivered[1].delivered - delivered[1].handover};
}

TEST(GcmTiming, PaperCycleCounts) {
  const nic::GcmTiming gcm;
  EXPECT_EQ(gcm.latency(256).count(), 30U);  // 12 + 15 further + length block + 2
  EXPECT_EQ(gcm.latency(16).count(), 15U);
  EXPECT_EQ(gcm.latency(32).count(), 16U);
  EXPECT_EQ(gcm.latency(2048).count(), 142U);
  // Both ends: 60 cycles at 270 MHz is about 222 ns.
  EXPECT_NEAR(ns_from_ticks(2 * Clock::from_mhz(270.0).ticks(gcm.latency(256))), 222.2, 0.1);
  EXPECT_EQ(gcm.occupancy(256, /*pipelined=*/true).count(), 17U);
  EXPECT_EQ(gcm.occupancy(256, /*pipelined=*/false).count(), 30U);
}

TEST(ZeroLoadLatency, NoSecuritySingleSwitch) {
  const auto [first, second] = two_packets({"nic.security=NoSecurity"}, 0, 1);
  EXPECT_EQ(first, closed_form(Lookup::kNone, 1, 0));
  EXPECT_EQ(second, closed_form(Lookup::kNone, 1, 10'000 * kPeriod));
  // Hand-computed: 282 B at 1 ns/B + 2 cables + 1 switch, already on edges.
  EXPECT_EQ(first, edge(282'000 + 20'000 + 200'000));
}

TEST(ZeroLoadLatency, NoSkcSingleSwitch) {
  const auto [first, second] = two_packets({"nic.security=NoSKC"}, 3, 9);
  EXPECT_EQ(first, closed_form(Lookup::kMemoryOnly, 1, 0));
  EXPECT_EQ(second, closed_form(Lookup::kMemoryOnly, 1, 10'000 * kPeriod));
}

TEST(ZeroLoadLatency, SkcMissThenHitSingleSwitch) {
  const auto [first, second] = two_packets({"nic.security=SKC-6"}, 2, 5);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, 1, 0));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod));
  // The security overhead of a hit is the look-ups and 60 GCM cycles at the
  // two ends, the 24 extra bytes on the wire, and clock alignment.
  EXPECT_GT(second, closed_form(Lookup::kNone, 1, 0) + 60 * kPeriod + 24 * kPsPerByte);
  EXPECT_LT(second, closed_form(Lookup::kNone, 1, 0) + 64 * kPeriod + 24 * kPsPerByte + 2 * kPeriod);
}

TEST(ZeroLoadLatency, FatTreeNeighboursCrossOneSwitch) {
  // 4-ary 2-tree: nodes 0 and 1 hang off the same leaf switch.
  const auto [first, second] = two_packets({"nic.security=SKC-6", "network.topology=fat-tree"}, 0, 1);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, 1, 0));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod));
}

struct CardMode {
  const char* name;
  Lookup cold;  // first packet of a session
  Lookup warm;  // a later one
};

// One design per process: each mode is its own test case.
class FatTreeAcrossTheTop : public ::testing::TestWithParam<CardMode> {};

TEST_P(FatTreeAcrossTheTop, CrossesThreeSwitches) {
  // Nodes 0 and 15 of a 4-ary 2-tree differ in the top digit: leaf, top, leaf.
  const CardMode mode = GetParam();
  const auto [first, second] =
      two_packets({std::string("nic.security=") + mode.name, "network.topology=fat-tree"}, 0, 15);
  EXPECT_EQ(first, closed_form(mode.cold, 3, 0));
  EXPECT_EQ(second, closed_form(mode.warm, 3, 10'000 * kPeriod));
}

INSTANTIATE_TEST_SUITE_P(ZeroLoadLatency, FatTreeAcrossTheTop,
                         ::testing::Values(CardMode{"NoSecurity", Lookup::kNone, Lookup::kNone},
                                           CardMode{"NoSKC", Lookup::kMemoryOnly, Lookup::kMemoryOnly},
                                           CardMode{"SKC-6", Lookup::kSkcMiss, Lookup::kSkcHit}),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::erase(name, '-');
                           return name;
                         });

TEST(ZeroLoadLatency, FourAryThreeTreeWorstCaseCrossesFiveSwitches) {
  const auto [first, second] = two_packets(
      {"nic.security=SKC-6", "network.topology=fat-tree", "network.fat_tree.n=3", "network.link_rate=QDR"}, 0, 63);
  // QDR: a quarter of the SDR serialization time.
  auto qdr = [](Lookup lookup, Tick t0) {
    const Tick injected = edge(key_ready(lookup, t0)) + kGcm256;
    const Tick tail = injected + (256 + kHeaders + kSecurityBytes) * 250 + 6 * kWire + 5 * kSwitch;
    return edge(key_ready(lookup, edge(tail))) + kGcm256 - t0;
  };
  EXPECT_EQ(first, qdr(Lookup::kSkcMiss, 0));
  EXPECT_EQ(second, qdr(Lookup::kSkcHit, 10'000 * kPeriod));
}

// Every link generation and width, as docs/network.md tabulates them: the
// time of a byte per lane as an exact fraction of a picosecond (8 bits / the
// published data rate per lane), what FEC adds to each cable, and the
// generation's switch traversal.
struct Generation {
  const char* name;
  uint64_t lane_ps_numerator;
  uint64_t lane_ps_denominator;
  Tick fec;
  Tick switch_latency;
};
const Generation kGenerations[] = {
    {"SDR", 4000, 1, 0, 200'000},     {"DDR", 2000, 1, 0, 200'000},     {"QDR", 1000, 1, 0, 200'000},
    {"FDR", 1760, 3, 0, 200'000},     {"EDR", 320, 1, 0, 200'000},      {"HDR", 160, 1, 100'000, 130'000},
    {"NDR", 80, 1, 100'000, 130'000}, {"XDR", 40, 1, 100'000, 100'000},
};
const std::pair<const char*, uint32_t> kWidths[] = {{"1x", 1}, {"2x", 2}, {"4x", 4}, {"8x", 8}, {"12x", 12}};

void PrintTo(const Generation& g, std::ostream* os) { *os << g.name; }

Fabric fabric_of(const Generation& g, uint32_t lanes) {
  return Fabric{g.lane_ps_numerator, g.lane_ps_denominator * lanes, kWire, g.fec, g.switch_latency};
}

struct GenerationAndWidth {
  Generation generation;
  std::pair<const char*, uint32_t> width;
};

std::vector<GenerationAndWidth> every_generation_and_width() {
  std::vector<GenerationAndWidth> all;
  for (const Generation& g : kGenerations) {
    for (const auto& w : kWidths) all.push_back({g, w});
  }
  return all;
}

void PrintTo(const GenerationAndWidth& link, std::ostream* os) {
  *os << link.generation.name << " " << link.width.first;
}

class EveryLink : public ::testing::TestWithParam<GenerationAndWidth> {};

TEST_P(EveryLink, OnePacketAcrossTheSingleSwitchMatchesTheClosedForm) {
  const auto [generation, width] = GetParam();
  const auto [first, second] = two_packets({"nic.security=SKC-6", std::string("network.link_rate=") + generation.name,
                                            std::string("network.link_width=") + width.first},
                                           2, 5);
  const Fabric fabric = fabric_of(generation, width.second);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, 1, 0, 256, fabric));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod, 256, fabric));
}

INSTANTIATE_TEST_SUITE_P(ZeroLoadLatency, EveryLink, ::testing::ValuesIn(every_generation_and_width()),
                         [](const auto& info) {
                           return std::string(info.param.generation.name) + "_" + info.param.width.first;
                         });

TEST(ZeroLoadLatency, FourLaneSdrIsTheFabricOfThePaper) {
  const Fabric sdr = fabric_of(kGenerations[0], 4);
  EXPECT_EQ(closed_form(Lookup::kSkcMiss, 1, 0, 256, sdr), closed_form(Lookup::kSkcMiss, 1, 0));
  EXPECT_EQ(sdr.serialization(306), 306 * kPsPerByte);
}

TEST(ZeroLoadLatency, GivenSwitchAndFecLatencyReplaceTheGenerations) {
  const auto [first, second] = two_packets({"nic.security=NoSecurity", "network.link_rate=NDR", "network.link_width=1x",
                                            "network.switch_latency_ns=42.5", "network.fec_latency_ns=7"},
                                           0, 1);
  const Fabric fabric{80, 1, kWire, 7'000, 42'500};
  EXPECT_EQ(first, closed_form(Lookup::kNone, 1, 0, 256, fabric));
  EXPECT_EQ(second, closed_form(Lookup::kNone, 1, 10'000 * kPeriod, 256, fabric));
  // Hand-computed: 282 B at 80 ps/B, two cables of 10 + 7 ns, one 42.5 ns switch, on card clock edges.
  EXPECT_EQ(first, edge(282 * 80 + 2 * 17'000 + 42'500));
}

TEST(ZeroLoadLatency, FecIsAddedOncePerCableAcrossFiveSwitches) {
  // 4-ary 3-tree, nodes 0 and 63: six cables and five switches at 4x HDR.
  const auto [first, second] = two_packets(
      {"nic.security=SKC-6", "network.topology=fat-tree", "network.fat_tree.n=3", "network.link_rate=HDR"}, 0, 63);
  const Fabric hdr = fabric_of(kGenerations[5], 4);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, 5, 0, 256, hdr));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, 5, 10'000 * kPeriod, 256, hdr));
}

// The largest InfiniBand MTU end to end: one 4 096-byte packet (4 146 bytes on
// the wire, 65 credits) through the single switch.
class LargestMtu : public ::testing::TestWithParam<Generation> {};

TEST_P(LargestMtu, OnePacketOfFourKilobytesMatchesTheClosedForm) {
  const Generation generation = GetParam();
  const auto [first, second] = two_packets({"nic.security=SKC-6", "nic.mtu_bytes=4096", "network.vl_buffer_bytes=4160",
                                            std::string("network.link_rate=") + generation.name},
                                           1, 7, 4096);
  const Fabric fabric = fabric_of(generation, 4);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, 1, 0, 4096, fabric));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod, 4096, fabric));
}

INSTANTIATE_TEST_SUITE_P(ZeroLoadLatency, LargestMtu, ::testing::ValuesIn(kGenerations),
                         [](const auto& info) { return std::string(info.param.name); });

// A real fabric read from ibnetdiscover (the 2:1 tapered fat tree of
// tests/fabrics/), routed by minhop and by OpenSM's own loaded tables: a
// packet to a node on the same leaf crosses one switch, to another leaf
// three, and the time is the closed form's for that many switches. One
// route per test: SystemC elaborates one cluster per process.
struct FabricRoute {
  const char* routing;
  uint32_t dst;       // from node 0
  uint32_t switches;  // the route crosses, by the fixture's tables
};

class RealFabric : public ::testing::TestWithParam<FabricRoute> {};

TEST_P(RealFabric, OnePacketMatchesTheClosedForm) {
  const FabricRoute route = GetParam();
  const network::Topology topology = network::build_topology(fabric_params("tapered-2to1", route.routing));
  ASSERT_EQ(topology.switch_hops(NodeId(0), NodeId(route.dst)), route.switches);
  std::vector<std::string> overrides{"nic.security=SKC-6", "network.topology=ibnetdiscover",
                                     "network.ibnetdiscover.file=" + fabric_file("tapered-2to1", ".ibnd"),
                                     std::string("network.routing=") + route.routing};
  if (std::string(route.routing) == "lft")
    overrides.push_back("network.lft.file=" + fabric_file("tapered-2to1", ".lft"));
  const auto [first, second] = two_packets(overrides, 0, route.dst);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, route.switches, 0));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, route.switches, 10'000 * kPeriod));
}

INSTANTIATE_TEST_SUITE_P(ZeroLoadLatency, RealFabric,
                         ::testing::Values(FabricRoute{"minhop", 1, 1}, FabricRoute{"minhop", 95, 3},
                                           FabricRoute{"lft", 1, 1}, FabricRoute{"lft", 40, 3}),
                         [](const auto& info) {
                           return std::string(info.param.routing) + "_to_node" + std::to_string(info.param.dst);
                         });

// From node 0 to `dst` on the fabric `overrides` describe, at 4x `link_rate`
// (SDR or HDR) with SKC-6 cards: the route crosses `switches` switches, and
// a first packet (a key-cache miss) and a second (a hit) each take the
// closed form's time for them, to the picosecond.
void expect_closed_form_route(std::vector<std::string> overrides, uint32_t dst, uint32_t switches,
                              const std::string& link_rate) {
  overrides.insert(overrides.end(), {"nic.security=SKC-6", "network.link_rate=" + link_rate});
  const sim::SimConfig config = config_with(overrides);
  ASSERT_NE(config.topology, nullptr);
  ASSERT_EQ(config.topology->switch_hops(NodeId(0), NodeId(dst)), switches);
  const auto [first, second] = two_packets(overrides, 0, dst);
  const Fabric fabric = fabric_of(link_rate == "HDR" ? kGenerations[5] : kGenerations[0], 4);
  EXPECT_EQ(first, closed_form(Lookup::kSkcMiss, switches, 0, 256, fabric));
  EXPECT_EQ(second, closed_form(Lookup::kSkcHit, switches, 10'000 * kPeriod, 256, fabric));
}

// Fat trees as built (network.topology=fat-tree-built): a packet to a node
// on its own leaf crosses 1 switch, to another leaf of its pod 3 (leaf,
// spine, leaf), to another pod of a 3-level tree 5 (and a core); the time
// is the closed form's for that many switches, at 4x SDR and at 4x HDR,
// where every one of the cables adds its FEC latency.
struct BuiltRoute {
  const char* name;
  std::vector<std::string> tree;  // the fat-tree-built overrides
  uint32_t dst;                   // from node 0
  uint32_t switches;              // the route crosses, by docs/topology.md
  const char* link_rate;
  const char* adaptive = "off";  // network.adaptive_routing: a choice of equally short ports, the same time
};

void PrintTo(const BuiltRoute& r, std::ostream* os) { *os << r.name; }

const std::vector<std::string> kTwoLevel2to1{"network.nodes=96", "network.fat_tree_built.taper=2:1"};
const std::vector<std::string> kThreeLevel8Port{"network.nodes=20", "network.fat_tree_built.radix=8",
                                                "network.fat_tree_built.levels=3"};
// Virtual output queues change nothing for a packet that waits for nobody.
const std::vector<std::string> kThreeLevel8PortVoq{"network.nodes=20", "network.fat_tree_built.radix=8",
                                                   "network.fat_tree_built.levels=3", "network.switch_buffers=voq"};

class BuiltFatTree : public ::testing::TestWithParam<BuiltRoute> {};

TEST_P(BuiltFatTree, OnePacketMatchesTheClosedForm) {
  const BuiltRoute route = GetParam();
  std::vector<std::string> overrides{"network.topology=fat-tree-built",
                                     std::string("network.adaptive_routing=") + route.adaptive};
  overrides.insert(overrides.end(), route.tree.begin(), route.tree.end());
  expect_closed_form_route(overrides, route.dst, route.switches, route.link_rate);
}

INSTANTIATE_TEST_SUITE_P(ZeroLoadLatency, BuiltFatTree,
                         ::testing::Values(BuiltRoute{"SameLeaf", kTwoLevel2to1, 23, 1, "SDR"},
                                           BuiltRoute{"AcrossSpines", kTwoLevel2to1, 95, 3, "SDR"},
                                           BuiltRoute{"AcrossSpinesHdr", kTwoLevel2to1, 50, 3, "HDR"},
                                           BuiltRoute{"ThreeLevelWithinPod", kThreeLevel8Port, 15, 3, "SDR"},
                                           BuiltRoute{"AcrossCores", kThreeLevel8Port, 19, 5, "SDR"},
                                           BuiltRoute{"AcrossCoresHdr", kThreeLevel8Port, 17, 5, "HDR"},
                                           BuiltRoute{"AcrossSpinesAdaptive", kTwoLevel2to1, 95, 3, "SDR", "minimal"},
                                           BuiltRoute{"AcrossCoresAdaptive", kThreeLevel8Port, 19, 5, "HDR", "minimal"},
                                           BuiltRoute{"AcrossCoresVoq", kThreeLevel8PortVoq, 19, 5, "SDR"},
                                           BuiltRoute{"AcrossCoresAdaptiveVoq", kThreeLevel8PortVoq, 17, 5, "HDR",
                                                      "minimal"}),
                         [](const auto& info) { return std::string(info.param.name); });

// Tori (network.topology=torus, 2 lanes for the datelines of rings of 5 or more): a packet
// crosses 1 + sum over dimensions of min(|d|, k - |d|) switches
// (docs/topology.md), on whatever lanes the datelines put it, and its time is
// the closed form's for that many switches.
struct TorusRoute {
  const char* name;
  const char* dims;
  uint32_t dst;       // from node 0, one node per switch: node = x + kx (y + ky z)
  uint32_t switches;  // 1 + the ring distances
  const char* link_rate;
};

void PrintTo(const TorusRoute& r, std::ostream* os) { *os << r.name; }

class TorusLatency : public ::testing::TestWithParam<TorusRoute> {};

TEST_P(TorusLatency, OnePacketMatchesTheClosedForm) {
  const TorusRoute route = GetParam();
  expect_closed_form_route(
      {"network.topology=torus", std::string("network.torus.dims=") + route.dims, "network.virtual_lanes=2"}, route.dst,
      route.switches, route.link_rate);
}

INSTANTIATE_TEST_SUITE_P(
    ZeroLoadLatency, TorusLatency,
    ::testing::Values(TorusRoute{"Neighbour", "4x4x4", 1, 2, "SDR"},
                      // (2,2,2): half-way round every ring, the diameter.
                      TorusRoute{"Diameter", "4x4x4", 42, 7, "SDR"}, TorusRoute{"DiameterHdr", "4x4x4", 42, 7, "HDR"},
                      // (5,5,5) of a 6x6x6: one hop - in each dimension, across all three datelines.
                      TorusRoute{"AcrossThreeDatelines", "6x6x6", 215, 4, "SDR"},
                      // (4,4,4): two hops - in each, across the datelines, on lane 1 from the first.
                      TorusRoute{"TwoHopsOnLaneOneInEachDimension", "6x6x6", 172, 7, "SDR"},
                      // (4,2) of an 8x5: 4 + 2 hops.
                      TorusRoute{"EightByFive", "8x5", 20, 7, "SDR"}, TorusRoute{"RingOfTwelve", "12", 7, 6, "SDR"}),
    [](const auto& info) { return std::string(info.param.name); });

// Dragonfly+ (network.topology=dragonfly-plus, its default: 5 groups of 4
// leaves and 4 spines, 4 nodes per leaf): minimal routes cross 1 switch on a
// leaf, 3 within a group and 4 across groups (docs/topology.md), and take the
// closed form's time for that many switches.
struct DragonflyRoute {
  const char* name;
  uint32_t dst;       // from node 0
  uint32_t switches;  // 1, 3 or 4
  const char* link_rate;
  const char* adaptive = "off";  // network.adaptive_routing
};

void PrintTo(const DragonflyRoute& r, std::ostream* os) { *os << r.name; }

class DragonflyLatency : public ::testing::TestWithParam<DragonflyRoute> {};

TEST_P(DragonflyLatency, OnePacketMatchesTheClosedForm) {
  const DragonflyRoute route = GetParam();
  expect_closed_form_route({"network.topology=dragonfly-plus",
                            std::string("network.adaptive_routing=") + route.adaptive, "network.virtual_lanes=2"},
                           route.dst, route.switches, route.link_rate);
}

INSTANTIATE_TEST_SUITE_P(ZeroLoadLatency, DragonflyLatency,
                         ::testing::Values(DragonflyRoute{"SameLeaf", 3, 1, "SDR"},
                                           DragonflyRoute{"SameGroup", 15, 3, "SDR"},
                                           DragonflyRoute{"NextGroup", 16, 4, "SDR"},
                                           DragonflyRoute{"LastGroup", 79, 4, "SDR"},
                                           DragonflyRoute{"LastGroupHdr", 79, 4, "HDR"},
                                           DragonflyRoute{"SameGroupAdaptive", 15, 3, "SDR", "minimal"},
                                           DragonflyRoute{"LastGroupAdaptive", 79, 4, "HDR", "minimal"},
                                           DragonflyRoute{"NextGroupUgal", 16, 4, "SDR", "ugal"},
                                           DragonflyRoute{"LastGroupUgalHdr", 79, 4, "HDR", "ugal"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ZeroLoadLatency, TorusOnOneLaneIsRefusedNamingTheCycle) {
  try {
    (void)config_with({"network.topology=torus", "network.torus.dims=8x8"});
    ADD_FAILURE() << "an 8x8 torus on one lane was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "network.virtual_lanes");
    EXPECT_NE(std::string(e.what()).find("needs 2 virtual lanes, got 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the cycle"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibsec
