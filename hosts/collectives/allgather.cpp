// MPI_Allgather: every rank contributes BYTES and receives everyone's. Open
// MPI's algorithms (ompi/mca/coll/base/coll_base_allgather.c) and its 4.1
// fixed decision rule.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// n - 1 rounds, each passing one contribution to the right-hand neighbour.
Rounds ring(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  for (uint32_t step = 1; step < n; ++step) {
    rounds.push_back(sendrecv((c.rank + 1) % n, c.bytes, (c.rank + n - 1) % n, c.bytes));
  }
  return rounds;
}

// Round k: send the 2^k contributions gathered so far to r - 2^k, receive as
// many from r + 2^k; the last round only what is still missing.
Rounds bruck(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  for (uint32_t distance = 1; distance < n; distance <<= 1) {
    const uint64_t blocks = distance <= n / 2 ? distance : n - distance;
    rounds.push_back(
        sendrecv((c.rank + n - distance) % n, blocks * c.bytes, (c.rank + distance) % n, blocks * c.bytes));
  }
  return rounds;
}

// Exchanges with r xor 2^k of everything gathered so far; Bruck's for n not a
// power of two, as Open MPI falls back.
Rounds recursive_doubling(const CollectiveCall& c) {
  if (!std::has_single_bit(c.size)) return bruck(c);
  Rounds rounds;
  for (uint32_t distance = 1; distance < c.size; distance <<= 1) {
    rounds.push_back(exchange(c.rank ^ distance, uint64_t{distance} * c.bytes));
  }
  return rounds;
}

// Even and odd ranks pair up with alternate neighbours: one contribution
// with the first, then two at a time, n / 2 rounds in all; ring for odd n, as
// Open MPI falls back.
Rounds neighbor_exchange(const CollectiveCall& c) {
  const uint32_t n = c.size;
  if (n % 2 != 0) return ring(c);
  const uint32_t r = c.rank;
  const uint32_t right = (r + 1) % n;
  const uint32_t left = (r + n - 1) % n;
  const uint32_t neighbor[2] = {r % 2 != 0 ? left : right, r % 2 != 0 ? right : left};
  Rounds rounds{exchange(neighbor[0], c.bytes)};
  for (uint32_t i = 1; i < n / 2; ++i) rounds.push_back(exchange(neighbor[i % 2], 2 * c.bytes));
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kAllgather, "ring", "n-1 rounds, each sending BYTES to the right-hand neighbour",
                              ring) &&
    CollectiveAlgorithms::add(TraceOp::kAllgather, "bruck",
                              "round k: everything gathered so far (up to 2^k contributions) to r-2^k, from r+2^k",
                              bruck) &&
    CollectiveAlgorithms::add(TraceOp::kAllgather, "recursive_doubling",
                              "exchanges with r xor 2^k of everything gathered so far (Bruck's for n not a power of "
                              "two; Open MPI's two_proc for n = 2)",
                              recursive_doubling) &&
    CollectiveAlgorithms::add(TraceOp::kAllgather, "neighbor_exchange",
                              "n/2 rounds with alternate neighbours, two contributions at a time (ring for odd n)",
                              neighbor_exchange) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_allgather_intra_dec_fixed.
    CollectiveOps::add(CollectiveOp{
        "allgather",
        TraceOp::kAllgather,
        "ring",
        {{3, {{kAnyBytes, 6}}},
         {32, {{kAnyBytes, 3}}},
         {64, {{1024, 3}, {65536, 5}, {kAnyBytes, 4}}},
         {128, {{512, 3}, {65536, 5}, {kAnyBytes, 4}}},
         {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAnyBytes, 4}}},
         {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAnyBytes, 4}}},
         {1024, {{64, 3}, {256, 2}, {2048, 3}, {kAnyBytes, 5}}},
         {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {kAnyBytes, 5}}},
         {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {kAnyBytes, 5}}},
         {kAnySize, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {kAnyBytes, 5}}}},
        {{2, "bruck"}, {3, "recursive_doubling"}, {4, "ring"}, {5, "neighbor_exchange"}, {6, "recursive_doubling"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
