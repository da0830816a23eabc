// Collective algorithms (hosts/collectives/): the exact rounds of
// hand-worked cases; for each algorithm its message count, partners and
// bytes against its closed form; for every registered algorithm and every
// size from 1 to 17 that sends and receives pair up in order with the same
// bytes and that the rounds always complete, even when every send waits for
// its receive (rendezvous); and the decision tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

#include "hosts/collectives.h"

namespace ibsec::hosts {
namespace {

Rounds rounds_of(TraceOp op, const std::string& algorithm, uint32_t n, uint32_t rank, uint32_t root, uint64_t bytes) {
  const CollectiveAlgorithm* entry = CollectiveAlgorithms::find(op, algorithm);
  EXPECT_NE(entry, nullptr) << algorithm;
  return entry == nullptr ? Rounds{} : entry->rounds(CollectiveCall{n, rank, root, bytes});
}

// "s1,r1" per round: sends then receives, peers only.
std::string describe(const Rounds& rounds) {
  std::string text;
  for (const auto& round : rounds) {
    if (!text.empty()) text += " | ";
    for (const auto& s : round.sends) text.append("s").append(std::to_string(s.peer)).append(" ");
    for (const auto& r : round.receives) text.append("r").append(std::to_string(r.peer)).append(" ");
  }
  return text;
}

// Every member's rounds of one call, and totals over them.
struct Call {
  std::vector<Rounds> ranks;
  [[nodiscard]] uint64_t messages() const {
    uint64_t count = 0;
    for (const auto& rounds : ranks) {
      for (const auto& round : rounds) count += round.sends.size();
    }
    return count;
  }
  [[nodiscard]] uint64_t bytes_received(uint32_t rank) const {
    uint64_t total = 0;
    for (const auto& round : ranks[rank]) {
      for (const auto& r : round.receives) total += r.bytes;
    }
    return total;
  }
  [[nodiscard]] bool every_message(uint64_t bytes) const {
    for (const auto& rounds : ranks) {
      for (const auto& round : rounds) {
        for (const auto& s : round.sends) {
          if (s.bytes != bytes) return false;
        }
      }
    }
    return true;
  }
};

Call call(TraceOp op, const std::string& algorithm, uint32_t n, uint64_t bytes, uint32_t root = 0) {
  Call c;
  for (uint32_t r = 0; r < n; ++r) c.ranks.push_back(rounds_of(op, algorithm, n, r, root, bytes));
  return c;
}

uint32_t ceil_log2(uint32_t n) { return static_cast<uint32_t>(std::bit_width(n - 1)); }
uint32_t log2_floor(uint32_t n) { return static_cast<uint32_t>(std::bit_width(n) - 1); }

// ---- hand-worked cases ----

TEST(Collectives, RecursiveDoublingAllreduceOnFour) {
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllreduce, "recursive_doubling", 4, 0, 0, 8)), "s1 r1  | s2 r2 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllreduce, "recursive_doubling", 4, 3, 0, 8)), "s2 r2  | s1 r1 ");
}

// Five ranks: rank 0 folds into rank 1, which joins the doubling among
// {1, 2, 3, 4} and hands the result back.
TEST(Collectives, AllreduceOnFiveFoldsTheExtraRank) {
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllreduce, "recursive_doubling", 5, 0, 0, 8)), "s1  | r1 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllreduce, "recursive_doubling", 5, 1, 0, 8)), "r0  | s2 r2  | s3 r3  | s0 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllreduce, "recursive_doubling", 5, 4, 0, 8)), "s3 r3  | s2 r2 ");
}

TEST(Collectives, BinomialBcastAndReduce) {
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binomial", 8, 0, 0, 64)), "s4 s2 s1 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binomial", 8, 6, 0, 64)), "r4  | s7 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binomial", 8, 7, 0, 64)), "r6 ");
  // Root 3: ranks are relative to the root.
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binomial", 8, 3, 3, 64)), "s7 s5 s4 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binomial", 8, 5, 3, 64)), "r3  | s6 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kReduce, "binomial", 8, 0, 0, 64)), "r1  | r2  | r4 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kReduce, "binomial", 8, 6, 0, 64)), "r7  | s4 ");
}

