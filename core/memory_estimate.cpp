#include "core/memory_estimate.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/errors.h"

namespace ibsec {
namespace {

std::string gib(uint64_t bytes) {
  const double g = static_cast<double>(bytes) / static_cast<double>(1ULL << 30);
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GiB", g);
  return text;
}

}  // namespace

uint64_t saturating_product(std::initializer_list<uint64_t> factors) {
  long double product = 1;
  for (const uint64_t f : factors) product *= static_cast<long double>(f);
  return product >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(product);
}

uint64_t saturating_sum(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

void check_memory(const std::vector<MemoryNeed>& needs, uint64_t available) {
  uint64_t total = 0;
  for (const MemoryNeed& n : needs) total = saturating_sum(total, n.bytes);
  if (total <= available || needs.empty()) return;
  const MemoryNeed& largest = *std::ranges::max_element(needs, {}, &MemoryNeed::bytes);
  throw ConfigError(largest.parameter,
                    "the run would need about " + gib(total) + " (" + largest.what + ": " + gib(largest.bytes) +
                        ") and this machine has " + gib(available) +
                        " to give a run (four fifths of its memory); make it smaller, or give --force to try anyway");
}

// Four fifths of the physical memory: the rest is the system's and the
// estimate's margin.
uint64_t machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) / 5 * 4 * static_cast<uint64_t>(page) : UINT64_MAX;
}

}  // namespace ibsec
