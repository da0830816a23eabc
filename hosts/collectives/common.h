// What the collective algorithms (one file per op, beside this one) share:
// building rounds, the trees Open MPI's coll/base builds, splitting a message
// into blocks, and running another registered algorithm. Ranks are
// communicator ranks; "relative" ranks count from the root.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hosts/collectives.h"

namespace ibsec::hosts::collectives {

inline CollectiveRound sendrecv(uint32_t to, uint64_t send_bytes, uint32_t from, uint64_t receive_bytes) {
  return {{{to, send_bytes}}, {{from, receive_bytes}}};
}
inline CollectiveRound exchange(uint32_t peer, uint64_t bytes) { return sendrecv(peer, bytes, peer, bytes); }
inline CollectiveRound send_only(uint32_t to, uint64_t bytes) { return {{{to, bytes}}, {}}; }
inline CollectiveRound receive_only(uint32_t from, uint64_t bytes) { return {{}, {{from, bytes}}}; }

// `first`'s rounds, then `second`'s.
inline Rounds then(Rounds first, const Rounds& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

// The largest power of two not above n (n >= 1).
inline uint32_t floor_pow2(uint32_t n) { return std::bit_floor(n); }
// The lowest set bit of v (v >= 1).
inline uint32_t lowest_bit(uint32_t v) { return v & (~v + 1); }

inline uint32_t relative(const CollectiveCall& c) { return (c.rank + c.size - c.root) % c.size; }
inline uint32_t absolute(const CollectiveCall& c, uint32_t v) {
  return static_cast<uint32_t>((uint64_t{v} + c.root) % c.size);
}

// Block b of `bytes` cut into `blocks` blocks as Open MPI cuts a count into
// early and late blocks (COLL_BASE_COMPUTE_BLOCKCOUNT): the first
// bytes % blocks are one byte larger. The trace gives bytes, not elements,
// so the replay cuts at byte granularity.
inline uint64_t block_bytes(uint64_t bytes, uint32_t blocks, uint32_t b) {
  return bytes / blocks + (b < bytes % blocks ? 1 : 0);
}

// A tree over relative ranks: the parent (none at the root) and the
// children in the order messages go to them.
struct Tree {
  std::optional<uint32_t> parent;
  std::vector<uint32_t> children;
};

// Open MPI's k-ary tree (ompi_coll_base_topo_build_tree): level by level,
// the children of v are v + d, v + 2d, ..., d = fanout^level(v).
Tree kary_tree(uint32_t fanout, uint32_t n, uint32_t v);
// Open MPI's k-nomial tree (ompi_coll_base_topo_build_kmtree), farthest
// children first.
Tree knomial_tree(uint32_t radix, uint32_t n, uint32_t v);
// A single chain: v receives from v - 1 and sends to v + 1.
Tree chain_tree(uint32_t n, uint32_t v);

// A broadcast down `tree` without segmentation (Open MPI's bcast_intra_generic
// with one segment): receive from the parent, then send to every child.
Rounds tree_bcast(const CollectiveCall& c, const Tree& tree);
// A reduction up `tree` without segmentation: receive from each child in
// turn (each partial result is combined before the next), then send to the
// parent.
Rounds tree_reduce(const CollectiveCall& c, const Tree& tree);

// Rabenseifner's first two steps, which reduce and allreduce share (Open
// MPI's redscat_gather and redscat_allgather): the first 2(n - p) ranks fold
// pairwise into the largest power of two p (each reduces one half, the odd
// one hands its half to the even one and drops out); then the p remaining
// exchange with vrank xor 2^k, halving their window each time (the lower
// rank keeps the left half).
struct Halving {
  int64_t vrank = -1;          // rank among the p, -1 for a rank folded away
  std::vector<uint64_t> sent;  // per halving step, bytes sent
  std::vector<uint64_t> kept;  // and bytes received and kept
};
Halving fold_and_halve(const CollectiveCall& c, Rounds& rounds);
// The real rank of rank v among the p that remain after the fold.
inline uint32_t unfolded(const CollectiveCall& c, uint32_t v) {
  const uint32_t extra = c.size - floor_pow2(c.size);
  return v < extra ? v * 2 : v + extra;
}

// The rounds of another registered algorithm (an algorithm built of others,
// or one falling back as Open MPI's does).
Rounds run(TraceOp op, const std::string& algorithm, const CollectiveCall& c);

}  // namespace ibsec::hosts::collectives
