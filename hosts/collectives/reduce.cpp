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

// Rabenseifner: a reduce-scatter by recursive halving among the largest
// power of two p (the first 2(n - p) ranks folding pairwise into p), then a
// binomial gather of the pieces to the root (Open MPI's
// reduce_intra_redscat_gather). Fewer bytes than p: linear, as Open MPI
// falls back.
class Rabenseifner {
 public:
  explicit Rabenseifner(const CollectiveCall& c)
      : c_(c), p_(floor_pow2(c.size)), extra_(c.size - p_), steps_(std::countr_zero(p_)) {}

  Rounds rounds() {
    if (p_ < 2 || c_.bytes < p_) return linear(c_);
    fold();
    if (vrank_ >= 0) reduce_scatter();
    choose_root();
    if (vrank_ >= 0) gather();
    return rounds_;
  }

 private:
  [[nodiscard]] uint32_t real(uint32_t v) const { return v < extra_ ? v * 2 : v + extra_; }

  // The first 2 * extra ranks pair up: each reduces one half, the odd one
  // hands its half to the even one and drops out.
  void fold() {
    const uint32_t r = c_.rank;
    if (r >= 2 * extra_) {
      vrank_ = static_cast<int64_t>(r - extra_);
      return;
    }
    const uint64_t left = c_.bytes / 2;
    const uint64_t right = c_.bytes - left;
    if (r % 2 != 0) {
      rounds_.push_back(sendrecv(r - 1, left, r - 1, right));
      rounds_.push_back(send_only(r - 1, right));
      vrank_ = -1;
    } else {
      rounds_.push_back(sendrecv(r + 1, right, r + 1, left));
      rounds_.push_back(receive_only(r + 1, right));
      vrank_ = r / 2;
    }
  }

  // Exchanges with vrank xor 2^k, halving the window each time: the lower
  // rank keeps the left half.
  void reduce_scatter() {
    uint64_t window = c_.bytes;
    for (uint32_t mask = 1; mask < p_; mask <<= 1) {
      const uint32_t dest = real(static_cast<uint32_t>(vrank_) ^ mask);
      const uint64_t half = window / 2;
      const bool lower = c_.rank < dest;
      const uint64_t kept = lower ? half : window - half;
      sends_.push_back(window - kept);
      kept_.push_back(kept);
      rounds_.push_back(sendrecv(dest, window - kept, dest, kept));
      window = kept;
    }
  }

  // A root that dropped out in the fold takes vrank 0's place: rank 0 sends
  // it the piece it holds.
  void choose_root() {
    const uint32_t root = c_.root;
    if (root >= 2 * extra_ || root % 2 == 0) {
      vroot_ = root < 2 * extra_ ? root / 2 : root - extra_;
      return;
    }
    vroot_ = 0;
    if (c_.rank == root) {
      uint64_t window = c_.bytes;
      for (uint32_t s = 0; s < steps_; ++s) {
        sends_.push_back(window - window / 2);
        kept_.push_back(window / 2);
        window /= 2;
      }
      rounds_.push_back(receive_only(0, kept_.back()));
      vrank_ = 0;
    } else if (vrank_ == 0) {
      rounds_.push_back(send_only(root, kept_.back()));
      vrank_ = -1;
    }
  }

  // Binomial gather to vroot, in the reverse order of the halving.
  void gather() {
    const auto v = static_cast<uint32_t>(vrank_);
    uint32_t step = steps_;
    for (uint32_t mask = p_ >> 1; mask > 0; mask >>= 1) {
      --step;
      const uint32_t vdest = v ^ mask;
      uint32_t dest = real(vdest);
      if (vdest == 0 && c_.root < 2 * extra_ && c_.root % 2 != 0) dest = c_.root;
      if ((vdest >> step) == (vroot_ >> step)) {
        rounds_.push_back(send_only(dest, kept_[step]));
        return;
      }
      rounds_.push_back(receive_only(dest, sends_[step]));
    }
  }

  const CollectiveCall& c_;
  uint32_t p_;
  uint32_t extra_;
  uint32_t steps_;
  int64_t vrank_ = -1;
  uint32_t vroot_ = 0;
  std::vector<uint64_t> sends_;  // per halving step: bytes sent, and kept (received)
  std::vector<uint64_t> kept_;
  Rounds rounds_;
};

Rounds rabenseifner(const CollectiveCall& c) { return Rabenseifner(c).rounds(); }

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