TEST(Collectives, PairwiseAlltoallRingAllgatherDisseminationBarrier) {
  EXPECT_EQ(describe(rounds_of(TraceOp::kAlltoall, "pairwise", 4, 1, 0, 8)), "s2 r0  | s3 r3  | s0 r2 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllgather, "ring", 4, 1, 0, 8)), "s2 r0  | s2 r0  | s2 r0 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "dissemination", 5, 0, 0, 0)), "s1 r4  | s2 r3  | s4 r1 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kGather, "linear", 3, 2, 0, 8)), "s0 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kGather, "linear", 3, 0, 0, 8)), "r1 r2 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kScatter, "linear", 3, 1, 1, 8)), "s0 s2 ");
}

// Open MPI's binary tree: children of v are v + 2^l and v + 2^(l+1), l v's
// level; rank 5 hangs under 1, rank 4 under 2.
TEST(Collectives, OpenMpisBinaryAndKnomialTrees) {
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binary_tree", 8, 0, 0, 8)), "s1 s2 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binary_tree", 8, 1, 0, 8)), "r0  | s3 s5 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binary_tree", 8, 4, 0, 8)), "r2 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "binary_tree", 8, 3, 0, 8)), "r1  | s7 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kReduce, "binary_tree", 8, 1, 0, 8)), "r3  | r5  | s0 ");
  // Radix 4 on 16: the root's children are 4, 8, 12, then 1, 2, 3.
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "knomial", 16, 0, 0, 8)), "s4 s8 s12 s1 s2 s3 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "knomial", 16, 6, 0, 8)), "r4 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "knomial", 16, 8, 0, 8)), "r0  | s9 s10 s11 ");
}

TEST(Collectives, BarrierAlgorithmsOnSix) {
  // Recursive doubling among 0..3; 4 and 5 report to 0 and 1.
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "recursive_doubling", 6, 0, 0, 0)), "r4  | s1 r1  | s2 r2  | s4 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "recursive_doubling", 6, 5, 0, 0)), "s1 r1 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "recursive_doubling", 6, 3, 0, 0)), "s2 r2  | s1 r1 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "tree", 6, 0, 0, 0)), "r1  | r2  | r4  | s4  | s2  | s1 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "tree", 6, 2, 0, 0)), "r3  | s0  | r0  | s3 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kBarrier, "linear", 3, 0, 0, 0)), "r1 r2  | s1 s2 ");
}

// ---- closed forms per algorithm ----

TEST(Collectives, BarrierMessageCounts) {
  for (uint32_t n = 1; n <= 17; ++n) {
    const uint32_t p = std::bit_floor(n);
    EXPECT_EQ(call(TraceOp::kBarrier, "dissemination", n, 0).messages(), uint64_t{n} * ceil_log2(n)) << n;
    EXPECT_EQ(call(TraceOp::kBarrier, "recursive_doubling", n, 0).messages(), uint64_t{p} * log2_floor(p) + 2 * (n - p))
        << n;
    EXPECT_EQ(call(TraceOp::kBarrier, "linear", n, 0).messages(), 2 * uint64_t{n - 1}) << n;
    EXPECT_EQ(call(TraceOp::kBarrier, "tree", n, 0).messages(), 2 * uint64_t{n - 1}) << n;
    EXPECT_TRUE(call(TraceOp::kBarrier, "tree", n, 0).every_message(0));
  }
}

