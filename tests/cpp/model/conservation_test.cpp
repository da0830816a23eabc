// Conservation under load: every packet handed over is delivered exactly once,
// in order within its session, and when the network has drained every credit
// is back at its sender. Messages of several sizes (so several packets each),
// several processes per node and two virtual lanes on a 64-node fat tree;
// and on an 8x8 torus whose switches change packets' lanes at the datelines.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "core/random.h"
#include "support/model_support.h"

namespace ibsec {
namespace {

using testing::config_with;
using testing::message_at;

constexpr uint32_t kNodes = 64;
constexpr uint32_t kProcesses = 4;

std::vector<hosts::ScriptedMessage> burst(uint32_t messages, Tick spacing, uint64_t seed) {
  Rng rng(seed);
  const uint32_t sizes[] = {1, 64, 256, 700, 2048};
  std::vector<hosts::ScriptedMessage> script;
  for (uint32_t i = 0; i < messages; ++i) {
    const auto source = static_cast<uint32_t>(rng.below(kNodes));
    const auto destination = static_cast<uint32_t>(rng.below(kNodes));
    script.push_back(message_at(i * spacing, source, destination, sizes[rng.below(5)], i, kProcesses,
                                static_cast<uint32_t>(rng.below(kProcesses)),
                                static_cast<uint32_t>(rng.below(kProcesses))));
  }
  return script;
}

void expect_conserved(const std::vector<std::string>& overrides) {
  const sim::SimConfig config = config_with(overrides);
  // One message every 20 ns into 64 nodes: far beyond what the links carry,
  // so queues, credit stalls and key-memory queueing all happen.
  sim::Cluster cluster(config, burst(20000, 20'000, 7));
  const sim::RunOutcome outcome = cluster.run();
  ASSERT_TRUE(outcome.drained);

  const auto& delivered = cluster.scripted()->delivered();
  EXPECT_EQ(delivered.size(), cluster.statistics().packets_handed_over());
  std::vector<uint64_t> ids;
  for (const auto& p : delivered) ids.push_back(p.id);
  std::ranges::sort(ids);
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i) << "packet ids delivered are not 0..n-1 exactly once";

  std::map<std::pair<uint32_t, uint32_t>, uint32_t> next;  // per (source, destination) process
  for (const auto& p : delivered) {
    uint32_t& expected = next[{p.source_process, p.destination_process}];
    ASSERT_EQ(p.sequence, expected) << "session " << p.source_process << "->" << p.destination_process;
    ++expected;
    EXPECT_GE(p.delivered, p.handover);
  }
  EXPECT_EQ(cluster.credits_missing(), 0U);
  EXPECT_EQ(cluster.packets_inside(), 0U);
  uint64_t out_of_order = 0;
  for (const auto& card : cluster.cards()) out_of_order += card->stats().out_of_order;
  EXPECT_EQ(out_of_order, 0U);
}

const std::vector<std::string> kTree{"network.topology=fat-tree", "network.fat_tree.n=3", "network.virtual_lanes=2",
                                     "traffic.processes_per_node=4"};

std::vector<std::string> with(std::vector<std::string> base, const std::string& extra) {
  base.push_back(extra);
  return base;
}

TEST(Conservation, FatTreeSkcWithPrefetchBuffer) { expect_conserved(with(kTree, "nic.security=SKC-4+Prefetch-2")); }
TEST(Conservation, FatTreeNoSecurity) { expect_conserved(with(kTree, "nic.security=NoSecurity")); }
TEST(Conservation, FatTreePipelinedGcmSmallBuffers) {
  auto o = with(kTree, "nic.gcm.pipelined=true");
  o.push_back("network.vl_buffer_bytes=512");
  expect_conserved(o);
}
// An 8x8 torus moves packets between lanes at its datelines: a switch sends
// on the mapped lane with that lane's credits and returns the arrival
// lane's, so with one-packet buffers any slip would lose credits or overrun.
const std::vector<std::string> kTorus{"network.topology=torus", "network.torus.dims=8x8",
                                      "traffic.processes_per_node=4"};

TEST(Conservation, TorusOnItsDatelineLanesSmallBuffers) {
  auto o = with(kTorus, "network.virtual_lanes=2");
  o.push_back("network.vl_buffer_bytes=512");
  expect_conserved(o);
}
TEST(Conservation, TorusSessionsOnThreeLanesNoSecurity) {
  auto o = with(kTorus, "network.virtual_lanes=3");
  o.push_back("nic.security=NoSecurity");
  expect_conserved(o);
}
TEST(Conservation, SingleSwitchNoSkc) {
  expect_conserved(
      {"network.nodes=64", "network.virtual_lanes=3", "traffic.processes_per_node=4", "nic.security=NoSKC"});
}

}  // namespace
}  // namespace ibsec
