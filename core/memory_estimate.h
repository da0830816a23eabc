// Refusing work that would exhaust the machine's memory before it starts,
// naming the parameter responsible, instead of ending in std::bad_alloc (or
// the kernel's OOM killer) part way through. Each command lists its main
// allocations as MemoryNeeds (sim/memory_estimate.h for `run`,
// cachesim/memory_estimate.h for `cachesim`); the check and its message are
// the same for all, and `--force` skips it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ibsec {

struct MemoryNeed {
  std::string parameter;  // the key or option that sets it
  std::string what;
  uint64_t bytes;
};

// Throws ConfigError naming the largest need's parameter when the needs
// together exceed `available` bytes.
void check_memory(const std::vector<MemoryNeed>& needs, uint64_t available);
// What a run may take: four fifths of the machine's physical memory.
uint64_t machine_memory_bytes();

// The product of `factors`, UINT64_MAX when it does not fit.
uint64_t saturating_product(std::initializer_list<uint64_t> factors);
// a + b, UINT64_MAX when it does not fit.
uint64_t saturating_sum(uint64_t a, uint64_t b);

}  // namespace ibsec