// Every tree broadcast and reduction sends n - 1 messages of BYTES; every
// rank but the root receives (broadcast) or sends (reduction) exactly one.
TEST(Collectives, TreeBroadcastsAndReductionsSendOneMessagePerRank) {
  for (const char* algorithm : {"binomial", "linear", "chain", "binary_tree", "knomial"}) {
    for (uint32_t n = 1; n <= 17; ++n) {
      const Call c = call(TraceOp::kBcast, algorithm, n, 100, n / 2);
      EXPECT_EQ(c.messages(), n - 1) << algorithm << " " << n;
      EXPECT_TRUE(c.every_message(100)) << algorithm;
      for (uint32_t r = 0; r < n; ++r) EXPECT_EQ(c.bytes_received(r), r == n / 2 ? 0 : 100) << algorithm << r;
    }
  }
  for (const char* algorithm : {"binomial", "linear", "chain", "binary_tree"}) {
    for (uint32_t n = 1; n <= 17; ++n) {
      const Call c = call(TraceOp::kReduce, algorithm, n, 100, n / 2);
      EXPECT_EQ(c.messages(), n - 1) << algorithm << " " << n;
      EXPECT_TRUE(c.every_message(100)) << algorithm;
      for (uint32_t r = 0; r < n; ++r) {
        size_t sent = 0;
        for (const auto& round : c.ranks[r]) sent += round.sends.size();
        EXPECT_EQ(sent, r == n / 2 ? 0U : 1U) << algorithm << " rank " << r;
      }
    }
  }
  // A chain of n ranks has n - 1 hops: the last rank receives in its first round, from n - 2.
  EXPECT_EQ(describe(rounds_of(TraceOp::kBcast, "chain", 5, 4, 0, 8)), "r3 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kReduce, "chain", 5, 1, 0, 8)), "r2  | s0 ");
}

// Binomial scatter of ceil(bytes/n) blocks (n - 1 messages when every block
// has bytes), then the allgather: recursive doubling (n log2 n messages for a
// power of two) or a ring (n (n - 1)); every rank ends with all the bytes.
TEST(Collectives, ScatterAllgatherBroadcasts) {
  for (uint32_t n : {2U, 4U, 8U, 16U}) {
    const Call c = call(TraceOp::kBcast, "scatter_allgather", n, 64 * n, 1 % n);
    EXPECT_EQ(c.messages(), (n - 1) + uint64_t{n} * log2_floor(n)) << n;
  }
  for (uint32_t n = 2; n <= 17; ++n) {
    const uint64_t bytes = 64 * n;
    const Call ring = call(TraceOp::kBcast, "scatter_allgather_ring", n, bytes, 0);
    EXPECT_EQ(ring.messages(), (n - 1) + uint64_t{n} * (n - 1)) << n;
    // The ring: n - 1 blocks of 64 bytes; the scatter: the rank's subtree.
    EXPECT_EQ(ring.bytes_received(0), bytes - 64) << n;
  }
  // Fewer bytes than ranks: linear, as Open MPI falls back.
  EXPECT_EQ(call(TraceOp::kBcast, "scatter_allgather", 8, 7, 0).messages(), 7U);
  EXPECT_EQ(call(TraceOp::kBcast, "scatter_allgather_ring", 8, 7, 0).messages(), 7U);
}

// Rabenseifner's reduce: a fold of 3 messages per extra rank, p log2 p in the
// halving, p - 1 in the gather (one more when the root is a folded odd rank).
TEST(Collectives, RabenseifnerReduceMessageCounts) {
  for (uint32_t n = 2; n <= 17; ++n) {
    const uint32_t p = std::bit_floor(n);
    const uint32_t extra = n - p;
    for (uint32_t root : {0U, 1U, n - 1}) {
      const uint64_t expected =
          uint64_t{p} * log2_floor(p) + (p - 1) + 3 * extra + (root < 2 * extra && root % 2 ? 1 : 0);
      EXPECT_EQ(call(TraceOp::kReduce, "rabenseifner", n, 1000, root).messages(), expected) << n << " root " << root;
    }
  }
  EXPECT_EQ(call(TraceOp::kReduce, "rabenseifner", 8, 7, 0).messages(), 7U);  // below p bytes: linear
}

TEST(Collectives, GatherAndScatterMoveEveryContributionOnce) {
  for (const char* algorithm : {"linear", "binomial"}) {
    for (uint32_t n = 1; n <= 17; ++n) {
      const Call gather = call(TraceOp::kGather, algorithm, n, 10, n - 1);
      EXPECT_EQ(gather.messages(), n - 1) << algorithm << n;
      EXPECT_EQ(gather.bytes_received(n - 1), 10 * uint64_t{n - 1}) << algorithm << n;
      const Call scatter = call(TraceOp::kScatter, algorithm, n, 10, 0);
      EXPECT_EQ(scatter.messages(), n - 1) << algorithm << n;
      for (uint32_t r = 1; r < n; ++r) {
        const Rounds& first = scatter.ranks[r];
        ASSERT_FALSE(first.empty());
        EXPECT_EQ(first[0].receives.size(), 1U);
      }
    }
  }
  // Binomial gather on 6, root 0: rank 4 holds 4 and 5; rank 0 gets 1, 2-3, 4-5.
  EXPECT_EQ(describe(rounds_of(TraceOp::kGather, "binomial", 6, 0, 0, 10)), "r1  | r2  | r4 ");
  EXPECT_EQ(rounds_of(TraceOp::kGather, "binomial", 6, 0, 0, 10)[2].receives[0].bytes, 20U);
  EXPECT_EQ(describe(rounds_of(TraceOp::kScatter, "binomial", 6, 0, 0, 10)), "s4  | s2  | s1 ");
}

// Ring allreduce: 2(n - 1) rounds per rank, to the right and from the left,
// each of bytes / n.
TEST(Collectives, RingAllreduceIsTwoNMinusOneRoundsOfBytesOverN) {
  for (uint32_t n = 2; n <= 17; ++n) {
    const uint64_t bytes = 48 * n;
    const Call c = call(TraceOp::kAllreduce, "ring", n, bytes);
    EXPECT_EQ(c.messages(), 2 * uint64_t{n} * (n - 1)) << n;
    EXPECT_TRUE(c.every_message(bytes / n)) << n;
    for (uint32_t r = 0; r < n; ++r) {
      ASSERT_EQ(c.ranks[r].size(), 2 * size_t{n - 1});
      for (const CollectiveRound& round : c.ranks[r]) {
        EXPECT_EQ(round.sends[0].peer, (r + 1) % n);
        EXPECT_EQ(round.receives[0].peer, (r + n - 1) % n);
      }
    }
  }
  // Uneven blocks differ by one byte; fewer bytes than ranks: recursive doubling.
  // 10 bytes on 3: blocks of 4, 3, 3; rank 0 receives blocks 2 and 1, then 0 and 2.
  EXPECT_EQ(call(TraceOp::kAllreduce, "ring", 3, 10).bytes_received(0), 3U + 3 + 4 + 3);
  EXPECT_EQ(call(TraceOp::kAllreduce, "ring", 8, 7).messages(), 8U * 3);
}

TEST(Collectives, OtherAllreduceMessageCounts) {
  for (uint32_t n = 1; n <= 17; ++n) {
    const uint32_t p = std::bit_floor(n);
    const uint64_t rd = uint64_t{p} * log2_floor(p) + 2 * (n - p);
    EXPECT_EQ(call(TraceOp::kAllreduce, "recursive_doubling", n, 8).messages(), rd) << n;
    EXPECT_EQ(call(TraceOp::kAllreduce, "linear", n, 8).messages(), 2 * uint64_t{n - 1}) << n;
    EXPECT_EQ(call(TraceOp::kAllreduce, "nonoverlapping", n, 8).messages(), 2 * uint64_t{n - 1}) << n;
    // Rabenseifner: 2 p log2 p in halving and doubling, 4 per folded pair.
    EXPECT_EQ(call(TraceOp::kAllreduce, "rabenseifner", n, 4096).messages(),
              2 * uint64_t{p} * log2_floor(p) + 4 * (n - p))
        << n;
  }
  // A power of two: each rank sends half, a quarter, ... then gets them back.
  const Call rab = call(TraceOp::kAllreduce, "rabenseifner", 8, 800);
  EXPECT_EQ(rab.bytes_received(3), 400U + 200 + 100 + 100 + 200 + 400);
}

TEST(Collectives, AllgatherAlgorithmsGatherEveryContribution) {
  for (uint32_t n = 1; n <= 17; ++n) {
    for (const char* algorithm : {"ring", "bruck", "recursive_doubling", "neighbor_exchange"}) {
      const Call c = call(TraceOp::kAllgather, algorithm, n, 10);
      for (uint32_t r = 0; r < n; ++r) EXPECT_EQ(c.bytes_received(r), 10 * uint64_t{n - 1}) << algorithm << n;
    }
    EXPECT_EQ(call(TraceOp::kAllgather, "ring", n, 10).messages(), uint64_t{n} * (n - 1));
    EXPECT_EQ(call(TraceOp::kAllgather, "bruck", n, 10).messages(), uint64_t{n} * ceil_log2(n));
    EXPECT_EQ(call(TraceOp::kAllgather, "recursive_doubling", n, 10).messages(), uint64_t{n} * ceil_log2(n));
    EXPECT_EQ(call(TraceOp::kAllgather, "neighbor_exchange", n, 10).messages(),
              n % 2 == 0 ? uint64_t{n} * (n / 2) : uint64_t{n} * (n - 1));
  }
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllgather, "neighbor_exchange", 6, 2, 0, 8)), "s3 r3  | s1 r1  | s3 r3 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kAllgather, "bruck", 6, 2, 0, 8)), "s1 r3  | s0 r4  | s4 r0 ");
}

