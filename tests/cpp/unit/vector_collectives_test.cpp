// The collectives with per-member counts and the prefix reductions, against
// their closed forms: who sends how much to whom, round by round.
#include <gtest/gtest.h>

#include <numeric>

#include "hosts/collectives.h"
#include "hosts/vector_collectives.h"

namespace ibsec::hosts {
namespace {

// Bytes sent from each member to each other over the whole collective.
using Matrix = std::vector<std::vector<uint64_t>>;

Matrix sent_by_all(TraceOp op, uint32_t n, uint32_t root, const std::vector<std::vector<uint32_t>>& counts) {
  Matrix sent(n, std::vector<uint64_t>(n, 0));
  for (uint32_t r = 0; r < n; ++r) {
    for (const CollectiveRound& round : expand_vector_collective(op, n, r, root, counts[r])) {
      for (const Transfer& t : round.sends) sent[r][t.peer] += t.bytes;
    }
  }
  return sent;
}

// Every send has a receive from the same member in the same round number
// of the receiver, and the sizes agree: what a replay needs to finish.
void expect_rounds_pair_up(TraceOp op, uint32_t n, uint32_t root, const std::vector<std::vector<uint32_t>>& counts) {
  std::vector<std::vector<CollectiveRound>> all;
  for (uint32_t r = 0; r < n; ++r) all.push_back(expand_vector_collective(op, n, r, root, counts[r]));
  uint64_t sends = 0;
  uint64_t receives = 0;
  for (uint32_t r = 0; r < n; ++r) {
    for (const CollectiveRound& round : all[r]) {
      sends += round.sends.size();
      receives += round.receives.size();
    }
  }
  EXPECT_EQ(sends, receives) << name(op) << " n=" << n;
}

std::vector<std::vector<uint32_t>> same_for_all(uint32_t n, const std::vector<uint32_t>& list) {
  return std::vector<std::vector<uint32_t>>(n, list);
}

TEST(VectorCollectives, AlltoallvSendsEachMemberItsCount) {
  for (uint32_t n : {1u, 2u, 3u, 5u, 8u}) {
    std::vector<std::vector<uint32_t>> counts(n, std::vector<uint32_t>(n));
    for (uint32_t r = 0; r < n; ++r) {
      for (uint32_t p = 0; p < n; ++p) counts[r][p] = 100 * r + p + 1;
    }
    const Matrix sent = sent_by_all(TraceOp::kAlltoallv, n, 0, counts);
    for (uint32_t r = 0; r < n; ++r) {
      for (uint32_t p = 0; p < n; ++p) EXPECT_EQ(sent[r][p], r == p ? 0 : counts[r][p]);
      EXPECT_EQ(expand_vector_collective(TraceOp::kAlltoallv, n, r, 0, counts[r]).size(), n - 1);
    }
    expect_rounds_pair_up(TraceOp::kAlltoallv, n, 0, counts);
  }
}

// Ring allgatherv: each member passes every block but its right neighbour's
// on to the right, so it sends the total minus that block.
TEST(VectorCollectives, AllgathervPassesEveryBlockAroundTheRing) {
  for (uint32_t n : {1u, 2u, 3u, 7u}) {
    std::vector<uint32_t> parts(n);
    std::iota(parts.begin(), parts.end(), 10);
    const uint64_t total = std::accumulate(parts.begin(), parts.end(), uint64_t{0});
    const Matrix sent = sent_by_all(TraceOp::kAllgatherv, n, 0, same_for_all(n, parts));
    for (uint32_t r = 0; r < n; ++r) {
      if (n > 1) {
        EXPECT_EQ(sent[r][(r + 1) % n], total - parts[(r + 1) % n]) << "n=" << n << " r=" << r;
      }
      // The first step sends the member's own block.
      const auto rounds = expand_vector_collective(TraceOp::kAllgatherv, n, r, 0, parts);
      ASSERT_EQ(rounds.size(), n - 1);
      if (n > 1) {
        EXPECT_EQ(rounds[0].sends[0].bytes, parts[r]);
        EXPECT_EQ(rounds[0].receives[0].bytes, parts[(r + n - 1) % n]);
      }
    }
  }
}

TEST(VectorCollectives, GathervAndScattervMoveEachPartOnce) {
  const uint32_t n = 5;
  const uint32_t root = 3;
  const std::vector<uint32_t> parts = {5, 0, 7, 9, 11};
  std::vector<std::vector<uint32_t>> gather(n, std::vector<uint32_t>(n, 0));
  for (uint32_t r = 0; r < n; ++r) gather[r][r] = parts[r];
  gather[root] = parts;
  const Matrix up = sent_by_all(TraceOp::kGatherv, n, root, gather);
  const Matrix down = sent_by_all(TraceOp::kScatterv, n, root, gather);
  for (uint32_t r = 0; r < n; ++r) {
    EXPECT_EQ(up[r][root], r == root ? 0 : parts[r]);
    EXPECT_EQ(down[root][r], r == root ? 0 : parts[r]);
  }
  expect_rounds_pair_up(TraceOp::kGatherv, n, root, gather);
  expect_rounds_pair_up(TraceOp::kScatterv, n, root, gather);
}

// Ring reduce-scatter: n - 1 steps; member r sends a partial result of every
// block but its own (its right neighbour's last), and in the last step
// receives its own.
TEST(VectorCollectives, ReduceScatterRingEndsWithEachMembersBlock) {
  for (uint32_t n : {1u, 2u, 4u, 6u}) {
    std::vector<uint32_t> blocks(n);
    for (uint32_t i = 0; i < n; ++i) blocks[i] = 1000 + i;
    const uint64_t total = std::accumulate(blocks.begin(), blocks.end(), uint64_t{0});
    const Matrix sent = sent_by_all(TraceOp::kReduceScatter, n, 0, same_for_all(n, blocks));
    for (uint32_t r = 0; r < n; ++r) {
      const auto rounds = expand_vector_collective(TraceOp::kReduceScatter, n, r, 0, blocks);
      ASSERT_EQ(rounds.size(), n - 1);
      if (n == 1) continue;
      EXPECT_EQ(sent[r][(r + 1) % n], total - blocks[r]);
      EXPECT_EQ(rounds.back().sends[0].bytes, blocks[(r + 1) % n]);
      EXPECT_EQ(rounds.back().receives[0].bytes, blocks[r]);
    }
  }
}

TEST(VectorCollectives, RefusesCountsOfTheWrongLength) {
  EXPECT_THROW(expand_vector_collective(TraceOp::kAlltoallv, 3, 0, 0, std::vector<uint32_t>{1, 2}),
               std::invalid_argument);
  EXPECT_THROW(expand_vector_collective(TraceOp::kAllreduce, 2, 0, 0, std::vector<uint32_t>{1, 2}),
               std::invalid_argument);
}

// A linear chain, when forced: n - 1 messages in all.
TEST(PrefixCollectives, ForcedLinearScanIsAChain) {
  const CollectiveChoice linear(CollectiveScheme::kTuned, {{TraceOp::kScan, "linear"}});
  EXPECT_EQ(expand_collective(TraceOp::kScan, 4, 0, 0, 8, linear).size(), 1U);
  const auto middle = expand_collective(TraceOp::kScan, 4, 2, 0, 8, linear);
  ASSERT_EQ(middle.size(), 2U);
  EXPECT_EQ(middle[0].receives[0].peer, 1U);
  EXPECT_EQ(middle[1].sends[0].peer, 3U);
}

// Scan and exscan by recursive doubling: ceil(log2 n) exchanges at most,
// with partners r xor 2^k that exist.
TEST(PrefixCollectives, ScanExchangesWithPartnersAtPowersOfTwo) {
  for (uint32_t n : {1u, 2u, 5u, 8u}) {
    for (uint32_t r = 0; r < n; ++r) {
      for (const TraceOp op : {TraceOp::kScan, TraceOp::kExscan}) {
        for (const CollectiveScheme scheme : {CollectiveScheme::kTuned, CollectiveScheme::kSimple}) {
          const auto rounds = expand_collective(op, n, r, 0, 24, CollectiveChoice(scheme));
          uint32_t expected = 0;
          for (uint32_t mask = 1; mask < n; mask <<= 1) {
            if ((r ^ mask) < n) {
              ASSERT_LT(expected, rounds.size());
              EXPECT_EQ(rounds[expected].sends[0].peer, r ^ mask);
              EXPECT_EQ(rounds[expected].sends[0].bytes, 24u);
              EXPECT_EQ(rounds[expected].receives[0].peer, r ^ mask);
              ++expected;
            }
          }
          EXPECT_EQ(rounds.size(), expected);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ibsec::hosts
