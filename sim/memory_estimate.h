// What a run will allocate, estimated before the cluster is built, so that a
// configuration that would exhaust the machine's memory is refused naming
// the parameter responsible (core/memory_estimate.h). The terms are the ones
// that grow with a parameter; each per-item size was measured
// (docs/running.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_estimate.h"
#include "network/topology.h"
#include "sim/config.h"

namespace ibsec::sim {

// The run's main allocations, largest first, on `topology`'s cards and
// switches. `processes`: every process of the run; `largest_message_bytes`:
// the largest message any host hands over.
std::vector<MemoryNeed> estimate_memory(const SimConfig& config, const network::Topology& topology, uint64_t processes,
                                        uint64_t largest_message_bytes);

}  // namespace ibsec::sim
