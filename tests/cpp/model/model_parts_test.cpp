// The cycle-level model's plain-C++ parts, one at a time: configuration
// checking, card configurations by name, the latency histogram, the key
// memory's queue and the credit link.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/latency_histogram.h"
#include "core/random.h"
#include "network/credit_link.h"
#include "nic/key_memory.h"
#include "nic/security_mode.h"
#include "sim/config.h"

namespace ibsec {
namespace {

std::string failing_key(const std::vector<std::string>& overrides) {
  try {
    sim::load_config(nlohmann::json(), overrides);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(SimConfig, DefaultsAreThePapers) {
  const sim::SimConfig c = sim::load_config(nlohmann::json(), {});
  EXPECT_EQ(c.network.topology.nodes, 0U);  // the topology's own size:
  EXPECT_EQ(c.topology->nodes, 16U);        // the paper's 16 on one switch
  EXPECT_EQ(c.nic.mtu_bytes, 256U);
  EXPECT_EQ(c.nic.key_memory_access, 2'500'000U);
  EXPECT_EQ(c.nic.skc_access, 3'000U);
  EXPECT_EQ(c.nic.clock.period(), 3704U);
  EXPECT_EQ(c.nic.security.name(), "SKC-6");
  EXPECT_EQ(c.resolved["network"]["link_rate"], "SDR");
}

TEST(SimConfig, ACablesOwnRateBringsItsGenerationsFec) {
  const sim::SimConfig sdr = sim::load_config(nlohmann::json(), {});
  const network::LinkParams hdr = sdr.network.link(network::CableRate{"HDR", "2x"});
  EXPECT_EQ(hdr.serialization, network::SerializationRate(80, 1));  // 100 Gb/s
  EXPECT_EQ(hdr.propagation, 110'000U);                             // the cable and RS(544,514)
  EXPECT_EQ(sdr.network.link(std::nullopt).propagation, 10'000U);   // the fabric's own SDR
  const sim::SimConfig given = sim::load_config(nlohmann::json(), {"network.fec_latency_ns=7"});
  EXPECT_EQ(given.network.link(network::CableRate{"HDR", "4x"}).propagation, 17'000U);  // given: every link
}

TEST(SimConfig, SwitchAndFecLatencyFollowTheGenerationUnlessGiven) {
  const sim::SimConfig sdr = sim::load_config(nlohmann::json(), {});
  EXPECT_EQ(sdr.network.switch_latency(), 200'000U);  // InfiniScale III, as before link generations
  EXPECT_EQ(sdr.network.fec_latency(), 0U);
  EXPECT_EQ(sdr.network.link().propagation, 10'000U);
  EXPECT_EQ(sdr.network.link().serialization, network::SerializationRate(1000, 1));
  EXPECT_EQ(sdr.resolved["network"]["switch_latency_ns"], "generation");

  const sim::SimConfig hdr = sim::load_config(nlohmann::json(), {"network.link_rate=HDR", "network.link_width=2x"});
  EXPECT_EQ(hdr.network.switch_latency(), 130'000U);  // Quantum
  EXPECT_EQ(hdr.network.fec_latency(), 100'000U);     // RS(544,514)
  EXPECT_EQ(hdr.network.link().propagation, 110'000U);
  EXPECT_EQ(hdr.network.switches().traversal_latency, 130'000U);
  EXPECT_EQ(hdr.network.link().serialization, network::SerializationRate(80, 1));  // 100 Gb/s

  const sim::SimConfig given = sim::load_config(
      nlohmann::json(), {"network.link_rate=HDR", "network.switch_latency_ns=55.5", "network.fec_latency_ns=0"});
  EXPECT_EQ(given.network.switch_latency(), 55'500U);
  EXPECT_EQ(given.network.fec_latency(), 0U);
  const sim::SimConfig named = sim::load_config(nlohmann::json(), {"network.switch_latency_ns=generation"});
  EXPECT_EQ(named.network.switch_latency(), 200'000U);
}

TEST(SimConfig, ASwitchWithPortsOfTheirOwnRatesHasItsFastestPortsSilicon) {
  using network::CableRate;
  const std::vector<std::optional<CableRate>> ports{CableRate{"QDR", "4x"}, std::nullopt, CableRate{"HDR", "4x"},
                                                    CableRate{"EDR", "1x"}};
  const sim::SimConfig qdr = sim::load_config(nlohmann::json(), {"network.link_rate=QDR"});
  EXPECT_EQ(qdr.network.switches(ports).traversal_latency, 130'000U);  // HDR's Quantum, not QDR's 200 ns
  EXPECT_EQ(qdr.network.switches({}).traversal_latency, 200'000U);     // no rates of its own: the fabric's
  const sim::SimConfig given = sim::load_config(nlohmann::json(), {"network.switch_latency_ns=55.5"});
  EXPECT_EQ(given.network.switches(ports).traversal_latency, 55'500U);  // one given figure for every switch
}

TEST(SimConfig, FileThenOverridesWin) {
  const nlohmann::json file = {{"nic", {{"security", "NoSKC"}}}, {"traffic", {{"load", 0.3}}}};
  const sim::SimConfig c = sim::load_config(file, {"traffic.load=0.5", "traffic.sizes_bytes=[64,2048]"});
  EXPECT_EQ(c.nic.security.name(), "NoSKC");
  EXPECT_DOUBLE_EQ(c.traffic.load, 0.5);
  EXPECT_EQ(c.traffic.sizes_bytes, (std::vector<uint32_t>{64, 2048}));
  EXPECT_TRUE(c.traffic.size_weights.empty());  // equal weights
  EXPECT_EQ(c.resolved["traffic"]["load"], 0.5);
}

TEST(SimConfig, BadValuesNameTheirKey) {
  EXPECT_EQ(failing_key({"nic.securty=SKC-6"}), "nic.securty");
  EXPECT_EQ(failing_key({"network.topology=hypercube"}), "network.topology");
  EXPECT_EQ(failing_key({"network.link_rate=GDR"}), "network.link_rate");
  EXPECT_EQ(failing_key({"network.link_width=3x"}), "network.link_width");
  EXPECT_EQ(failing_key({"network.switch_latency_ns=fast"}), "network.switch_latency_ns");
  EXPECT_EQ(failing_key({"network.fec_latency_ns=-1"}), "network.fec_latency_ns");
  EXPECT_EQ(failing_key({"network.fec_latency_ns=true"}), "network.fec_latency_ns");
  EXPECT_EQ(failing_key({"network.link_delay_ns=-1"}), "network.link_delay_ns");
  EXPECT_EQ(failing_key({"network.switch_latency_ns=-5"}), "network.switch_latency_ns");
  EXPECT_EQ(failing_key({"nic.clock_mhz=0"}), "nic.clock_mhz");
  EXPECT_EQ(failing_key({"nic.key_memory_ns=fast"}), "nic.key_memory_ns");
  EXPECT_EQ(failing_key({"nic.security=SKC-0"}), "nic.security");
  EXPECT_EQ(failing_key({"nic.skc.policy=mru"}), "nic.skc.policy");
  EXPECT_EQ(failing_key({"nic.skc.policy=opt"}), "nic.skc.policy");
  EXPECT_EQ(failing_key({"network.virtual_lanes=16"}), "network.virtual_lanes");
  EXPECT_EQ(failing_key({"network.switch_arbitration=oldest"}), "network.switch_arbitration");
  EXPECT_EQ(failing_key({"network.switch_arbitration=oldest-first"}), "(accepted)");
  EXPECT_EQ(failing_key({"network.switch_speedup=0.5"}), "network.switch_speedup");
  EXPECT_EQ(failing_key({"network.switch_speedup=4.5"}), "network.switch_speedup");
  EXPECT_EQ(failing_key({"network.switch_speedup=fast"}), "network.switch_speedup");
  EXPECT_EQ(failing_key({"network.switch_speedup=2"}), "(accepted)");
  EXPECT_EQ(failing_key({"network.vl_buffer_bytes=128"}), "network.vl_buffer_bytes");
  EXPECT_EQ(failing_key({"traffic.load=0"}), "traffic.load");
  EXPECT_EQ(failing_key({"nic.mtu_bytes=0"}), "nic.mtu_bytes");
  EXPECT_EQ(failing_key({"nic.mtu_bytes=4097", "network.vl_buffer_bytes=8192"}), "nic.mtu_bytes");
  // A 4 096-byte MTU is 4 146 bytes on the wire with security: 65 credits.
  EXPECT_EQ(failing_key({"nic.mtu_bytes=4096"}), "network.vl_buffer_bytes");
  EXPECT_EQ(failing_key({"nic.mtu_bytes=4096", "network.vl_buffer_bytes=4160"}), "(accepted)");
  EXPECT_EQ(failing_key({"seed=-1"}), "seed");
  EXPECT_EQ(failing_key({"no-equals-sign"}), "--set");
}

TEST(SimConfig, AConfigMustBeAnObject) {
  EXPECT_THROW(sim::load_config(nlohmann::json::array({1, 2}), {}), ConfigError);
  EXPECT_THROW(sim::load_config(std::string("/nonexistent/ibsec.json"), {}), ConfigError);
}

TEST(SecurityMode, PaperNamesRoundTrip) {
  for (const char* name : {"NoSecurity", "NoSKC", "SKC-6", "SKC-10+Prefetch-8", "SKC-512"}) {
    EXPECT_EQ(nic::parse_security_mode(name).name(), name);
  }
  EXPECT_EQ(nic::parse_security_mode("SKC-10+Prefetch").prefetch_entries, nic::kPaperPrefetchEntries);
  EXPECT_FALSE(nic::parse_security_mode("NoSecurity").encrypts());
  for (const char* bad : {"skc-6", "SKC-", "SKC-6+", "SKC-6+Prefetch-0", "SKC-6x", "SKC--1", ""}) {
    EXPECT_THROW(nic::parse_security_mode(bad), ConfigError) << bad;
  }
}

TEST(SecurityMode, AMisspeltNameGetsTheNearestOne) {
  const auto message = [](const char* given) {
    try {
      nic::parse_security_mode(given, "nic.security");
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("NoSKc").find("did you mean 'NoSKC'?"), std::string::npos) << message("NoSKc");
  EXPECT_NE(message("noskc").find("did you mean 'NoSKC'?"), std::string::npos);
  EXPECT_NE(message("NoSecurty").find("did you mean 'NoSecurity'?"), std::string::npos);
  EXPECT_NE(message("skc-6").find("did you mean 'SKC-6'?"), std::string::npos);
  EXPECT_EQ(message("Blowfish").find("did you mean"), std::string::npos);
}

TEST(LatencyHistogram, QuantilesWithinTheStatedPrecision) {
  Rng rng(3);
  std::vector<Tick> samples;
  LatencyHistogram h;
  for (int i = 0; i < 100000; ++i) {
    const auto v = static_cast<Tick>(rng.exponential(500'000.0)) + 100'000;
    samples.push_back(v);
    h.add(v);
  }
  std::ranges::sort(samples);
  for (double q : {0.5, 0.9, 0.95, 0.99, 0.999}) {
    const auto exact = static_cast<double>(samples[static_cast<size_t>(std::ceil(q * samples.size())) - 1]);
    EXPECT_NEAR(static_cast<double>(h.quantile(q)), exact, exact / 128.0) << q;
  }
  EXPECT_EQ(h.min(), samples.front());
  EXPECT_EQ(h.max(), samples.back());
  uint64_t total = 0;
  Tick previous_high = 0;
  for (const auto& b : h.buckets()) {
    EXPECT_GE(b.low, previous_high);
    EXPECT_LT(b.low, b.high);
    previous_high = b.high;
    total += b.count;
  }
  EXPECT_EQ(total, samples.size());
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (Tick v : {5, 5, 7, 100, 127}) h.add(v);
  EXPECT_EQ(h.quantile(0.4), 5U);
  EXPECT_EQ(h.quantile(0.6), 7U);
  EXPECT_EQ(h.quantile(1.0), 127U);
  EXPECT_DOUBLE_EQ(h.mean(), 48.8);
}

TEST(KeyMemory, MissesQueueFirstComeFirstServed) {
  nic::KeyMemory memory(2500, 1);
  EXPECT_EQ(memory.access(0), 2500U);
  EXPECT_EQ(memory.access(100), 5000U);  // waits 2400
  EXPECT_EQ(memory.access(200), 7500U);  // waits 4800
  EXPECT_EQ(memory.access(10000), 12500U);
  EXPECT_EQ(memory.stats().accesses, 4U);
  EXPECT_EQ(memory.stats().queued, 2U);
  EXPECT_EQ(memory.stats().total_wait, 7200U);
  EXPECT_EQ(memory.stats().max_wait, 4800U);
}

struct FakeEnds : network::PacketReceiver, network::LinkSender {
  std::vector<std::pair<network::PacketHandle, Tick>> heads;
  std::vector<Tick> credit_wakes;
  void on_packet_head(PortId, network::PacketHandle p, Tick at) override { heads.emplace_back(p, at); }
  void on_credits_returned(PortId, Tick at) override { credit_wakes.push_back(at); }
};

TEST(CreditLink, SerializesDelaysAndCountsCreditsIn64ByteUnits) {
  FakeEnds ends;
  network::CreditLink link(network::LinkParams{network::SerializationRate(1000, 1), 10'000, 1, 10}, ends, PortId(0),
                           ends, PortId(3));
  network::Packet p;
  p.wire_bytes = 306;  // 5 credits
  ASSERT_TRUE(link.can_send(VirtualLane(0), p.wire_bytes, 0));
  EXPECT_EQ(link.send(network::PacketHandle(1), p, 0), 306'000U);
  EXPECT_EQ(ends.heads.back().second, 10'000U);
  EXPECT_FALSE(link.can_send(VirtualLane(0), p.wire_bytes, 300'000));  // still serializing
  ASSERT_TRUE(link.can_send(VirtualLane(0), p.wire_bytes, 306'000));
  link.send(network::PacketHandle(2), p, 306'000);
  // 10 credits are gone; the third packet must wait for a return.
  EXPECT_FALSE(link.can_send(VirtualLane(0), p.wire_bytes, 700'000));
  EXPECT_TRUE(ends.credit_wakes.empty());
  link.return_credits(VirtualLane(0), p.wire_bytes, 800'000, 800'000);
  ASSERT_EQ(ends.credit_wakes.size(), 1U);
  EXPECT_EQ(ends.credit_wakes[0], 810'000U);  // one propagation delay later
  EXPECT_FALSE(link.can_send(VirtualLane(0), p.wire_bytes, 809'999));
  EXPECT_TRUE(link.can_send(VirtualLane(0), p.wire_bytes, 810'000));
  EXPECT_EQ(link.credits_when_drained(VirtualLane(0)), 5U);
}

// On two lanes, the credits and up to two returns live in the credit line, as
// a ring: returns keep their order across its wrap, a third in flight moves
// them all to the queue kept apart, and a return handed back after the
// earlier ones landed finds the line free again. Whatever the returns' place,
// each lane's credits come back at their time and no earlier.
TEST(CreditLink, ReturnsInTheCreditLineKeepTheirOrderAcrossItsRingAndTheQueue) {
  FakeEnds ends;
  network::CreditLink link(network::LinkParams{network::SerializationRate(1000, 1), 1'000, 2, 4}, ends, PortId(0), ends,
                           PortId(1));
  network::Packet p;
  p.wire_bytes = 64;  // 1 credit
  Tick now = 0;
  for (uint32_t i = 0; i < 8; ++i) {  // every credit of both lanes
    p.lane = VirtualLane(static_cast<uint8_t>(i % 2));
    ASSERT_TRUE(link.can_send(p.lane, p.wire_bytes, now));
    now = link.send(network::PacketHandle(i), p, now);
  }
  ASSERT_EQ(link.credits_missing(), 8U);
  // Two in flight, then the first lands and a third comes: the ring wraps.
  link.return_credits(VirtualLane(0), 64, now, now);
  link.return_credits(VirtualLane(1), 64, now + 100, now);
  link.return_credits(VirtualLane(0), 64, now + 1'000, now + 1'000);  // lane 0's first landed at now + 1 000
  EXPECT_EQ(link.credits_when_drained(VirtualLane(0)), 2U);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(1)), 1U);
  EXPECT_FALSE(link.can_send(VirtualLane(1), 64, now + 1'099));
  EXPECT_TRUE(link.can_send(VirtualLane(1), 64, now + 1'100));
  EXPECT_FALSE(link.can_send(VirtualLane(0), 128, now + 1'999));
  EXPECT_TRUE(link.can_send(VirtualLane(0), 128, now + 2'000));
  // Three in flight at once: they move apart, in order, and come back as
  // before. The third is freed after the first two land, but handed back
  // before: they are not the sender's until then.
  link.return_credits(VirtualLane(1), 64, now + 3'000, now + 3'000);
  link.return_credits(VirtualLane(1), 64, now + 3'100, now + 3'000);
  link.return_credits(VirtualLane(0), 64, now + 4'500, now + 3'000);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(1)), 3U);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(0)), 3U);
  EXPECT_FALSE(link.can_send(VirtualLane(1), 192, now + 4'099));
  EXPECT_TRUE(link.can_send(VirtualLane(1), 192, now + 4'100));
  EXPECT_FALSE(link.can_send(VirtualLane(0), 192, now + 5'499));
  // A return handed back once all have landed is kept in the line again, and counted.
  link.return_credits(VirtualLane(1), 64, now + 6'000, now + 6'000);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(1)), 4U);
  EXPECT_EQ(link.credits_missing(), 1U);
  EXPECT_TRUE(link.can_send(VirtualLane(0), 192, now + 6'000));
  EXPECT_FALSE(link.can_send(VirtualLane(1), 256, now + 6'999));
  EXPECT_TRUE(link.can_send(VirtualLane(1), 256, now + 7'000));
  EXPECT_EQ(link.credits_missing(), 1U);
}

// Many returns in flight on several lanes (kept apart from the link's credit
// line once there are more than it holds, and lanes beyond the two it holds): every credit
// comes back, in order, to its own lane, and the queue works again once drained.
TEST(CreditLink, ReturnsManyCreditsInFlightOnEveryLaneInOrder) {
  FakeEnds ends;
  constexpr uint32_t kLanes = 4;
  network::CreditLink link(network::LinkParams{network::SerializationRate(1000, 1), 1'000, kLanes, 8}, ends, PortId(0),
                           ends, PortId(1));
  network::Packet p;
  p.wire_bytes = 64;  // 1 credit
  Tick now = 0;
  for (uint32_t i = 0; i < 8 * kLanes; ++i) {  // every credit of every lane
    p.lane = VirtualLane(static_cast<uint8_t>(i % kLanes));
    ASSERT_TRUE(link.can_send(p.lane, p.wire_bytes, now));
    now = link.send(network::PacketHandle(i), p, now);
  }
  EXPECT_EQ(link.credits_missing(), 8U * kLanes);
  // Lane 3's first return, then one a lane for 0..2: five in flight.
  link.return_credits(VirtualLane(3), 64, now, now);
  for (uint8_t lane = 0; lane < 3; ++lane) link.return_credits(VirtualLane(lane), 128, now + 100 * (lane + 1), now);
  link.return_credits(VirtualLane(3), 64, now + 400, now);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(3)), 2U);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(1)), 2U);
  EXPECT_EQ(link.credits_missing(), 8U * kLanes - 8);
  // Lane 1's credits land at now + 200 + 1 000; lane 2's not yet.
  EXPECT_FALSE(link.can_send(VirtualLane(1), 64, now + 1'199));
  EXPECT_TRUE(link.can_send(VirtualLane(1), 128, now + 1'200));
  EXPECT_FALSE(link.can_send(VirtualLane(2), 64, now + 1'200));
  EXPECT_TRUE(link.can_send(VirtualLane(3), 128, now + 1'400));
  EXPECT_EQ(link.credits_missing(), 8U * kLanes - 8);
  // Drained: a lone return is kept in the link again, and is counted.
  link.return_credits(VirtualLane(0), 64, now + 2'000, now + 2'000);
  EXPECT_EQ(link.credits_when_drained(VirtualLane(0)), 3U);
  EXPECT_FALSE(link.can_send(VirtualLane(0), 192, now + 2'999));
  EXPECT_TRUE(link.can_send(VirtualLane(0), 192, now + 3'000));
  EXPECT_EQ(link.credits_missing(), 8U * kLanes - 9);
}

}  // namespace
}  // namespace ibsec
