// Runs the synthetic ON/OFF look-up stream against a key cache (§4.4).
#pragma once

#include <cstdint>
#include <functional>

#include "cachesim/onoff_generator.h"
#include "cachesim/renewal_generator.h"
#include "nic/key_cache.h"

namespace ibsec::cachesim {

struct CacheSimConfig {
  OnOffParams workload;  // on_mean / off_mean: the means of `periods` when set (with_means)
  PeriodLaws periods;    // exponential (the jump-chain generator) unless set
  nic::KeyCacheConfig cache;
  uint64_t accesses = 10'000'000;  // measured look-ups
  uint64_t warmup = 0;             // look-ups before measuring (fill the cache)
};

struct CacheSimResult {
  nic::KeyCacheStats stats;  // measured look-ups only
  uint64_t transitions = 0;  // ON/OFF switches generated over the whole run
};

// Called with (look-ups done, total) now and then on long runs.
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

// The most look-ups plus ON/OFF switches a run may walk (about 7 hours at
// 4e7 a second); the Python package checks sweep points against the same
// bound (models/cachesim.py, docs/markov-model.md).
inline constexpr double kMaxEvents = 1e12;
// What a run walks: every look-up, and 2 / (on_mean x access_rate) switches
// per look-up (a session switches twice per ON period, which holds
// on_mean x access_rate look-ups on average).
double expected_events(const CacheSimConfig& config);
// ConfigError (on_mean or accesses) if expected_events exceeds kMaxEvents.
void check_work(const CacheSimConfig& config);

// Validates both halves of the config and the work it asks for (ConfigError
// naming the field).
CacheSimResult run_cachesim(const CacheSimConfig& config, const ProgressFn& progress = {});

}  // namespace ibsec::cachesim