TEST(Collectives, AlltoallAlgorithms) {
  for (uint32_t n = 1; n <= 17; ++n) {
    EXPECT_EQ(call(TraceOp::kAlltoall, "pairwise", n, 10).messages(), uint64_t{n} * (n - 1));
    EXPECT_EQ(call(TraceOp::kAlltoall, "linear", n, 10).messages(), uint64_t{n} * (n - 1));
    EXPECT_EQ(call(TraceOp::kAlltoall, "bruck", n, 10).messages(), uint64_t{n} * ceil_log2(n));
    // Bruck moves (n - 1) blocks per rank in every round whose bit some index has.
    for (uint32_t r = 0; r < n; ++r) {
      uint64_t blocks = 0;
      for (uint32_t i = 1; i < n; ++i) blocks += std::popcount(i);
      EXPECT_EQ(call(TraceOp::kAlltoall, "bruck", n, 10).bytes_received(r), 10 * blocks);
    }
  }
  EXPECT_EQ(describe(rounds_of(TraceOp::kAlltoall, "linear", 4, 1, 0, 8)), "s0 s3 s2 r2 r3 r0 ");
  EXPECT_EQ(describe(rounds_of(TraceOp::kAlltoall, "bruck", 5, 0, 0, 8)), "s1 r4  | s2 r3  | s4 r1 ");
  EXPECT_EQ(rounds_of(TraceOp::kAlltoall, "bruck", 5, 0, 0, 8)[2].sends[0].bytes, 8U);  // only index 4 has bit 2
}

