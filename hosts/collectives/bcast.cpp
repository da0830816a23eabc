// MPI_Bcast of BYTES from the root. Open MPI's algorithms
// (ompi/mca/coll/base/coll_base_bcast.c) without segmentation, since its 4.1
// fixed decision rule passes segment size 0, and that rule.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// The k-nomial tree's radix: coll_tuned_bcast_knomial_radix's default.
constexpr uint32_t kKnomialRadix = 4;

// Binomial tree from the root: receive from the parent, then send to the
// children, farthest first (MPICH's MPIR_Bcast_intra_binomial).
Rounds binomial(const CollectiveCall& c) {
  const uint32_t n = c.size;
  const uint32_t v = relative(c);
  Tree tree;
  uint32_t mask = 1;
  for (; mask < n; mask <<= 1) {
    if ((v & mask) != 0) {
      tree.parent = v - mask;
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < n) tree.children.push_back(v + mask);
  }
  return tree_bcast(c, tree);
}

// The root sends to every rank in rank order.
Rounds linear(const CollectiveCall& c) {
  if (c.rank != c.root) return {receive_only(c.root, c.bytes)};
  CollectiveRound all;
  for (uint32_t p = 0; p < c.size; ++p) {
    if (p != c.root) all.sends.push_back({p, c.bytes});
  }
  return all.sends.empty() ? Rounds{} : Rounds{all};
}

Rounds chain(const CollectiveCall& c) { return tree_bcast(c, chain_tree(c.size, relative(c))); }
Rounds binary_tree(const CollectiveCall& c) { return tree_bcast(c, kary_tree(2, c.size, relative(c))); }
Rounds knomial(const CollectiveCall& c) { return tree_bcast(c, knomial_tree(kKnomialRadix, c.size, relative(c))); }

// The bytes relative rank v holds before the allgather, scatter per block.
uint64_t own_block(uint64_t bytes, uint64_t scatter, uint32_t v) {
  const uint64_t start = uint64_t{v} * scatter;
  return start >= bytes ? 0 : std::min(scatter, bytes - start);
}

// The binomial scatter of ceil(bytes / n)-byte blocks that both
// scatter-allgather broadcasts begin with: a rank receives the blocks of its
// subtree from its parent, then passes each child its subtree's.
Rounds binomial_scatter(const CollectiveCall& c, uint64_t scatter) {
  Rounds rounds;
  const uint32_t n = c.size;
  const uint32_t v = relative(c);
  uint64_t held = v == 0 ? c.bytes : 0;
  uint32_t mask = v == 0 ? std::bit_ceil(n) : lowest_bit(v);
  if (v != 0 && uint64_t{v} * scatter < c.bytes) {
    held = std::min(c.bytes - uint64_t{v} * scatter, uint64_t{mask} * scatter);
    rounds.push_back(receive_only(absolute(c, v - mask), held));
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask >= n || held <= uint64_t{mask} * scatter) continue;
    const uint64_t part = held - uint64_t{mask} * scatter;
    rounds.push_back(send_only(absolute(c, v + mask), part));
    held -= part;
  }
  return rounds;
}

// The bytes of the blocks of the `span` relative ranks from `first` on.
uint64_t group_bytes(uint64_t bytes, uint64_t scatter, uint64_t first, uint64_t span) {
  const uint64_t start = first * scatter;
  return start >= bytes ? 0 : std::min(span * scatter, bytes - start);
}

// In the doubling step of `mask`, the upper half of v's group of 2 * mask
// is cut short (n not a power of two): the lower half's ranks whose partner
// exists pass the upper half's data, by recursive halving, to those whose
// partner does not.
void fill_missing_half(const CollectiveCall& c, uint64_t scatter, uint32_t mask, Rounds& rounds) {
  const uint32_t v = relative(c);
  const uint32_t mine = v / mask * mask;
  const uint64_t complete = uint64_t{c.size} - mine - mask;  // lower ranks with a partner
  const uint64_t missing = group_bytes(c.bytes, scatter, uint64_t{mine} + mask, mask);
  for (uint32_t half = mask >> 1; half > 0; half >>= 1) {
    const uint32_t other = v ^ half;
    const uint64_t root = v / (half << 1) * (half << 1);
    if (other > v && v < root + complete && other >= root + complete) {
      rounds.push_back(send_only(absolute(c, other), missing));
    } else if (other < v && other < root + complete && v >= root + complete) {
      rounds.push_back(receive_only(absolute(c, other), missing));
    }
  }
}

