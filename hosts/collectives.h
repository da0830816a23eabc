// Collective operations as the point-to-point messages a replay sends
// (docs/replay.md): the algorithms MPICH and Open MPI use for small
// communicators, chosen so that the number of messages and the partners
// are those of a real run.
//
//   barrier    dissemination: ceil(log2 n) rounds, 0-byte messages
//   bcast      binomial tree from the root
//   reduce     binomial tree towards the root (mirror of bcast)
//   gather     linear: every process sends its part to the root
//   scatter    linear: the root sends each process its part
//   allreduce  recursive doubling; for n not a power of two the extra
//              processes first fold into a partner and get the result back
//   allgather  ring: n-1 rounds to the right-hand neighbour
//   alltoall   pairwise exchange: in round s, send to r+s, receive from r-s
//   scan       recursive doubling: exchange with r xor 1, 2, 4, ... (MPICH;
//   exscan     the same messages)
// The collectives with per-member counts are in hosts/vector_collectives.h.
#pragma once

#include <cstdint>
#include <vector>

#include "traces/trace_event.h"

namespace ibsec::hosts {

using traces::TraceOp;

struct Transfer {
  uint32_t peer = 0;  // communicator rank
  uint64_t bytes = 0;
  bool operator==(const Transfer&) const = default;
};

// One round: the process posts `receives`, hands over `sends`, and goes on
// to the next round once all of them have completed.
struct CollectiveRound {
  std::vector<Transfer> sends;
  std::vector<Transfer> receives;
};

// The rounds communicator rank `rank` of `size` goes through. `root` is a
// communicator rank; `bytes` as in the trace (docs/trace-format.md).
std::vector<CollectiveRound> expand_collective(TraceOp op, uint32_t size, uint32_t rank, uint32_t root, uint64_t bytes);

}  // namespace ibsec::hosts
