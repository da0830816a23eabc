// MPI_Reduce of BYTES to the root. Open MPI's algorithms
// (ompi/mca/coll/base/coll_base_reduce.c) without segmentation, and its 4.1
// fixed decision rule for commutative operations (the trace does not record
// the operation; sums, maxima and the like are commutative). Combining costs
// no time.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// Binomial tree towards the root; each partial result must arrive before it
// can be combined, so every receive is its own round.
Rounds binomial(const CollectiveCall& c) {
  const uint32_t n = c.size;
  const uint32_t v = relative(c);
  Tree tree;
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    if ((v & mask) != 0) {
      tree.parent = v - mask;
      break;
    }
    if ((v | mask) < n) tree.children.push_back(v | mask);
  }
  return tree_reduce(c, tree);
}

// Every rank sends to the root, which receives from rank n-1 down to 0.
Rounds linear(const CollectiveCall& c) {
  if (c.rank != c.root) return {send_only(c.root, c.bytes)};
  Rounds rounds;
  for (uint32_t p = c.size; p-- > 0;) {
    if (p != c.root) rounds.push_back(receive_only(p, c.bytes));
  }
  return rounds;
}

Rounds chain(const CollectiveCall& c) { return tree_reduce(c, chain_tree(c.size, relative(c))); }
Rounds binary_tree(const CollectiveCall& c) { return tree_reduce(c, kary_tree(2, c.size, relative(c))); }

// A root folded away takes vrank 0's place: rank 0 sends it the piece it
// holds (the left halves all the way down), and it gathers as vrank 0.
void root_takes_place_of_zero(const CollectiveCall& c, Halving& h, Rounds& rounds) {
  if (c.rank == c.root) {
    uint64_t window = c.bytes;
    for (uint32_t mask = 1; mask < floor_pow2(c.size); mask <<= 1) {
      h.sent.push_back(window - window / 2);
      h.kept.push_back(window / 2);
      window /= 2;
    }
    rounds.push_back(receive_only(0, h.kept.back()));
    h.vrank = 0;
  } else if (h.vrank == 0) {
    rounds.push_back(send_only(c.root, h.kept.back()));
    h.vrank = -1;
  }
}

// Binomial gather of the pieces to vroot, retracing the halving.
void gather_pieces(const CollectiveCall& c, const Halving& h, uint32_t vroot, bool root_folded, Rounds& rounds) {
  const auto v = static_cast<uint32_t>(h.vrank);
  for (size_t step = h.kept.size(); step-- > 0;) {
    const uint32_t vdest = v ^ (1U << step);
    const uint32_t dest = vdest == 0 && root_folded ? c.root : unfolded(c, vdest);
    if ((vdest >> step) == (vroot >> step)) {
      rounds.push_back(send_only(dest, h.kept[step]));
      return;
    }
    rounds.push_back(receive_only(dest, h.sent[step]));
  }
}

// Rabenseifner: fold to the largest power of two p, reduce-scatter by
// recursive halving, then a binomial gather of the pieces to the root (Open
// MPI's reduce_intra_redscat_gather). Fewer bytes than p: linear, as Open
// MPI falls back.
Rounds rabenseifner(const CollectiveCall& c) {
  const uint32_t p = floor_pow2(c.size);
  if (p < 2 || c.bytes < p) return linear(c);
  const uint32_t extra = c.size - p;
  Rounds rounds;
  Halving h = fold_and_halve(c, rounds);
  const bool root_folded = c.root < 2 * extra && c.root % 2 != 0;
  uint32_t vroot = c.root < 2 * extra ? c.root / 2 : c.root - extra;
  if (root_folded) {
    vroot = 0;
    root_takes_place_of_zero(c, h, rounds);
  }
  if (h.vrank >= 0) gather_pieces(c, h, vroot, root_folded, rounds);
  return rounds;
}

[[maybe_unused]] const bool registered =
    CollectiveAlgorithms::add(TraceOp::kReduce, "binomial", "binomial tree towards the root, one round per child",
                              binomial) &&
    CollectiveAlgorithms::add(TraceOp::kReduce, "linear",
                              "every rank sends to the root, which receives from rank n-1 down to 0", linear) &&
    CollectiveAlgorithms::add(TraceOp::kReduce, "chain",
                              "a chain towards the root (Open MPI's chain and pipeline without segments)", chain) &&
    CollectiveAlgorithms::add(TraceOp::kReduce, "binary_tree", "Open MPI's binary tree towards the root",
                              binary_tree) &&
    CollectiveAlgorithms::add(TraceOp::kReduce, "rabenseifner",
                              "recursive-halving reduce-scatter, then binomial gather to the root (linear below p "
                              "bytes, p the largest power of two <= n)",
                              rabenseifner) &&
    // coll_tuned_decision_fixed.c, ompi_coll_tuned_reduce_intra_dec_fixed, commutative branch.
    CollectiveOps::add(
        CollectiveOp{"reduce",
                     TraceOp::kReduce,
                     "binomial",
                     {{4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {kAnyBytes, 3}}},
                      {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {kAnyBytes, 1}}},
                      {16, {{8192, 4}, {kAnyBytes, 5}}},
                      {32, {{4096, 4}, {kAnyBytes, 5}}},
                      {256, {{kAnyBytes, 5}}},
                      {512, {{8192, 5}, {16384, 6}, {kAnyBytes, 5}}},
                      {2048, {{kAnyBytes, 5}}},
                      {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {kAnyBytes, 5}}},
                      {kAnySize, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {kAnyBytes, 5}}}},
                     {{1, "linear"},
                      {2, "chain"},
                      {3, "chain"},
                      {4, "binary_tree"},
                      {5, "binomial"},
                      {6, "binary_tree"},
                      {7, "rabenseifner"}}});

}  // namespace
}  // namespace ibsec::hosts::collectives
