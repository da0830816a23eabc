// The `v` collectives (docs/trace-format.md): each member's part has its own
// size, given as one byte count per member. Expanded into rounds of
// point-to-point messages like the others (hosts/collectives.h), with the
// algorithms Open MPI's base component uses for them:
//
//   alltoallv       pairwise exchange: in round s, send counts[r+s] to r+s,
//                   receive from r-s (ompi_coll_base_alltoallv_intra_pairwise)
//   allgatherv      ring: in step s, pass the block of member r-s+1 to r+1
//                   (ompi_coll_base_allgatherv_intra_ring)
//   gatherv         linear: every member sends its part to the root
//   scatterv        linear: the root sends each member its part
//   reduce_scatter  ring: n-1 steps, in step s pass the partial block of
//                   member r-s-1 to r+1 (ompi_coll_base_reduce_scatter_intra_ring)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hosts/collectives.h"

namespace ibsec::hosts {

// The rounds communicator rank `rank` of `size` goes through. `root` is a
// communicator rank; `counts` has one entry per member, meaning what the
// trace says for the op and this caller.
std::vector<CollectiveRound> expand_vector_collective(TraceOp op, uint32_t size, uint32_t rank, uint32_t root,
                                                      std::span<const uint32_t> counts);

}  // namespace ibsec::hosts
