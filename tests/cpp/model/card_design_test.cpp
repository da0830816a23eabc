// The card as a design space (docs/cic.md): zero-load closed forms for the GCM
// datapath width, the GCM clock, several engines, overlapping key memory
// requests and non-blocking look-ups, each to the picosecond; and saturated
// runs against the card-throughput closed form (nic/card_throughput.h),
// within 2 %.
#include <gtest/gtest.h>

#include "nic/card_throughput.h"
#include "nic/gcm_unit.h"
#include "support/closed_form.h"
#include "support/model_support.h"
#include "support/saturation.h"

namespace ibsec {
namespace {

using namespace testing;  // NOLINT: the closed form's constants

TEST(GcmTiming, WiderDatapathGeneralisesThePaperRule) {
  nic::GcmTiming gcm;
  gcm.bytes_per_cycle = 32;
  EXPECT_EQ(gcm.beats(256), 8U);
  EXPECT_EQ(gcm.latency(256).count(), 22U);  // 12 + 7 further + length block + 2
  EXPECT_EQ(gcm.occupancy(256, /*pipelined=*/true).count(), 9U);
  EXPECT_EQ(gcm.latency(1).count(), 15U);  // one beat, as with 16 B
  gcm.bytes_per_cycle = 64;
  EXPECT_EQ(gcm.latency(4096).count(), 12U + 63 + 1 + 2);
}

// One packet of `payload` bytes on a warm session (the second of two
// messages, far apart), from node 2 to node 5 of the paper's switch.
Tick warm_packet_latency(const std::vector<std::string>& overrides, uint32_t payload = 256) {
  const Tick later = 10'000 * kPeriod;
  sim::Cluster cluster(config_with(overrides), {message_at(0, 2, 5, payload, 0), message_at(later, 2, 5, payload, 1)});
  EXPECT_TRUE(cluster.run().drained);
  const auto& delivered = cluster.scripted()->delivered();
  EXPECT_EQ(delivered.size(), 2U);
  return delivered.size() == 2 ? delivered[1].delivered - delivered[1].handover : 0;
}

// A hit at both ends with the GCM on its own clock: each GCM stage starts on
// that clock's edge and hands the packet on at the card clock's next edge.
Tick hit_closed_form(Tick gcm_period, uint32_t gcm_cycles, uint32_t payload = 256) {
  auto gcm_edge = [gcm_period](Tick t) { return (t + gcm_period - 1) / gcm_period * gcm_period; };
  const Tick t0 = 10'000 * kPeriod;
  const Tick injected = edge(gcm_edge(t0 + kProbe) + gcm_cycles * gcm_period);
  const Tick tail = injected + (payload + kHeaders + kSecurityBytes) * kPsPerByte + 2 * kWire + kSwitch;
  return edge(gcm_edge(edge(tail) + kProbe) + gcm_cycles * gcm_period) - t0;
}

TEST(CardZeroLoad, DefaultsMatchThePaperClosedForm) {
  EXPECT_EQ(warm_packet_latency({"nic.security=SKC-6"}), closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod));
  EXPECT_EQ(hit_closed_form(kPeriod, 30), closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod));
}

TEST(CardZeroLoad, WiderGcmDatapath) {
  EXPECT_EQ(warm_packet_latency({"nic.security=SKC-6", "nic.gcm.bytes_per_cycle=32"}), hit_closed_form(kPeriod, 22));
}

TEST(CardZeroLoad, GcmOnItsOwnClock) {
  // 500 MHz: 2 000 ps cycles, not a multiple of the card's 3 704 ps.
  EXPECT_EQ(warm_packet_latency({"nic.security=SKC-6", "nic.gcm.clock_mhz=500"}), hit_closed_form(2000, 30));
}

