// MPI_Scatter: the root sends every rank BYTES. Open MPI's algorithms
// (ompi/mca/coll/base/coll_base_scatter.c) and its 4.1 fixed decision rule.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// The root sends to every rank at once.
Rounds linear(const CollectiveCall& c) {
  if (c.rank != c.root) return {receive_only(c.root, c.bytes)};
  CollectiveRound all;
  for (uint32_t p = 0; p < c.size; ++p) {
    if (p != c.root) all.sends.push_back({p, c.bytes});
  }
  return all.sends.empty() ? Rounds{} : Rounds{all};
}

// Binomial tree from the root: a rank receives its subtree's parts from its
// parent, then sends each child its subtree's, largest subtree first, one
// blocking send after another (Open MPI's scatter_intra_binomial).
Rounds binomial(const CollectiveCall& c) {
  Rounds rounds;
  const uint32_t n = c.size;
  const uint32_t v = relative(c);
  const uint32_t span = v == 0 ? std::bit_ceil(n) : lowest_bit(v);
  if (v != 0) rounds.push_back(receive_only(absolute(c, v - span), std::min<uint64_t>(span, n - v) * c.bytes));
  for (uint32_t mask = span >> 1; mask > 0; mask >>= 1) {
    if (v + mask >= n) continue;
    const uint64_t subtree = std::min<uint64_t>(mask, n - (v + mask));
    rounds.push_back(send_only(absolute(c, v + mask), subtree * c.bytes));
  }
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kScatter, "linear",
                              "the root sends to every rank at once (Open MPI's basic_linear and linear_nb)", linear) &&
    CollectiveAlgorithms::add(TraceOp::kScatter, "binomial",
                              "binomial tree from the root, each rank passing on its subtree's parts", binomial) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_scatter_intra_dec_fixed.
    CollectiveOps::add(CollectiveOp{"scatter",
                                    TraceOp::kScatter,
                                    "linear",
                                    {{4, {{2, 3}, {131072, 1}, {262144, 3}, {kAnyBytes, 1}}},
                                     {8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}, {kAnyBytes, 1}}},
                                     {16, {{16384, 2}, {1048576, 3}, {kAnyBytes, 1}}},
                                     {32, {{16384, 2}, {32768, 1}, {kAnyBytes, 3}}},
                                     {64, {{512, 2}, {8192, 3}, {16384, 2}, {kAnyBytes, 3}}},
                                     {kAnySize, {{512, 2}, {kAnyBytes, 3}}}},
                                    {{1, "linear"}, {2, "binomial"}, {3, "linear"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
