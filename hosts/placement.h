// Where each replayed process runs (trace.placement, docs/replay.md): rank r
// of every job on node r mod nodes (cyclic, Open MPI's --map-by node), each
// job's ranks filling the nodes in order (block, --map-by slot), or a
// placement file naming the node of every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/id_vector.h"
#include "core/types.h"

namespace ibsec::hosts {

// The node of every process, cluster-wide: job j's ranks follow job j-1's.
// `job_sizes` holds each job's number of ranks. A placement file that cannot
// be read, or that does not place every rank on a node exactly once, is a
// ConfigError naming trace.placement, the file, the line and the field.
// Whether trace.placement = `placement` names a rule (cyclic, block) rather than a file.
bool is_placement_rule(const std::string& placement);

IdVector<ProcessId, NodeId> place_processes(const std::string& placement, const std::vector<uint32_t>& job_sizes,
                                            uint32_t nodes);

}  // namespace ibsec::hosts