// ---- every algorithm, every size: pairing and completion ----

// Plays one call's rounds with every send waiting for its receive to be
// posted (and every receive for its send): the k-th send from a to b meets
// b's k-th receive from a, with the same bytes, and no rank is left waiting.
void expect_sends_meet_receives_and_rounds_complete(const CollectiveAlgorithm& algorithm, uint32_t n, uint32_t root,
                                                    uint64_t bytes) {
  SCOPED_TRACE(algorithm.name + " on " + std::to_string(n) + ", root " + std::to_string(root) + ", " +
               std::to_string(bytes) + " bytes");
  std::vector<Rounds> all;
  for (uint32_t r = 0; r < n; ++r) {
    all.push_back(algorithm.rounds(CollectiveCall{n, r, root, bytes}));
    for (const auto& round : all.back()) {
      for (const auto& t : round.sends) ASSERT_TRUE(t.peer != r && t.peer < n) << "rank " << r;
      for (const auto& t : round.receives) ASSERT_TRUE(t.peer != r && t.peer < n) << "rank " << r;
    }
  }
  using Channel = std::pair<uint32_t, uint32_t>;  // (from, to)
  std::map<Channel, std::vector<uint64_t>> sends;
  std::map<Channel, std::vector<uint64_t>> receives;
  std::vector<size_t> at(n, 0);
  // Where the rank's current round's transfers stand in their channels.
  std::vector<std::vector<std::pair<Channel, size_t>>> my_sends(n);
  std::vector<std::vector<std::pair<Channel, size_t>>> my_receives(n);
  auto enter = [&](uint32_t r) {
    my_sends[r].clear();
    my_receives[r].clear();
    if (at[r] == all[r].size()) return;
    for (const auto& s : all[r][at[r]].sends) {
      auto& list = sends[{r, s.peer}];
      my_sends[r].push_back({{r, s.peer}, list.size()});
      list.push_back(s.bytes);
    }
    for (const auto& v : all[r][at[r]].receives) {
      auto& list = receives[{v.peer, r}];
      my_receives[r].push_back({{v.peer, r}, list.size()});
      list.push_back(v.bytes);
    }
  };
  for (uint32_t r = 0; r < n; ++r) enter(r);
  for (bool progress = true; progress;) {
    progress = false;
    for (uint32_t r = 0; r < n; ++r) {
      if (at[r] == all[r].size()) continue;
      const bool sends_met =
          std::ranges::all_of(my_sends[r], [&](const auto& s) { return receives[s.first].size() > s.second; });
      const bool receives_met =
          std::ranges::all_of(my_receives[r], [&](const auto& v) { return sends[v.first].size() > v.second; });
      if (!sends_met || !receives_met) continue;
      ++at[r];
      enter(r);
      progress = true;
    }
  }
  for (uint32_t r = 0; r < n; ++r) EXPECT_EQ(at[r], all[r].size()) << "rank " << r << " stuck";
  for (const auto& [channel, list] : sends) {
    EXPECT_EQ(receives[channel], list) << channel.first << " -> " << channel.second;
  }
  for (const auto& [channel, list] : receives) EXPECT_EQ(sends[channel].size(), list.size());
}

