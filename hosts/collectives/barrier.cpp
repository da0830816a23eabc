// MPI_Barrier: every message carries 0 bytes. Open MPI's algorithms
// (ompi/mca/coll/base/coll_base_barrier.c) and its 4.1 fixed decision rule.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// In round k, send to r + 2^k and receive from r - 2^k: ceil(log2 n) rounds
// (Open MPI calls it bruck).
Rounds dissemination(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  for (uint32_t k = 1; k < n; k *= 2) rounds.push_back(sendrecv((c.rank + k) % n, 0, (c.rank + n - k) % n, 0));
  return rounds;
}

// Pairwise exchanges at distance 1, 2, 4, ... among the largest power of two
// p; each rank r >= p first reports to r - p and is released by it last.
Rounds recursive_doubling(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  const uint32_t r = c.rank;
  const uint32_t p = floor_pow2(n);
  if (r >= p) return {exchange(r - p, 0)};
  if (r < n - p) rounds.push_back(receive_only(r + p, 0));
  for (uint32_t mask = 1; mask < p; mask <<= 1) rounds.push_back(exchange(r ^ mask, 0));
  if (r < n - p) rounds.push_back(send_only(r + p, 0));
  return rounds;
}

// Every rank reports to rank 0, which then releases them all.
Rounds linear(const CollectiveCall& c) {
  if (c.size == 1) return {};
  if (c.rank != 0) return {send_only(0, 0), receive_only(0, 0)};
  CollectiveRound in;
  CollectiveRound out;
  for (uint32_t p = 1; p < c.size; ++p) {
    in.receives.push_back({p, 0});
    out.sends.push_back({p, 0});
  }
  return {in, out};
}

// A fan-in to rank 0 over a hypercube (partner r xor 2^k, the higher one
// reporting to the lower), then the same fan-out in reverse.
Rounds tree(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  const uint32_t r = c.rank;
  const uint32_t depth = std::bit_ceil(n);
  auto joins = [&](uint32_t partner, uint32_t jump) { return (partner & (jump - 1)) == 0 && partner < n; };
  for (uint32_t jump = 1; jump < depth; jump <<= 1) {
    const uint32_t partner = r ^ jump;
    if (!joins(partner, jump)) continue;
    rounds.push_back(partner > r ? receive_only(partner, 0) : send_only(partner, 0));
  }
  for (uint32_t jump = depth >> 1; jump > 0; jump >>= 1) {
    const uint32_t partner = r ^ jump;
    if (!joins(partner, jump)) continue;
    rounds.push_back(partner > r ? send_only(partner, 0) : receive_only(partner, 0));
  }
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kBarrier, "dissemination",
                              "round k: send to r+2^k, receive from r-2^k; ceil(log2 n) rounds (Open MPI's bruck)",
                              dissemination) &&
    CollectiveAlgorithms::add(TraceOp::kBarrier, "recursive_doubling",
                              "exchanges with r xor 2^k among the largest power of two; the others report before "
                              "and are released after",
                              recursive_doubling) &&
    CollectiveAlgorithms::add(TraceOp::kBarrier, "linear", "every rank reports to rank 0, which releases them all",
                              linear) &&
    CollectiveAlgorithms::add(TraceOp::kBarrier, "tree", "hypercube fan-in to rank 0, then fan-out", tree) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_barrier_intra_dec_fixed.
    CollectiveOps::add(CollectiveOp{"barrier",
                                    TraceOp::kBarrier,
                                    "dissemination",
                                    {{4, {{kAnyBytes, 3}}},
                                     {8, {{kAnyBytes, 1}}},
                                     {64, {{kAnyBytes, 3}}},
                                     {256, {{kAnyBytes, 4}}},
                                     {512, {{kAnyBytes, 6}}},
                                     {1024, {{kAnyBytes, 4}}},
                                     {4096, {{kAnyBytes, 6}}},
                                     {kAnySize, {{kAnyBytes, 4}}}},
                                    {{1, "linear"}, {3, "recursive_doubling"}, {4, "dissemination"}, {6, "tree"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