TEST(CardZeroLoad, MoreEnginesDoNotChangeOnePacket) {
  EXPECT_EQ(warm_packet_latency({"nic.security=SKC-6", "nic.gcm.engines=4", "nic.lookup.outstanding_misses=4",
                                 "nic.key_memory.requests_in_flight=4"}),
            closed_form(Lookup::kSkcHit, 1, 10'000 * kPeriod));
}

// Two one-packet messages handed over together by node 0, to nodes 1 and 2
// (two sessions, both cold, NoSKC): when does the second leave the card?
// Its key read starts when the stage and the memory let it.
Tick second_key_ready(uint32_t outstanding, uint32_t in_flight) {
  // A blocking stage starts the second look-up when the first packet starts in its engine.
  if (outstanding == 1) return edge(kMemory) + kMemory;
  // A non-blocking one a cycle after the first; its read waits for a free memory slot.
  return in_flight > 1 ? kPeriod + kMemory : kMemory + kMemory;
}

Tick second_packet_latency(uint32_t outstanding, uint32_t in_flight) {
  sim::Cluster cluster(
      config_with({"nic.security=NoSKC", "nic.lookup.outstanding_misses=" + std::to_string(outstanding),
                   "nic.key_memory.requests_in_flight=" + std::to_string(in_flight)}),
      {message_at(0, 0, 1, 256, 0), message_at(0, 0, 2, 256, 1)});
  EXPECT_TRUE(cluster.run().drained);
  const auto& delivered = cluster.scripted()->delivered();
  EXPECT_EQ(delivered.size(), 2U);
  for (const auto& p : delivered) {
    if (p.destination == NodeId(2)) return p.delivered;
  }
  return 0;
}

// The second packet: GCM after its key (and after the first packet's 30
// cycles on the one engine), then the link after the first packet's
// serialization, then an idle receiver with its own key read.
Tick second_closed_form(uint32_t outstanding, uint32_t in_flight) {
  const Tick first_gcm_start = edge(kMemory);
  const Tick gcm_start = edge(std::max(second_key_ready(outstanding, in_flight), first_gcm_start + kGcm256));
  const Tick first_injected = first_gcm_start + kGcm256;
  const Tick wire = (256 + kHeaders + kSecurityBytes) * kPsPerByte;
  const Tick injected = edge(std::max(gcm_start + kGcm256, first_injected + wire));
  const Tick tail = injected + wire + 2 * kWire + kSwitch;
  return edge(edge(tail) + kMemory) + kGcm256;
}

class OverlappedKeyReads : public ::testing::TestWithParam<std::pair<uint32_t, uint32_t>> {};

TEST_P(OverlappedKeyReads, SecondPacketMatchesTheClosedForm) {
  const auto [outstanding, in_flight] = GetParam();
  EXPECT_EQ(second_packet_latency(outstanding, in_flight), second_closed_form(outstanding, in_flight));
}

INSTANTIATE_TEST_SUITE_P(CardZeroLoad, OverlappedKeyReads,
                         ::testing::Values(std::pair{1U, 1U}, std::pair{1U, 2U}, std::pair{2U, 1U}, std::pair{2U, 2U}),
                         [](const auto& info) {
                           return "misses" + std::to_string(info.param.first) + "_slots" +
                                  std::to_string(info.param.second);
                         });

TEST(CardZeroLoad, PacketLatencyStartsAtTheLookUpStage) {
  // A two-packet message: the second packet waits at the sending card for
  // the first one's GCM time, which message-level latency counts and
  // per-packet latency does not.
  sim::Cluster cluster(config_with({"nic.security=SKC-6"}), {message_at(kPeriod / 2, 2, 5, 512, 0)});
  const sim::RunOutcome outcome = cluster.run();
  ASSERT_TRUE(outcome.drained);
  const auto& delivered = cluster.scripted()->delivered();
  ASSERT_EQ(delivered.size(), 2U);
  const auto& second = delivered[1];
  // The first (a miss) left the stage for its engine when its key came.
  EXPECT_EQ(second.lookup_started, edge(kPeriod + kProbe + kMemory));
  EXPECT_EQ(delivered[0].lookup_started, kPeriod);  // the first edge after hand-over
  const auto stats = cluster.result(outcome)["statistics"];
  const double message_mean = stats["latency_mean_ns"];
  const double packet_mean = stats["packet_latency_mean_ns"];
  const double waited_ns =
      ns_from_ticks((delivered[0].lookup_started - delivered[0].handover) + (second.lookup_started - second.handover));
  EXPECT_NEAR(message_mean - packet_mean, waited_ns / 2, 1e-6);
}

// Saturated runs on a permutation (node i sends to i + 1: no contention in
// the switch), so the card is the only limit.
struct SaturationCase {
  const char* name;
  std::vector<std::string> overrides;
  double miss_rate;
};

void PrintTo(const SaturationCase& c, std::ostream* out) { *out << c.name; }

class CardSaturation : public ::testing::TestWithParam<SaturationCase> {};

TEST_P(CardSaturation, AcceptedRateMatchesTheClosedForm) {
  const SaturationCase& c = GetParam();
  std::vector<std::string> overrides{"traffic.pattern=shift", "traffic.messages=60000", "traffic.warmup_messages=6000"};
  overrides.insert(overrides.end(), c.overrides.begin(), c.overrides.end());
  const Saturated s = saturate(overrides);
  ASSERT_TRUE(s.outcome.drained);
  const sim::SimConfig config = config_with(overrides);
  nic::CardLoad load;
  load.payload_bytes = 256;
  load.link_ps_per_packet =
      static_cast<double>(config.network.link().serialization.ticks(256 + kHeaders + kSecurityBytes));
  load.miss_rate = c.miss_rate;
  const nic::CardRateBounds bounds = nic::card_rate_bounds(config.nic, load);
  const double predicted_gbps = bounds.sustainable() * 256 * 8 / 1e9;
  const double accepted_gbps = s.statistics["accepted_gbps_per_node"];
  EXPECT_NEAR(accepted_gbps / predicted_gbps, 1.0, 0.02)
      << "link " << bounds.link << " gcm " << bounds.gcm << " lookup " << bounds.lookup << " memory "
      << bounds.key_memory << " packets/s";
  EXPECT_GT(s.statistics["offers_refused"].get<uint64_t>(), 0U) << "the sources were not saturated";
  EXPECT_EQ(s.statistics["out_of_order_packets"], 0);
}

INSTANTIATE_TEST_SUITE_P(
    CardThroughput, CardSaturation,
    ::testing::Values(
        // One unpipelined engine at QDR: GCM-bound (30 cycles a packet).
        SaturationCase{"OneEngineQdr", {"nic.security=SKC-6", "network.link_rate=QDR"}, 0.0},
        // Two engines: the QDR link is the limit again.
        SaturationCase{"TwoEnginesQdr", {"nic.security=SKC-6", "network.link_rate=QDR", "nic.gcm.engines=2"}, 0.0},
        // Thirty-two engines at 4x NDR: the link is the limit (two card
        // cycles a packet). A permutation keeps one session per direction, so
        // only the cold misses, 2.5 us each, are not at the limit: the run is
        // long enough that they are outside the window.
        SaturationCase{"ManyEnginesNdr",
                       {"nic.security=SKC-6", "network.link_rate=NDR", "nic.gcm.engines=32",
                        "network.vl_buffer_bytes=65536", "traffic.messages=300000", "traffic.warmup_messages=60000"},
                       0.0},
        // The same with the GCM on a 2 GHz clock of its own.
        SaturationCase{"FastGcmClockNdr",
                       {"nic.security=SKC-6", "network.link_rate=NDR", "nic.gcm.engines=32", "nic.gcm.clock_mhz=2000",
                        "network.vl_buffer_bytes=65536", "traffic.messages=300000", "traffic.warmup_messages=60000"},
                       0.0},
        // Pipelined at 8 B a cycle: 33 beats a packet.
        SaturationCase{
            "NarrowPipelinedQdr",
            {"nic.security=SKC-6", "network.link_rate=QDR", "nic.gcm.pipelined=true", "nic.gcm.bytes_per_cycle=8"},
            0.0},
        // No SKC, the paper's card: one key read at a time for both directions.
        SaturationCase{"NoSkcBlocking", {"nic.security=NoSKC"}, 1.0},
        // Four memory slots, eight outstanding misses: memory-bound.
        SaturationCase{"NoSkcFourSlots",
                       {"nic.security=NoSKC", "nic.key_memory.requests_in_flight=4", "nic.lookup.outstanding_misses=8"},
                       1.0},
        // Eight slots, two outstanding misses: the look-up stage is the limit.
        SaturationCase{"NoSkcTwoOutstanding",
                       {"nic.security=NoSKC", "nic.key_memory.requests_in_flight=8", "nic.lookup.outstanding_misses=2"},
                       1.0}),
    [](const auto& info) { return std::string(info.param.name); });

// The GCM stage holds eight packets per engine: with thirty-two engines at
// 4x NDR the card carries far more than eight packets per GCM latency, which
// a stage of eight places (one engine's share) would cap at about 147 Gb/s.
TEST(CardThroughput, GcmStagePlacesGrowWithTheEngines) {
  const std::vector<std::string> overrides{
      "traffic.pattern=shift", "traffic.messages=30000", "traffic.warmup_messages=3000", "nic.security=SKC-6",
      "network.link_rate=NDR", "nic.gcm.engines=32",     "network.vl_buffer_bytes=65536"};
  const Saturated s = saturate(overrides);
  ASSERT_TRUE(s.outcome.drained);
  const sim::SimConfig config = config_with(overrides);
  const double latency_ps = static_cast<double>(config.nic.clock.ticks(config.nic.gcm.latency(256)));
  const double eight_places_gbps = 8 * 256 * 8 / latency_ps * 1e3;
  EXPECT_GT(s.statistics["accepted_gbps_per_node"].get<double>(), 1.25 * eight_places_gbps);
}

}  // namespace
}  // namespace ibsec
