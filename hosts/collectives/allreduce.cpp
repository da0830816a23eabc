// MPI_Allreduce of BYTES. Open MPI's algorithms
// (ompi/mca/coll/base/coll_base_allreduce.c) and its 4.1 fixed decision rule
// for commutative operations (the trace does not record the operation).
// Combining costs no time.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// MPICH's and Open MPI's recursive doubling: the first 2 * extra ranks pair
// up (the even one hands its data to the odd one and gets the result back),
// the remaining power of two exchange with partners at distance 1, 2, 4, ...
Rounds recursive_doubling(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  const uint32_t r = c.rank;
  const uint32_t pof2 = floor_pow2(n);
  const uint32_t extra = n - pof2;
  int64_t newrank = 0;
  if (r < 2 * extra) {
    if (r % 2 == 0) {
      rounds.push_back(send_only(r + 1, c.bytes));
      newrank = -1;
    } else {
      rounds.push_back(receive_only(r - 1, c.bytes));
      newrank = r / 2;
    }
  } else {
    newrank = r - extra;
  }
  if (newrank >= 0) {
    for (uint32_t mask = 1; mask < pof2; mask <<= 1) {
      const auto partner_new = static_cast<uint32_t>(newrank) ^ mask;
      rounds.push_back(exchange(partner_new < extra ? partner_new * 2 + 1 : partner_new + extra, c.bytes));
    }
  }
  if (r < 2 * extra) rounds.push_back(r % 2 == 1 ? send_only(r - 1, c.bytes) : receive_only(r + 1, c.bytes));
  return rounds;
}

// A reduce-scatter around the ring (n - 1 steps, block r - k to the right in
// step k), then an allgather around it (n - 1 steps): 2(n - 1) rounds of
// bytes / n. Fewer bytes than ranks: recursive doubling, as Open MPI falls
// back.
Rounds ring(const CollectiveCall& c) {
  const uint32_t n = c.size;
  if (c.bytes < n) return recursive_doubling(c);
  Rounds rounds;
  const uint32_t r = c.rank;
  const uint32_t right = (r + 1) % n;
  const uint32_t left = (r + n - 1) % n;
  auto block = [&](uint64_t b) { return block_bytes(c.bytes, n, static_cast<uint32_t>(b % n)); };
  for (uint32_t k = 0; k + 1 < n; ++k) {
    rounds.push_back(sendrecv(right, block(uint64_t{r} + n - k), left, block(uint64_t{r} + 2 * n - k - 1)));
  }
  for (uint32_t k = 0; k + 1 < n; ++k) {
    rounds.push_back(sendrecv(right, block(uint64_t{r} + 1 + n - k), left, block(uint64_t{r} + n - k)));
  }
  return rounds;
}

// Reduce to rank 0, then broadcast from it, each linear.
Rounds linear(const CollectiveCall& c) {
  const CollectiveCall at_zero{c.size, c.rank, 0, c.bytes};
  return then(run(TraceOp::kReduce, "linear", at_zero), run(TraceOp::kBcast, "linear", at_zero));
}

// Reduce to rank 0, then broadcast from it, each by the algorithm Open MPI's
// fixed rules choose (Open MPI's nonoverlapping calls the communicator's
// reduce and bcast).
Rounds nonoverlapping(const CollectiveCall& c) {
  const CollectiveCall at_zero{c.size, c.rank, 0, c.bytes};
  return then(CollectiveOps::tuned(TraceOp::kReduce, c.size, c.bytes).rounds(at_zero),
              CollectiveOps::tuned(TraceOp::kBcast, c.size, c.bytes).rounds(at_zero));
}

// Rabenseifner: the first 2(n - p) ranks fold pairwise into the largest
// power of two p, a reduce-scatter by recursive halving, an allgather by
// recursive doubling, and the folded ranks get the result back (Open MPI's
// allreduce_intra_redscat_allgather). Fewer bytes than p: linear, as Open MPI
// falls back.
Rounds rabenseifner(const CollectiveCall& c) {
  const uint32_t p = floor_pow2(c.size);
  if (c.bytes < p) return linear(c);
  Rounds rounds;
  const Halving h = fold_and_halve(c, rounds);
  // The allgather retraces the halving: each step gets back what it sent.
  if (h.vrank >= 0) {
    for (size_t step = h.kept.size(); step-- > 0;) {
      const uint32_t dest = unfolded(c, static_cast<uint32_t>(h.vrank) ^ (1U << step));
      rounds.push_back(sendrecv(dest, h.kept[step], dest, h.sent[step]));
    }
  }
  const uint32_t r = c.rank;
  if (r < 2 * (c.size - p)) rounds.push_back(r % 2 != 0 ? receive_only(r - 1, c.bytes) : send_only(r + 1, c.bytes));
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kAllreduce, "recursive_doubling",
                              "exchanges at distance 1, 2, 4, ...; for n not a power of two the extra ranks fold "
                              "into a partner first and get the result after",
                              recursive_doubling) &&
    CollectiveAlgorithms::add(TraceOp::kAllreduce, "ring",
                              "ring reduce-scatter then ring allgather: 2(n-1) rounds of bytes/n (recursive "
                              "doubling below n bytes; Open MPI's ring and, without segments, segmented ring)",
                              ring) &&
    CollectiveAlgorithms::add(TraceOp::kAllreduce, "rabenseifner",
                              "recursive-halving reduce-scatter then recursive-doubling allgather (linear below p "
                              "bytes, p the largest power of two <= n)",
                              rabenseifner) &&
    CollectiveAlgorithms::add(TraceOp::kAllreduce, "linear", "linear reduce to rank 0, then linear broadcast",
                              linear) &&
    CollectiveAlgorithms::add(TraceOp::kAllreduce, "nonoverlapping",
                              "reduce to rank 0, then broadcast, each as the tuned table chooses", nonoverlapping) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_allreduce_intra_dec_fixed, commutative branch.
    CollectiveOps::add(
        CollectiveOp{"allreduce",
                     TraceOp::kAllreduce,
                     "recursive_doubling",
                     {{4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {kAnyBytes, 6}}},
                      {8, {{16, 4}, {8192, 3}, {kAnyBytes, 6}}},
                      {16, {{8192, 3}, {kAnyBytes, 6}}},
                      {32, {{64, 5}, {4096, 3}, {kAnyBytes, 6}}},
                      {64, {{128, 5}, {kAnyBytes, 6}}},
                      {128, {{262144, 3}, {kAnyBytes, 6}}},
                      {256, {{131072, 2}, {262144, 3}, {kAnyBytes, 6}}},
                      {512, {{4096, 2}, {kAnyBytes, 6}}},
                      {2048, {{2048, 2}, {16384, 3}, {kAnyBytes, 6}}},
                      {4096, {{2048, 2}, {4096, 5}, {16384, 3}, {kAnyBytes, 6}}},
                      {kAnySize, {{2048, 2}, {16384, 5}, {32768, 3}, {kAnyBytes, 6}}}},
                     {{1, "linear"},
                      {2, "nonoverlapping"},
                      {3, "recursive_doubling"},
                      {4, "ring"},
                      {5, "ring"},
                      {6, "rabenseifner"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