// Scatter, then allgather by recursive doubling: in step `mask` each rank
// swaps its group's data with v xor mask's (Open MPI's
// bcast_intra_scatter_allgather, after MPICH). Fewer bytes than ranks:
// linear, as Open MPI falls back.
Rounds scatter_allgather(const CollectiveCall& c) {
  const uint32_t n = c.size;
  if (n < 2) return {};
  if (c.bytes < n) return linear(c);
  const uint64_t scatter = (c.bytes + n - 1) / n;
  const uint32_t v = relative(c);
  Rounds rounds = binomial_scatter(c, scatter);
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    const uint32_t partner = v ^ mask;
    const uint32_t theirs = partner / mask * mask;
    if (partner < n) {
      rounds.push_back(sendrecv(absolute(c, partner), group_bytes(c.bytes, scatter, v / mask * mask, mask),
                                absolute(c, partner), group_bytes(c.bytes, scatter, theirs, mask)));
    }
    if (uint64_t{theirs} + mask > n) fill_missing_half(c, scatter, mask, rounds);
  }
  return rounds;
}

// Scatter, then allgather around a ring: n - 1 steps, each passing the block
// received last to the right (Open MPI's bcast_intra_scatter_allgather_ring).
Rounds scatter_allgather_ring(const CollectiveCall& c) {
  const uint32_t n = c.size;
  if (n < 2) return {};
  if (c.bytes < n) return linear(c);
  const uint64_t scatter = (c.bytes + n - 1) / n;
  const uint32_t v = relative(c);
  Rounds rounds = binomial_scatter(c, scatter);
  const uint32_t right = (c.rank + 1) % n;
  const uint32_t left = (c.rank + n - 1) % n;
  uint32_t send_block = v;
  uint32_t receive_block = (v + n - 1) % n;
  for (uint32_t step = 1; step < n; ++step) {
    rounds.push_back(
        sendrecv(right, own_block(c.bytes, scatter, send_block), left, own_block(c.bytes, scatter, receive_block)));
    send_block = receive_block;
    receive_block = (receive_block + n - 1) % n;
  }
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kBcast, "binomial",
                              "binomial tree from the root: receive from the parent, then send to the children, "
                              "farthest first",
                              binomial) &&
    CollectiveAlgorithms::add(TraceOp::kBcast, "linear", "the root sends to every rank", linear) &&
    CollectiveAlgorithms::add(TraceOp::kBcast, "chain",
                              "a chain from the root: each rank receives from the one before and sends to the next "
                              "(Open MPI's chain and pipeline without segments)",
                              chain) &&
    CollectiveAlgorithms::add(TraceOp::kBcast, "binary_tree", "Open MPI's binary tree from the root", binary_tree) &&
    CollectiveAlgorithms::add(TraceOp::kBcast, "knomial", "Open MPI's 4-nomial tree from the root", knomial) &&
    CollectiveAlgorithms::add(TraceOp::kBcast, "scatter_allgather",
                              "binomial scatter of n blocks, then recursive-doubling allgather (linear below n bytes)",
                              scatter_allgather) &&
    CollectiveAlgorithms::add(TraceOp::kBcast, "scatter_allgather_ring",
                              "binomial scatter of n blocks, then ring allgather (linear below n bytes)",
                              scatter_allgather_ring) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_bcast_intra_dec_fixed.
    CollectiveOps::add(CollectiveOp{"bcast",
                                    TraceOp::kBcast,
                                    "binomial",
                                    {{4,
                                      {{32, 3},
                                       {256, 5},
                                       {512, 3},
                                       {1024, 7},
                                       {32768, 1},
                                       {131072, 5},
                                       {262144, 2},
                                       {524288, 1},
                                       {1048576, 6},
                                       {kAnyBytes, 5}}},
                                     {8, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {kAnyBytes, 2}}},
                                     {16, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {kAnyBytes, 1}}},
                                     {32, {{4096, 7}, {1048576, 6}, {kAnyBytes, 8}}},
                                     {64, {{2048, 6}, {kAnyBytes, 7}}},
                                     {128, {{kAnyBytes, 7}}},
                                     {256, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {kAnyBytes, 7}}},
                                     {1024, {{16384, 7}, {32768, 4}, {kAnyBytes, 7}}},
                                     {2048, {{524288, 7}, {kAnyBytes, 8}}},
                                     {4096, {{262144, 7}, {kAnyBytes, 8}}},
                                     {kAnySize, {{8192, 7}, {16384, 5}, {262144, 7}, {kAnyBytes, 8}}}},
                                    {{1, "linear"},
                                     {2, "chain"},
                                     {3, "chain"},
                                     {4, "binary_tree"},
                                     {5, "binary_tree"},
                                     {6, "binomial"},
                                     {7, "knomial"},
                                     {8, "scatter_allgather"},
                                     {9, "scatter_allgather_ring"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
