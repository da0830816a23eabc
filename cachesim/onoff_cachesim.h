// Runs the synthetic ON/OFF look-up stream against a key cache (§4.4).
#pragma once

#include <cstdint>
#include <functional>

#include "nic/key_cache.h"
#include "cachesim/onoff_generator.h"

namespace ibsec::cachesim {

struct CacheSimConfig {
  OnOffParams workload;
  nic::KeyCacheConfig cache;
  uint64_t accesses = 10'000'000;  // measured look-ups
  uint64_t warmup = 0;             // look-ups before measuring (fill the cache)
};

struct CacheSimResult {
  nic::KeyCacheStats stats;     // measured look-ups only
  uint64_t transitions = 0;     // ON/OFF switches generated over the whole run
};

// Called with (look-ups done, total) now and then on long runs.
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

// Validates both halves of the config (ConfigError naming the field).
CacheSimResult run_cachesim(const CacheSimConfig& config, const ProgressFn& progress = {});

}  // namespace ibsec::cachesim
