// Collective expansion: the exact rounds of hand-worked cases, and for every
// size up to 17 that sends and receives pair up, the message count is the
// algorithm's, and the rounds can always complete (no cyclic wait).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "hosts/collectives.h"

namespace ibsec::hosts {
namespace {

using Rounds = std::vector<CollectiveRound>;

// "s1,r1" per round: sends then receives, peers only.
std::string describe(const Rounds& rounds) {
  std::string text;
  for (const auto& round : rounds) {
    if (!text.empty()) text += " | ";
    for (const auto& s : round.sends) text += "s" + std::to_string(s.peer) + " ";
    for (const auto& r : round.receives) text += "r" + std::to_string(r.peer) + " ";
  }
  return text;
}

TEST(Collectives, RecursiveDoublingAllreduceOnFour) {
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllreduce, 4, 0, 0, 8)), "s1 r1  | s2 r2 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllreduce, 4, 3, 0, 8)), "s2 r2  | s1 r1 ");
}

// Five ranks: rank 0 folds into rank 1, which joins the doubling among
// {1, 2, 3, 4} and hands the result back.
TEST(Collectives, AllreduceOnFiveFoldsTheExtraRank) {
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllreduce, 5, 0, 0, 8)), "s1  | r1 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllreduce, 5, 1, 0, 8)), "r0  | s2 r2  | s3 r3  | s0 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllreduce, 5, 4, 0, 8)), "s3 r3  | s2 r2 ");
}

TEST(Collectives, BinomialBcastAndReduce) {
  EXPECT_EQ(describe(expand_collective(TraceOp::kBcast, 8, 0, 0, 64)), "s4 s2 s1 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kBcast, 8, 6, 0, 64)), "r4  | s7 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kBcast, 8, 7, 0, 64)), "r6 ");
  // Root 3: ranks are relative to the root.
  EXPECT_EQ(describe(expand_collective(TraceOp::kBcast, 8, 3, 3, 64)), "s7 s5 s4 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kBcast, 8, 5, 3, 64)), "r3  | s6 ");  // relative 2: parent is the root
  EXPECT_EQ(describe(expand_collective(TraceOp::kReduce, 8, 0, 0, 64)), "r1  | r2  | r4 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kReduce, 8, 6, 0, 64)), "r7  | s4 ");
}

TEST(Collectives, PairwiseAlltoallRingAllgatherDisseminationBarrier) {
  EXPECT_EQ(describe(expand_collective(TraceOp::kAlltoall, 4, 1, 0, 8)), "s2 r0  | s3 r3  | s0 r2 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kAllgather, 4, 1, 0, 8)), "s2 r0  | s2 r0  | s2 r0 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kBarrier, 5, 0, 0, 0)), "s1 r4  | s2 r3  | s4 r1 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kGather, 3, 2, 0, 8)), "s0 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kGather, 3, 0, 0, 8)), "r1 r2 ");
  EXPECT_EQ(describe(expand_collective(TraceOp::kScatter, 3, 1, 1, 8)), "s0 s2 ");
}

TEST(Collectives, OneProcessSendsNothing) {
  for (TraceOp op : {TraceOp::kBarrier, TraceOp::kBcast, TraceOp::kReduce, TraceOp::kGather, TraceOp::kScatter,
                     TraceOp::kAllreduce, TraceOp::kAllgather, TraceOp::kAlltoall}) {
    EXPECT_TRUE(expand_collective(op, 1, 0, 0, 8).empty()) << name(op);
  }
}

uint32_t ceil_log2(uint32_t n) {
  uint32_t k = 0;
  while ((1u << k) < n) ++k;
  return k;
}

uint64_t expected_messages(TraceOp op, uint32_t n) {
  uint32_t pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  switch (op) {
    case TraceOp::kBarrier:
      return uint64_t{n} * ceil_log2(n);
    case TraceOp::kAllreduce:
      return uint64_t{pof2} * ceil_log2(pof2) + 2 * (n - pof2);
    case TraceOp::kAllgather:
    case TraceOp::kAlltoall:
      return uint64_t{n} * (n - 1);
    default:
      return n - 1;  // bcast, reduce, gather, scatter
  }
}

struct Shape {
  TraceOp op;
  uint32_t size;
  uint32_t root;
};

class EverySize : public ::testing::TestWithParam<Shape> {};

TEST_P(EverySize, SendsMatchReceivesAndRoundsAlwaysComplete) {
  const auto [op, n, root] = GetParam();
  std::vector<Rounds> all;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, int64_t> balance;  // (from, to, bytes)
  uint64_t sends = 0;
  for (uint32_t r = 0; r < n; ++r) {
    all.push_back(expand_collective(op, n, r, root, 100));
    for (const auto& round : all.back()) {
      for (const auto& s : round.sends) {
        ASSERT_NE(s.peer, r);
        ++balance[{r, s.peer, s.bytes}];
        ++sends;
      }
      for (const auto& v : round.receives) --balance[{v.peer, r, v.bytes}];
    }
  }
  for (const auto& [key, count] : balance) EXPECT_EQ(count, 0);
  EXPECT_EQ(sends, expected_messages(op, n));

  // Play the rounds: a rank may finish its round once every receive in it
  // has a send posted by a peer that has reached the sending round.
  std::vector<size_t> at(n, 0);
  std::map<std::pair<uint32_t, uint32_t>, int64_t> posted;  // (from, to) sends started
  auto post_sends = [&](uint32_t r) {
    if (at[r] < all[r].size()) {
      for (const auto& s : all[r][at[r]].sends) ++posted[{r, s.peer}];
    }
  };
  for (uint32_t r = 0; r < n; ++r) post_sends(r);
  bool progress = true;
  while (progress) {
    progress = false;
    for (uint32_t r = 0; r < n; ++r) {
      if (at[r] == all[r].size()) continue;
      const auto& round = all[r][at[r]];
      const bool ready = std::ranges::all_of(round.receives, [&](const Transfer& v) {
        return posted[{v.peer, r}] > 0;
      });
      if (!ready) continue;
      for (const auto& v : round.receives) --posted[{v.peer, r}];
      ++at[r];
      post_sends(r);
      progress = true;
    }
  }
  for (uint32_t r = 0; r < n; ++r) EXPECT_EQ(at[r], all[r].size()) << "rank " << r << " stuck";
}

std::vector<Shape> shapes() {
  std::vector<Shape> list;
  for (TraceOp op : {TraceOp::kBarrier, TraceOp::kBcast, TraceOp::kReduce, TraceOp::kGather, TraceOp::kScatter,
                     TraceOp::kAllreduce, TraceOp::kAllgather, TraceOp::kAlltoall}) {
    for (uint32_t n = 1; n <= 17; ++n) {
      list.push_back({op, n, 0});
      if (has_root(op) && n > 2) list.push_back({op, n, n / 2 + 1});
    }
  }
  return list;
}

INSTANTIATE_TEST_SUITE_P(Collectives, EverySize, ::testing::ValuesIn(shapes()), [](const auto& info) {
  return std::string(name(info.param.op)) + "_" + std::to_string(info.param.size) + "_root" +
         std::to_string(info.param.root);
});

}  // namespace
}  // namespace ibsec::hosts