class EveryAlgorithm : public ::testing::TestWithParam<const CollectiveAlgorithm*> {};

TEST_P(EveryAlgorithm, SendsMeetTheirReceivesAndRoundsCompleteEvenByRendezvous) {
  for (uint32_t n = 1; n <= 17; ++n) {
    for (const uint64_t bytes : {uint64_t{0}, uint64_t{5}, uint64_t{1000}}) {
      expect_sends_meet_receives_and_rounds_complete(*GetParam(), n, 0, bytes);
      if (n > 2) expect_sends_meet_receives_and_rounds_complete(*GetParam(), n, n - 2, bytes);  // a root not at 0
    }
  }
}

std::string algorithm_name(const ::testing::TestParamInfo<const CollectiveAlgorithm*>& info) {
  std::string name = info.param->name;
  std::ranges::replace(name, '.', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Collectives, EveryAlgorithm, ::testing::ValuesIn(CollectiveAlgorithms::sorted()),
                         algorithm_name);

TEST(Collectives, OneProcessSendsNothing) {
  for (const CollectiveAlgorithm* algorithm : CollectiveAlgorithms::sorted()) {
    EXPECT_TRUE(algorithm->rounds(CollectiveCall{1, 0, 0, 64}).empty()) << algorithm->name;
  }
}

// ---- decision tables ----

// Every row of every table ends with a rule for any size, the last row is
// for any communicator, and every number maps to a registered algorithm.
TEST(Collectives, DecisionTablesAreCompleteAndNameRegisteredAlgorithms) {
  for (const CollectiveOp* op : CollectiveOps::sorted()) {
    ASSERT_FALSE(op->tuned.empty()) << op->name;
    EXPECT_EQ(op->tuned.back().below_size, kAnySize) << op->name;
    uint32_t below = 0;
    for (const DecisionRow& row : op->tuned) {
      EXPECT_GT(row.below_size, below) << op->name;
      below = row.below_size;
      ASSERT_FALSE(row.rules.empty());
      EXPECT_EQ(row.rules.back().below_bytes, kAnyBytes) << op->name;
      for (const SizeRule& rule : row.rules) {
        ASSERT_TRUE(op->ompi_algorithms.contains(rule.ompi_algorithm)) << op->name << " " << rule.ompi_algorithm;
        EXPECT_NE(CollectiveAlgorithms::find(op->op, op->ompi_algorithms.at(rule.ompi_algorithm)), nullptr);
      }
    }
    EXPECT_NE(CollectiveAlgorithms::find(op->op, op->simple), nullptr) << op->name;
  }
  for (TraceOp op : {TraceOp::kBarrier, TraceOp::kBcast, TraceOp::kReduce, TraceOp::kGather, TraceOp::kScatter,
                     TraceOp::kAllreduce, TraceOp::kAllgather, TraceOp::kAlltoall}) {
    EXPECT_NE(CollectiveOps::find(op), nullptr) << name(op);
  }
}

std::string tuned(TraceOp op, uint32_t size, uint64_t bytes) { return CollectiveOps::tuned(op, size, bytes).algorithm; }

// Spot checks of Open MPI 4.1's table (docs/replay.md lists it).
TEST(Collectives, TheTunedTableChoosesAsOpenMpi) {
  EXPECT_EQ(tuned(TraceOp::kBarrier, 2, 0), "recursive_doubling");
  EXPECT_EQ(tuned(TraceOp::kBarrier, 6, 0), "linear");
  EXPECT_EQ(tuned(TraceOp::kBarrier, 16, 0), "recursive_doubling");
  EXPECT_EQ(tuned(TraceOp::kBarrier, 100, 0), "dissemination");
  EXPECT_EQ(tuned(TraceOp::kBarrier, 300, 0), "tree");
  EXPECT_EQ(tuned(TraceOp::kBcast, 16, 8), "knomial");
  EXPECT_EQ(tuned(TraceOp::kBcast, 16, 4096), "binomial");
  EXPECT_EQ(tuned(TraceOp::kBcast, 16, 1 << 20), "scatter_allgather");
  EXPECT_EQ(tuned(TraceOp::kBcast, 8, 32), "binary_tree");
  EXPECT_EQ(tuned(TraceOp::kBcast, 8, 64), "knomial");
  EXPECT_EQ(tuned(TraceOp::kReduce, 16, 8), "binary_tree");
  EXPECT_EQ(tuned(TraceOp::kReduce, 16, 4096), "binomial");
  EXPECT_EQ(tuned(TraceOp::kReduce, 2, 4), "rabenseifner");
  EXPECT_EQ(tuned(TraceOp::kAllreduce, 16, 8), "ring");  // segmented ring; Open MPI's ring falls back below n
  EXPECT_EQ(tuned(TraceOp::kAllreduce, 16, 64), "recursive_doubling");
  EXPECT_EQ(tuned(TraceOp::kAllreduce, 16, 4096), "rabenseifner");
  EXPECT_EQ(tuned(TraceOp::kAllreduce, 200, 1024), "nonoverlapping");
  EXPECT_EQ(tuned(TraceOp::kAllgather, 2, 1 << 20), "recursive_doubling");
  EXPECT_EQ(tuned(TraceOp::kAllgather, 40, 2048), "neighbor_exchange");
  EXPECT_EQ(tuned(TraceOp::kAllgather, 40, 1 << 20), "ring");
  EXPECT_EQ(tuned(TraceOp::kAlltoall, 16, 16384), "linear");
  EXPECT_EQ(tuned(TraceOp::kAlltoall, 16, 100), "bruck");
  EXPECT_EQ(tuned(TraceOp::kAlltoall, 200, 1 << 20), "pairwise");
  EXPECT_EQ(tuned(TraceOp::kGather, 16, 8), "binomial");
  EXPECT_EQ(tuned(TraceOp::kGather, 4, 4096), "linear");
  EXPECT_EQ(tuned(TraceOp::kScatter, 16, 8), "binomial");
  EXPECT_EQ(tuned(TraceOp::kScatter, 16, 1 << 16), "linear");
}

// Ring allreduce of 8 bytes on 16 ranks falls back to recursive doubling,
// so the tuned choice moves the same messages as the simple one.
TEST(Collectives, ChoicesByScheme) {
  const CollectiveChoice simple(CollectiveScheme::kSimple);
  const CollectiveChoice tuned_choice(CollectiveScheme::kTuned);
  EXPECT_EQ(simple.choose(TraceOp::kAllreduce, 16, 1 << 20).algorithm, "recursive_doubling");
  EXPECT_EQ(tuned_choice.choose(TraceOp::kAllreduce, 16, 1 << 20).algorithm, "rabenseifner");
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllreduce, 16, 3, 0, 8, tuned_choice)),
            describe(expand_collective(TraceOp::kAllreduce, 16, 3, 0, 8, simple)));
  const CollectiveChoice forced(CollectiveScheme::kTuned, {{TraceOp::kAllreduce, "ring"}});
  EXPECT_EQ(forced.choose(TraceOp::kAllreduce, 16, 1 << 20).algorithm, "ring");
  EXPECT_EQ(forced.choose(TraceOp::kBcast, 16, 8).algorithm, "knomial");
  const std::map<TraceOp, std::string> simple_ones{
      {TraceOp::kBarrier, "dissemination"}, {TraceOp::kBcast, "binomial"},
      {TraceOp::kReduce, "binomial"},       {TraceOp::kGather, "linear"},
      {TraceOp::kScatter, "linear"},        {TraceOp::kAllreduce, "recursive_doubling"},
      {TraceOp::kAllgather, "ring"},        {TraceOp::kAlltoall, "pairwise"}};
  for (const auto& [op, algorithm] : simple_ones) EXPECT_EQ(simple.choose(op, 7, 100).algorithm, algorithm);
  EXPECT_THROW(expand_collective(TraceOp::kAllreduce, 4, 4, 0, 8, simple), std::invalid_argument);
  EXPECT_THROW(expand_collective(TraceOp::kSend, 4, 0, 0, 8, simple), std::invalid_argument);
}

}  // namespace
}  // namespace ibsec::hosts
