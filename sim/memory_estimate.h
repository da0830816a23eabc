// What a run will allocate, estimated before the cluster is built, so that a
// configuration that would exhaust the machine's memory is refused naming
// the parameter responsible instead of ending in std::bad_alloc (or the
// kernel's OOM killer) part way through. The terms are the ones that grow
// with a parameter; each per-item size was measured (docs/running.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"

namespace ibsec::sim {

struct MemoryNeed {
  std::string parameter;  // the key that sets it
  std::string what;
  uint64_t bytes;
};

// The run's main allocations, largest first. `processes`: every process of
// the run; `largest_message_bytes`: the largest message any host hands over.
std::vector<MemoryNeed> estimate_memory(const SimConfig& config, uint32_t nodes, uint64_t processes,
                                        uint64_t largest_message_bytes);

// Throws ConfigError naming the largest need's parameter when the estimate
// exceeds `available` bytes.
void check_memory(const std::vector<MemoryNeed>& needs, uint64_t available);
// What a run may take: four fifths of the machine's physical memory.
uint64_t machine_memory_bytes();

}  // namespace ibsec::sim
