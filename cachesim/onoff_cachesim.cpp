#include "cachesim/onoff_cachesim.h"

#include <vector>

#include "core/errors.h"

namespace ibsec::cachesim {

namespace {

constexpr uint64_t kProgressEvery = 1ULL << 24;

template <typename NextKey>
CacheSimResult drive(nic::KeyCache& cache, const CacheSimConfig& config, NextKey&& next_key,
                     const ProgressFn& progress) {
  const uint64_t total = config.warmup + config.accesses;
  for (uint64_t i = 0; i < total; ++i) {
    if (i == config.warmup) cache.reset_stats();
    cache.access(next_key(i));
    if (progress && (i + 1) % kProgressEvery == 0) progress(i + 1, total);
  }
  return {cache.stats(), 0};
}

}  // namespace

CacheSimResult run_cachesim(const CacheSimConfig& config, const ProgressFn& progress) {
  validate(config.workload);
  if (config.accesses == 0) throw ConfigError("accesses", "at least one measured look-up is needed");
  OnOffGenerator generator(config.workload);
  const auto& policy = nic::PolicyRegistry::get(config.cache.policy);
  CacheSimResult result;
  if (!policy.needs_future) {
    nic::KeyCache cache(config.cache);
    result = drive(cache, config, [&](uint64_t) { return generator.next(); }, progress);
  } else {
    // Offline policies see the whole sequence first, so it is kept in memory
    // (8 bytes per look-up plus the policy's own 8).
    std::vector<SessionKeyId> sequence(config.warmup + config.accesses);
    for (auto& key : sequence) key = generator.next();
    nic::KeyCache cache(config.cache, sequence);
    result = drive(cache, config, [&](uint64_t i) { return sequence[i]; }, progress);
  }
  result.transitions = generator.transitions();
  return result;
}

}  // namespace ibsec::cachesim
