// One card's look-ups fed, as the card makes them, to fully associative
// SKCs of every size from 1 to n entries under one replacement policy: the
// hit rate of every size for policies that have no stack property (FIFO,
// random), which stack distances (stack_distances.h) give for LRU alone.
// The caches are the card's own KeyCache, so they replace as the SKC would;
// the order of look-ups is the recorded one, as with the stack distances.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nic/key_cache.h"

namespace ibsec::nic {

class ShadowCaches {
 public:
  // Caches of 1 .. `largest` entries; `policy` a name known to PolicyRegistry that needs no future.
  ShadowCaches(const std::string& policy, uint32_t largest, uint64_t seed);

  void record(SessionKeyId key) {
    ++lookups_;
    for (KeyCache& cache : caches_) cache.access(key);
  }

  [[nodiscard]] const std::string& policy() const { return policy_; }
  [[nodiscard]] uint64_t lookups() const { return lookups_; }
  // hits()[x-1]: look-ups the cache of x entries hit.
  [[nodiscard]] std::vector<uint64_t> hits() const;

 private:
  std::string policy_;
  std::vector<KeyCache> caches_;
  uint64_t lookups_ = 0;
};

// The result section: per policy, the hit rate of every size pooled over the
// cards (`cards[c][p]` is card c's caches of the p-th policy).
nlohmann::ordered_json shadow_cache_report(std::span<const std::vector<ShadowCaches>* const> cards);

}  // namespace ibsec::nic
