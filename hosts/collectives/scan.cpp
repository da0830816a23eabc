// MPI_Scan and MPI_Exscan: prefix reductions. Open MPI's coll/base has a
// linear chain and recursive doubling for both (coll_base_scan.c,
// coll_base_exscan.c); its 4.1 fixed rules transcribed in the other files have
// no size-dependent table for them, so `tuned` replays recursive doubling,
// MPICH's choice too (MPIR_Scan_intra_recursive_doubling). The same messages
// serve both ops.
#include "hosts/collectives/common.h"

namespace ibsec::hosts::collectives {
namespace {

// Partners at distance 1, 2, 4, ... exchange partial results, where the
// partner exists.
Rounds recursive_doubling(const CollectiveCall& c) {
  Rounds rounds;
  for (uint32_t mask = 1; mask < c.size; mask <<= 1) {
    const uint32_t partner = c.rank ^ mask;
    if (partner < c.size) rounds.push_back(exchange(partner, c.bytes));
  }
  return rounds;
}

// A chain: each member waits for its left neighbour's prefix, then passes
// its own on.
Rounds linear(const CollectiveCall& c) {
  Rounds rounds;
  if (c.rank > 0) rounds.push_back(receive_only(c.rank - 1, c.bytes));
  if (c.rank + 1 < c.size) rounds.push_back(send_only(c.rank + 1, c.bytes));
  return rounds;
}

bool register_prefix_op(TraceOp op, const char* name) {
  return CollectiveAlgorithms::add(op, "recursive_doubling",
                                   "exchange with r xor 2^k for each 2^k < n where that member exists; "
                                   "ceil(log2 n) rounds at most",
                                   recursive_doubling) &&
         CollectiveAlgorithms::add(op, "linear", "a chain: receive from r-1, then send to r+1", linear) &&
         CollectiveOps::add(CollectiveOp{name,
                                         op,
                                         "recursive_doubling",
                                         {{kAnySize, {{kAnyBytes, 2}}}},
                                         {{1, "linear"}, {2, "recursive_doubling"}}});
}

[[maybe_unused]] const bool registered =
    register_prefix_op(TraceOp::kScan, "scan") && register_prefix_op(TraceOp::kExscan, "exscan");

}  // namespace
}  // namespace ibsec::hosts::collectives
