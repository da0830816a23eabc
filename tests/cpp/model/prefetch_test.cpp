// The coscheduling-aware prefetcher (§3.3) on exact scenarios: a packet for
// a process that is off its CPU makes the card load that process's recently
// evicted keys; the process's next send finds its key in the buffer if the
// load has finished, and waits for it if not.
#include <gtest/gtest.h>

#include "nic/frequent_keys.h"
#include "support/closed_form.h"
#include "support/model_support.h"

namespace ibsec::testing {
namespace {

// The card finds an evicted key's owner by inverting the key's encoding.
static_assert(nic::session_pair(nic::session_key(7, 3, 10), 10).lo == 3);
static_assert(nic::session_pair(nic::session_key(7, 3, 10), 10).hi == 7);

TEST(FrequentKeyLists, MostRecentlyEvictedFirstAndBounded) {
  nic::FrequentKeyLists lists(3);
  for (uint64_t k : {1, 2, 3, 4}) lists.record(7, SessionKeyId(k));
  lists.record(7, SessionKeyId(3));  // again: moves to the front
  const auto keys = lists.keys(7);
  ASSERT_EQ(keys.size(), 3U);
  EXPECT_EQ(keys[0], SessionKeyId(3));
  EXPECT_EQ(keys[1], SessionKeyId(4));
  EXPECT_EQ(keys[2], SessionKeyId(2));
  EXPECT_TRUE(lists.keys(8).empty());
}

// Node 0 runs processes A (0) and B (1), two per node, one-entry SKCs:
//   t = 0      B sends to node 2 (key KB enters node 0's SKC)
//   t = 50 us  A sends to node 1 (KA evicts KB: KB goes on B's list; A runs)
//   t = 100 us node 3 sends to B: its arrival at node 0 is the hint, KB is prefetched
//   t_B        B sends to node 2 again.
struct Scenario {
  Tick rx_start;                          // when the hint packet's tail is at node 0 (on a card clock edge)
  std::map<std::string, uint64_t> card0;  // its counters by name
  Tick b_latency;
};

constexpr uint32_t kPerNode = 2;

Scenario run(const std::string& security, Tick b_after_hint) {
  const Tick hint_sent = edge(100'000'000);
  const Tick injected = injected_at(Lookup::kSkcMiss, hint_sent);
  const Tick tail = injected + (256 + kHeaders + kSecurityBytes) * kPsPerByte + 2 * kWire + kSwitch;
  const Tick rx_start = edge(tail);
  const Tick t_b = edge(rx_start + b_after_hint);
  sim::SimConfig config =
      config_with({"nic.security=" + security, "traffic.processes_per_node=" + std::to_string(kPerNode)});
  sim::Cluster cluster(
      config, {message_at(0, 0, 2, 256, 0, kPerNode, 1, 1), message_at(50'000'000, 0, 1, 256, 1, kPerNode, 0, 0),
               message_at(hint_sent, 3, 0, 256, 2, kPerNode, 1, 1), message_at(t_b, 0, 2, 256, 3, kPerNode, 1, 1)});
  EXPECT_TRUE(cluster.run().drained);
  Scenario s{rx_start, cluster.cards()[0]->stats().snapshot(), 0};
  for (const auto& p : cluster.scripted()->delivered()) {
    if (p.message == 3) s.b_latency = p.delivered - p.handover;
  }
  return s;
}

TEST(Prefetch, KeysLoadedBeforeTheProcessSendsAreBufferHits) {
  const Scenario s = run("SKC-1+Prefetch-1", kMemory + 10'000'000);
  EXPECT_EQ(s.card0.at("prefetch_triggers"), 1U);
  EXPECT_EQ(s.card0.at("prefetches_issued"), 1U);
  EXPECT_EQ(s.card0.at("buffer_hits"), 1U);
  // A buffer hit costs what an SKC hit does; node 2 still holds KB.
  EXPECT_EQ(s.b_latency, closed_form(Lookup::kSkcHit, 1, edge(s.rx_start + kMemory + 10'000'000)));
}

TEST(Prefetch, AKeyStillLoadingMakesTheLookUpWait) {
  const Scenario s = run("SKC-1+Prefetch-1", 1'000'000);
  EXPECT_EQ(s.card0.at("prefetches_issued"), 1U);
  EXPECT_EQ(s.card0.at("buffer_hits"), 0U);
  EXPECT_EQ(s.card0.at("key_misses_merged"), 1U);  // waited for the prefetch in progress, no second read
  const Tick t_b = edge(s.rx_start + 1'000'000);
  EXPECT_GT(s.b_latency, closed_form(Lookup::kSkcHit, 1, t_b));
  EXPECT_LT(s.b_latency, closed_form(Lookup::kSkcMiss, 1, t_b));
}

TEST(Prefetch, WithoutABufferTheSameSendMisses) {
  const Scenario s = run("SKC-1", kMemory + 10'000'000);
  EXPECT_EQ(s.card0.at("prefetches_issued"), 0U);
  EXPECT_EQ(s.card0.at("buffer_hits"), 0U);
  // The sender waits one key-memory read more than a hit (to a card clock edge); node 2 still hits.
  const Tick hit = closed_form(Lookup::kSkcHit, 1, edge(s.rx_start + kMemory + 10'000'000));
  EXPECT_GE(s.b_latency, hit + kMemory - kPeriod);
  EXPECT_LE(s.b_latency, hit + kMemory + kPeriod);
}

}  // namespace
}  // namespace ibsec::testing
