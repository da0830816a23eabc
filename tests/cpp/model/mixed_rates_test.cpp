// A fabric read from ibnetdiscover whose cables run at different rates
// (tests/fabrics/mixed-rates.ibnd: two switches joined by a 4xFDR cable,
// nodes on 4xQDR and one on a degraded 1xQDR link). Single packets match
// the cut-through rule of docs/network.md ("Links of different rates") to
// the picosecond on routes from slow to fast links and back; a saturated
// run drains with every packet delivered and every credit back; the result
// counts throughput against each node's own link and says the fabric mixes
// rates.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/errors.h"
#include "support/closed_form.h"
#include "support/fabrics.h"
#include "support/model_support.h"
#include "support/saturation.h"

namespace ibsec {
namespace {

using namespace testing;

// One cable's byte time as an exact fraction of a picosecond: 8 bits over
// the data rate (docs/network.md, "Link generations").
struct Cable {
  uint64_t ps_numerator;
  uint64_t ps_denominator;
  [[nodiscard]] Tick serialization(uint32_t bytes) const {
    return (bytes * ps_numerator + ps_denominator - 1) / ps_denominator;
  }
};
constexpr Cable k4xQdr{250, 1};       // 32 Gb/s
constexpr Cable k1xQdr{1000, 1};      // 8 Gb/s
constexpr Cable k4xFdr{440, 3};       // 4 x 14.0625 Gbaud x 64/66 = 54.545 Gb/s
constexpr Tick kQdrSwitch = 200'000;  // QDR's (and FDR's) switch figure; no FEC on either

std::vector<std::string> on_mixed_fabric(std::vector<std::string> overrides) {
  overrides.insert(overrides.begin(), {"network.topology=ibnetdiscover",
                                       "network.ibnetdiscover.file=" + fabric_file("mixed-rates", ".ibnd"),
                                       "network.link_rate=QDR", "network.link_width=4x"});
  return overrides;
}

// When the tail of a packet of `wire_bytes`, sent at 0, reaches the card at
// the end of `route` (its cables in order). The head reaches a switch after
// one cable's propagation; the packet leaves one traversal later, or later
// still so that its tail leaves no earlier than one traversal after the
// tail arrived: start = max(head + L, tail + L - s_out). The tail then
// reaches the next hop s_out + propagation after the start.
Tick tail_at_card(uint32_t wire_bytes, const std::vector<Cable>& route) {
  Tick head = kWire;
  Tick tail = route.front().serialization(wire_bytes) + kWire;
  for (size_t i = 1; i < route.size(); ++i) {
    const Tick out = route[i].serialization(wire_bytes);
    const Tick start = std::max(head + kQdrSwitch, tail + kQdrSwitch > out ? tail + kQdrSwitch - out : 0);
    head = start + kWire;
    tail = start + out + kWire;
  }
  return tail;
}

// closed_form of support/closed_form.h with the fabric's part replaced by the route's.
Tick mixed_closed_form(Lookup lookup, Tick t0, const std::vector<Cable>& route) {
  const bool secure = lookup != Lookup::kNone;
  const Tick injected = injected_at(lookup, t0);
  const uint32_t wire_bytes = 256 + kHeaders + (secure ? kSecurityBytes : 0);
  const Tick tail = injected + tail_at_card(wire_bytes, route);
  return edge(key_ready(lookup, edge(tail))) + (secure ? kGcm256 : 0) - t0;
}

TEST(MixedRates, TheClosedFormByHand) {
  // 282 bytes (NoSecurity). Slow to fast on one switch: the 1xQDR tail
  // (282 ns) arrives at 292 ns; it may leave 200 ns later, so the 70.5 ns on
  // 4xQDR start at 492 - 70.5 = 421.5 ns, not at 210 ns.
  EXPECT_EQ(tail_at_card(282, {k1xQdr, k4xQdr}), 421'500U + 70'500 + 10'000);
  // Fast to slow: nothing holds it back (start at 210 ns), and the slow
  // link's serialization alone sets the tail: the same 502 ns.
  EXPECT_EQ(tail_at_card(282, {k4xQdr, k1xQdr}), 210'000U + 282'000 + 10'000);
  // 4xQDR, 4xFDR, 4xQDR: onto FDR at max(210, 80.5 + 200 - 41.36) = 239.14 ns,
  // back onto QDR at max(249.14 + 200, 290.5 + 200 - 70.5) = 449.14 ns.
  EXPECT_EQ(k4xFdr.serialization(282), 41'360U);
  EXPECT_EQ(tail_at_card(282, {k4xQdr, k4xFdr, k4xQdr}), 449'140U + 70'500 + 10'000);
  // With one rate throughout it is the uniform closed form.
  EXPECT_EQ(tail_at_card(282, {k4xQdr, k4xQdr, k4xQdr}), Fabric({250, 1}).network(282, 2));
}

// Sends two messages of 256 bytes on one session, the second long after the
// first, and returns both packets' latencies.
std::pair<Tick, Tick> two_packets(const std::vector<std::string>& overrides, uint32_t source, uint32_t destination) {
  const sim::SimConfig config = config_with(on_mixed_fabric(overrides));
  const Tick later = 10'000 * kPeriod;
  sim::Cluster cluster(config,
                       {message_at(0, source, destination, 256, 0), message_at(later, source, destination, 256, 1)});
  const sim::RunOutcome outcome = cluster.run();
  EXPECT_TRUE(outcome.drained);
  EXPECT_EQ(cluster.credits_missing(), 0U);
  const auto& delivered = cluster.scripted()->delivered();
  EXPECT_EQ(delivered.size(), 2U);
  if (delivered.size() != 2) return {0, 0};
  return {delivered[0].delivered - delivered[0].handover, delivered[1].delivered - delivered[1].handover};
}

// Nodes 0 (4xQDR) and 1 (1xQDR) on switch 0, 2 and 3 (4xQDR) on switch 1.
struct MixedRoute {
  const char* name;
  uint32_t source;
  uint32_t destination;
  std::vector<Cable> cables;
};

void PrintTo(const MixedRoute& route, std::ostream* os) { *os << route.name; }

const MixedRoute kRoutes[] = {
    {"FastToSlow", 0, 1, {k4xQdr, k1xQdr}},          {"SlowToFast", 1, 0, {k1xQdr, k4xQdr}},
    {"QdrFdrQdr", 0, 2, {k4xQdr, k4xFdr, k4xQdr}},   {"SlowFdrFast", 1, 3, {k1xQdr, k4xFdr, k4xQdr}},
    {"FastFdrSlow", 2, 1, {k4xQdr, k4xFdr, k1xQdr}},
};

// One route per test: SystemC elaborates one cluster per process.
class MixedRateRoute : public ::testing::TestWithParam<MixedRoute> {};

TEST_P(MixedRateRoute, NoSecurityMatchesTheClosedForm) {
  const MixedRoute& route = GetParam();
  const auto [first, second] = two_packets({"nic.security=NoSecurity"}, route.source, route.destination);
  EXPECT_EQ(first, mixed_closed_form(Lookup::kNone, 0, route.cables));
  EXPECT_EQ(second, mixed_closed_form(Lookup::kNone, 10'000 * kPeriod, route.cables));
}

TEST_P(MixedRateRoute, SecureCardsMatchTheClosedForm) {
  const MixedRoute& route = GetParam();
  const auto [first, second] = two_packets({"nic.security=SKC-6"}, route.source, route.destination);
  EXPECT_EQ(first, mixed_closed_form(Lookup::kSkcMiss, 0, route.cables));
  EXPECT_EQ(second, mixed_closed_form(Lookup::kSkcHit, 10'000 * kPeriod, route.cables));
}

INSTANTIATE_TEST_SUITE_P(MixedRates, MixedRateRoute, ::testing::ValuesIn(kRoutes),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(MixedRates, SaturatedFabricDrainsWithEveryCreditBack) {
  const Saturated s = saturate(on_mixed_fabric({"traffic.messages=20000", "network.virtual_lanes=2"}));
  expect_soak_survived(s);
  EXPECT_EQ(s.statistics["messages_delivered"], s.statistics["messages_handed_over"]);
  // Throughput counts against each node's own link: 32 + 8 + 32 + 32 Gb/s.
  const double per_node = s.statistics["accepted_gbps_per_node"];
  EXPECT_NEAR(s.statistics["accepted_throughput"].get<double>(), per_node * 4 / 104.0, 1e-9);
}

TEST(MixedRates, EachNodeOffersTheLoadOfItsOwnLink) {
  // traffic.load is a fraction of each node's own link: the 1xQDR node offers a quarter of what a 4xQDR one
  // does, so the fabric is offered the load of its 104 Gb/s of node links (at the fabric's 32 Gb/s each it
  // would be 0.2 x 128 / 104 = 0.246). The 1xQDR node receives a third of the others' 0.2 x 96 Gb/s, 6.4 of
  // its 8 Gb/s, so the fabric carries it all.
  const nlohmann::ordered_json result =
      run_here(on_mixed_fabric({"traffic.load=0.2", "nic.security=NoSecurity", "traffic.messages=20000"}));
  const auto& statistics = result["statistics"];
  EXPECT_NEAR(statistics["offered_throughput"].get<double>(), 0.2, 0.01);
  EXPECT_NEAR(statistics["accepted_throughput"].get<double>(), statistics["offered_throughput"].get<double>(), 0.01);
}

TEST(MixedRates, TheResultSaysWhichRatesTheFabricMixes) {
  const nlohmann::ordered_json result = run_here(on_mixed_fabric({"traffic.messages=200"}));
  const auto& topology = result["topology"];
  // One-way links: 3 node cables at 4xQDR, 1 at 1xQDR, the switches' one at 4xFDR.
  EXPECT_EQ(topology["links_at_1xQDR"], 2);
  EXPECT_EQ(topology["links_at_4xQDR"], 6);
  EXPECT_EQ(topology["links_at_4xFDR"], 2);
  EXPECT_EQ(topology["links"], 10);
  EXPECT_EQ(topology["topology_meta"]["links_at_4xFDR"]["unit"], "links");
}

// tests/fabrics/degraded-links: what ibnetdiscover printed for a 4xQDR fat
// tree under ibsim where one node's cable trained at 1x and one leaf-spine
// cable at DDR (ibsim's w= and s=), routed by OpenSM's tables.
std::vector<std::string> on_degraded_links(const char* messages) {
  return {"network.topology=ibnetdiscover",
          "network.ibnetdiscover.file=" + fabric_file("degraded-links", ".ibnd"),
          "network.routing=lft",
          "network.lft.file=" + opensm_tables("degraded-links", "minhop"),
          "network.link_rate=QDR",
          "network.virtual_lanes=2",
          messages};
}

TEST(MixedRates, AFabricIbsimTrainedAtSeveralRatesHasEachCablesRate) {
  const nlohmann::ordered_json result = run_here(on_degraded_links("traffic.messages=200"));
  const auto& topology = result["topology"];
  // One-way links: 5 node cables and 3 leaf-spine cables at 4xQDR, 1 node cable at 1xQDR, 1 leaf-spine at 4xDDR.
  EXPECT_EQ(topology["links_at_4xQDR"], 16);
  EXPECT_EQ(topology["links_at_1xQDR"], 2);
  EXPECT_EQ(topology["links_at_4xDDR"], 2);
  EXPECT_EQ(topology["links"], 20);
}

TEST(MixedRates, AFabricIbsimTrainedAtSeveralRatesDrainsSaturated) {
  expect_soak_survived(saturate(on_degraded_links("traffic.messages=20000")));
}

TEST(MixedRates, AFabricRateNotInTheFileIsRefused) {
  try {
    (void)config_with(on_mixed_fabric({"network.link_rate=EDR"}));
    FAIL() << "EDR is refused";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("network.link_rate"), std::string::npos) << message;
    EXPECT_NE(message.find("the fabric mixes 1xQDR (2 links), 4xQDR (6 links), 4xFDR (2 links), and 4xEDR is none of "
                           "them"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace ibsec
