#include "cachesim/onoff_cachesim.h"

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

template <typename Generator>
CacheSimResult run_with(Generator& generator, const CacheSimConfig& config, const ProgressFn& progress) {
  const auto& policy = nic::PolicyRegistry::get(config.cache.policy);
  CacheSimResult result;
  if (!policy.needs_future) {
    nic::KeyCache cache(config.cache);
    result = drive(
        cache, config, [&](uint64_t) { return generator.next(); }, progress);
  } else {
    // Offline policies see the whole sequence first, so it is kept in memory
    // (8 bytes per look-up plus the policy's own 8).
    std::vector<SessionKeyId> sequence(config.warmup + config.accesses);
    for (auto& key : sequence) key = generator.next();
    nic::KeyCache cache(config.cache, sequence);
    result = drive(
        cache, config, [&](uint64_t i) { return sequence[i]; }, progress);
  }
  result.transitions = generator.transitions();
  return result;
}

}  // namespace

double expected_events(const CacheSimConfig& config) {
  const double switches_per_lookup = 2.0 / config.workload.on_mean / config.workload.access_rate;
  return (static_cast<double>(config.warmup) + static_cast<double>(config.accesses)) * (1.0 + switches_per_lookup);
}

void check_work(const CacheSimConfig& config) {
  const double events = expected_events(config);
  if (events <= kMaxEvents) return;
  const double switches = 2.0 / config.workload.on_mean / config.workload.access_rate;
  const std::string about = std::isfinite(events) ? "about " + nlohmann::json(events).dump() : "more than 1e308";
  throw ConfigError(switches > 1.0 ? "on_mean" : "accesses",
                    "the run asks for " + about + " look-ups and ON/OFF switches (" + nlohmann::json(switches).dump() +
                        " switches per look-up at on_mean " + nlohmann::json(config.workload.on_mean).dump() +
                        ", access_rate " + nlohmann::json(config.workload.access_rate).dump() +
                        "); at most 1e12 are run");
}

CacheSimResult run_cachesim(const CacheSimConfig& config, const ProgressFn& progress) {
  validate(config.workload);
  if (config.accesses == 0) throw ConfigError("accesses", "at least one measured look-up is needed");
  check_work(config);
  if (config.periods.exponential()) {
    OnOffGenerator generator(config.workload);
    return run_with(generator, config, progress);
  }
  RenewalOnOffGenerator generator(config.workload, config.periods);
  return run_with(generator, config, progress);
}

}  // namespace ibsec::cachesim
