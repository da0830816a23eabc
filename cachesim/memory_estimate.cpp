#include "cachesim/memory_estimate.h"

#include "nic/replacement_policy.h"

namespace ibsec::cachesim {
namespace {

// Measured as peak RSS of `ibsec-engine cachesim` (10^7 sessions, 4x10^6
// entries, 1.1x10^7 look-ups, 10^6 cards): a session of the exponential
// generator (8.0 B: its place among the ON or OFF ones, both ways), of the
// renewal one (34.9 B: the same and its next switch in a heap that doubles
// as it grows), a key cache entry (44.7 B fully associative, 47.6 B 4-way,
// 52.7 B under lfu), a look-up an offline policy keeps (19.1 B: the key and
// the policy's next use).
constexpr uint64_t kBytesPerExponentialSession = 8;
constexpr uint64_t kBytesPerRenewalSession = 40;
constexpr uint64_t kBytesPerCacheEntry = 56;
constexpr uint64_t kBytesPerOfflineLookup = 20;

}  // namespace

std::vector<MemoryNeed> estimate_memory(const CacheSimConfig& config, const CardsShape& shape) {
  const uint64_t per_session = config.periods.exponential() ? kBytesPerExponentialSession : kBytesPerRenewalSession;
  std::vector<MemoryNeed> needs{
      {shape.keys_option, std::to_string(shape.largest_card_keys) + " sessions of a card",
       saturating_product({shape.largest_card_keys, per_session})},
      {shape.entries_option, "a key cache of " + std::to_string(config.cache.entries) + " entries",
       saturating_product({config.cache.entries, kBytesPerCacheEntry})},
      {shape.cards_option, std::to_string(shape.cards) + " cards' results",
       saturating_product({shape.cards, kBytesPerCard})},
  };
  if (nic::PolicyRegistry::get(config.cache.policy).needs_future) {  // an unknown policy: ConfigError naming it
    const uint64_t lookups = saturating_sum(config.warmup, config.accesses);
    needs.push_back({"accesses",
                     std::to_string(lookups) + " look-ups kept for the offline policy " + config.cache.policy,
                     saturating_product({lookups, kBytesPerOfflineLookup})});
  }
  return needs;
}

}  // namespace ibsec::cachesim
