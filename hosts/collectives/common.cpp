#include "hosts/collectives/common.h"

#include <stdexcept>

namespace ibsec::hosts::collectives {

Tree kary_tree(uint32_t fanout, uint32_t n, uint32_t v) {
  // The level of v: levels hold 1, fanout, fanout^2, ... ranks.
  uint32_t level = 0;
  uint64_t width = 1;  // fanout^level
  for (uint64_t first_of_next = 1; first_of_next <= v; first_of_next += width) {
    width *= fanout;
    ++level;
  }
  Tree tree;
  for (uint64_t i = 1; i <= fanout && v + width * i < n; ++i)
    tree.children.push_back(static_cast<uint32_t>(v + width * i));
  if (v == 0) return tree;
  const uint64_t above = (width - 1) / (fanout - 1);  // ranks on the levels above v's
  uint64_t parent = v;
  if (parent < fanout) {
    parent = 0;
  } else {
    while (parent >= above) parent -= width / fanout;
  }
  tree.parent = static_cast<uint32_t>(parent);
  return tree;
}

Tree knomial_tree(uint32_t radix, uint32_t n, uint32_t v) {
  Tree tree;
  uint64_t mask = 1;
  for (; mask < n; mask *= radix) {
    if (v % (radix * mask) != 0) {
      tree.parent = static_cast<uint32_t>(v / (radix * mask) * (radix * mask));
      break;
    }
  }
  for (mask /= radix; mask > 0; mask /= radix) {
    for (uint64_t r = 1; r < radix && v + mask * r < n; ++r)
      tree.children.push_back(static_cast<uint32_t>(v + mask * r));
  }
  return tree;
}

Tree chain_tree(uint32_t n, uint32_t v) {
  Tree tree;
  if (v > 0) tree.parent = v - 1;
  if (v + 1 < n) tree.children.push_back(v + 1);
  return tree;
}

Rounds tree_bcast(const CollectiveCall& c, const Tree& tree) {
  Rounds rounds;
  if (tree.parent) rounds.push_back(receive_only(absolute(c, *tree.parent), c.bytes));
  CollectiveRound children;
  for (const uint32_t child : tree.children) children.sends.push_back({absolute(c, child), c.bytes});
  if (!children.sends.empty()) rounds.push_back(children);
  return rounds;
}

Rounds tree_reduce(const CollectiveCall& c, const Tree& tree) {
  Rounds rounds;
  for (const uint32_t child : tree.children) rounds.push_back(receive_only(absolute(c, child), c.bytes));
  if (tree.parent) rounds.push_back(send_only(absolute(c, *tree.parent), c.bytes));
  return rounds;
}

namespace {

// The first 2(n - p) ranks pair up; returns the rank's place among the p.
int64_t fold(const CollectiveCall& c, Rounds& rounds) {
  const uint32_t r = c.rank;
  const uint32_t extra = c.size - floor_pow2(c.size);
  if (r >= 2 * extra) return static_cast<int64_t>(r - extra);
  const uint64_t left = c.bytes / 2;
  const uint64_t right = c.bytes - left;
  if (r % 2 != 0) {
    rounds.push_back(sendrecv(r - 1, left, r - 1, right));
    rounds.push_back(send_only(r - 1, right));
    return -1;
  }
  rounds.push_back(sendrecv(r + 1, right, r + 1, left));
  rounds.push_back(receive_only(r + 1, right));
  return r / 2;
}

}  // namespace

Halving fold_and_halve(const CollectiveCall& c, Rounds& rounds) {
  Halving h;
  h.vrank = fold(c, rounds);
  if (h.vrank < 0) return h;
  uint64_t window = c.bytes;
  for (uint32_t mask = 1; mask < floor_pow2(c.size); mask <<= 1) {
    const uint32_t dest = unfolded(c, static_cast<uint32_t>(h.vrank) ^ mask);
    const uint64_t keep = c.rank < dest ? window / 2 : window - window / 2;
    h.sent.push_back(window - keep);
    h.kept.push_back(keep);
    rounds.push_back(sendrecv(dest, window - keep, dest, keep));
    window = keep;
  }
  return h;
}

Rounds run(TraceOp op, const std::string& algorithm, const CollectiveCall& c) {
  const CollectiveAlgorithm* entry = CollectiveAlgorithms::find(op, algorithm);
  if (entry == nullptr) {
    throw std::logic_error("collective " + std::string(traces::name(op)) + " has no algorithm '" + algorithm + "'");
  }
  return entry->rounds(c);
}

}  // namespace ibsec::hosts::collectives
