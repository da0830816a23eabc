// Crossbar speedup (network.switch_speedup; docs/network.md, "Crossbar
// speedup"): an input port moves a packet across the crossbar that many times
// faster than its link, so it may start its next packet before the last one's
// tail has left the output. To the picosecond on one switch, and what it does
// to the 8x8 torus with one node a switch, whose node links and ring channels
// bind together.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/closed_form.h"
#include "support/model_support.h"
#include "support/saturation.h"

namespace ibsec {
namespace {

using namespace testing;  // the closed form

constexpr Tick kPacket = (256 + kHeaders) * kPsPerByte;  // 282 ns on 4x SDR
constexpr Tick kSecond = 27 * kPeriod;                   // about 100 ns, on a card clock edge

// Node 2 sends to node 1 at 0 (X); node 0 sends to node 1 (A) and then to
// node 3 (B) at kSecond. A waits in the switch for X to leave output 1, and B
// behind it waits for input 0, which A holds while it crosses. Returns the
// latency of B.
Tick latency_behind_a_waiting_packet(double speedup) {
  const sim::SimConfig config =
      config_with({"nic.security=NoSecurity", "network.switch_speedup=" + std::to_string(speedup)});
  sim::Cluster cluster(
      config, {message_at(0, 2, 1, 256, 0), message_at(kSecond, 0, 1, 256, 1), message_at(kSecond, 0, 3, 256, 2)});
  const sim::RunOutcome outcome = cluster.run();
  EXPECT_TRUE(outcome.drained);
  const auto& delivered = cluster.scripted()->delivered();
  const auto b = std::ranges::find_if(delivered, [](const network::Packet& p) { return p.message == 2; });
  if (b == delivered.end()) {
    ADD_FAILURE() << "B was not delivered";
    return 0;
  }
  return b->delivered - b->handover;
}

// When input 0 is free again for B, at speedup 1 or 2 (A's grant at X's tail).
struct Timeline {
  Tick a_granted = kWire + kSwitch + kPacket;  // X routed at kWire + kSwitch, its tail gone a packet later
  Tick a_tail_in = kSecond + kPacket + kWire;
  Tick b_routed = edge(kSecond + kPacket) + kWire + kSwitch;  // the card sends B on the edge after A's tail
  [[nodiscard]] Tick input_free(double speedup) const {
    return speedup == 1.0 ? a_granted + kPacket  // the tail has left the output
                          : std::max(a_tail_in, a_granted + kPacket / 2);
  }
  [[nodiscard]] Tick b_latency(double speedup) const {
    const Tick b_tail_out = std::max(b_routed, input_free(speedup)) + kPacket;
    return edge(b_tail_out + kWire) - kSecond;
  }
};

// One run a test: SystemC elaborates one design per process.
TEST(CrossbarSpeedup, AtOneAnInputIsHeldUntilTheTailHasLeftTheOutput) {
  const Timeline t;
  ASSERT_LT(t.b_routed, t.input_free(1.0)) << "B must wait for its input";
  EXPECT_EQ(latency_behind_a_waiting_packet(1.0), t.b_latency(1.0));
}

TEST(CrossbarSpeedup, AtTwoAnInputStartsItsNextPacketHalfway) {
  const Timeline t;
  ASSERT_LT(t.b_routed, t.input_free(2.0)) << "B must wait for its input";
  EXPECT_EQ(latency_behind_a_waiting_packet(2.0), t.b_latency(2.0));
  EXPECT_GT(t.b_latency(1.0) - t.b_latency(2.0), kPacket / 2 - kPeriod);
}

TEST(CrossbarSpeedup, APacketAloneTakesTheClosedForm) {
  const sim::SimConfig config = config_with(
      {"nic.security=NoSecurity", "network.switch_speedup=2", "network.topology=fat-tree", "network.fat_tree.n=3"});
  sim::Cluster cluster(config, {message_at(0, 0, 63, 256, 0)});
  EXPECT_TRUE(cluster.run().drained);
  ASSERT_EQ(cluster.scripted()->delivered().size(), 1U);
  const network::Packet& p = cluster.scripted()->delivered()[0];
  EXPECT_EQ(p.delivered - p.handover, closed_form(Lookup::kNone, 5, 0));
}

// The 8x8 torus with one node a switch: the node links (bound 1) and the ring
// channels (0.984) bind together, so every output of a switch is nearly always
// wanted, and an input that feeds one output until the tail has left cannot
// keep them all busy. VOQ 16 KiB, 15 lanes, 200 000 messages: 0.89 of the
// bound at speedup 1, 0.97 at 2 (0.98 over 400 000).
std::vector<std::string> eight_by_eight(const std::string& speedup) {
  return {"network.topology=torus",           "network.torus.dims=8x8",        "network.virtual_lanes=15",
          "network.switch_buffers=voq",       "network.vl_buffer_bytes=16384", "traffic.messages=200000",
          "network.switch_speedup=" + speedup};
}
const double kEightByEightBound = torus_bound(64, 1, 8);  // 0.984

TEST(CrossbarSpeedup, TwoTakesTheEightByEightTorusWithOneNodeASwitchToItsBound) {
  const Saturated s = saturate(eight_by_eight("2"));
  expect_soak_survived(s);
  const double accepted = accepted_payload(s);
  EXPECT_LE(accepted, kEightByEightBound);
  EXPECT_GT(accepted / kEightByEightBound, 0.95) << "accepted " << accepted;
}

TEST(CrossbarSpeedup, WithoutItTheEightByEightTorusStopsATenthShort) {
  const Saturated s = saturate(eight_by_eight("1"));
  expect_soak_survived(s);
  const double ratio = accepted_payload(s) / kEightByEightBound;
  EXPECT_GT(ratio, 0.85);
  EXPECT_LT(ratio, 0.93) << "as close to the bound as with speedup: the test above no longer shows a gain";
}

}  // namespace
}  // namespace ibsec
