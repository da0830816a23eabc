// MPI_Gather: every rank contributes BYTES to the root. Open MPI's
// algorithms (ompi/mca/coll/base/coll_base_gather.c) and its 4.1 fixed
// decision rule.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// Every rank sends to the root, which posts all its receives at once.
Rounds linear(const CollectiveCall& c) {
  if (c.rank != c.root) return {send_only(c.root, c.bytes)};
  CollectiveRound all;
  for (uint32_t p = 0; p < c.size; ++p) {
    if (p != c.root) all.receives.push_back({p, c.bytes});
  }
  return all.receives.empty() ? Rounds{} : Rounds{all};
}

// Binomial tree towards the root: a rank receives its children's subtrees
// one after another (nearest child first), then sends its whole subtree's
// contributions to its parent (Open MPI's gather_intra_binomial).
Rounds binomial(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  const uint32_t v = relative(c);
  const uint32_t span = v == 0 ? std::bit_ceil(n) : lowest_bit(v);
  for (uint32_t mask = 1; mask < span && v + mask < n; mask <<= 1) {
    const uint64_t subtree = std::min<uint64_t>(mask, n - (v + mask));
    rounds.push_back(receive_only(absolute(c, v + mask), subtree * c.bytes));
  }
  if (v != 0) rounds.push_back(send_only(absolute(c, v - span), std::min<uint64_t>(span, n - v) * c.bytes));
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kGather, "linear",
                              "every rank sends to the root, which receives them all at once (Open MPI's "
                              "basic_linear and linear_sync)",
                              linear) &&
    CollectiveAlgorithms::add(TraceOp::kGather, "binomial",
                              "binomial tree towards the root, each rank passing on its subtree's contributions",
                              binomial) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_gather_intra_dec_fixed.
    CollectiveOps::add(CollectiveOp{"gather",
                                    TraceOp::kGather,
                                    "linear",
                                    {{4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}, {kAnyBytes, 3}}},
                                     {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}, {kAnyBytes, 3}}},
                                     {256, {{kAnyBytes, 2}}},
                                     {512, {{2048, 2}, {8192, 1}, {kAnyBytes, 2}}},
                                     {kAnySize, {{kAnyBytes, 2}}}},
                                    {{1, "linear"}, {2, "binomial"}, {3, "linear"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
