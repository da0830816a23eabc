#include "nic/shadow_caches.h"

#include "core/statistics.h"

namespace ibsec::nic {

ShadowCaches::ShadowCaches(const std::string& policy, uint32_t largest, uint64_t seed) : policy_(policy) {
  caches_.reserve(largest);
  for (uint32_t entries = 1; entries <= largest; ++entries) {
    caches_.emplace_back(KeyCacheConfig{.entries = entries, .ways = 0, .policy = policy, .seed = seed});
  }
}

std::vector<uint64_t> ShadowCaches::hits() const {
  std::vector<uint64_t> counts;
  counts.reserve(caches_.size());
  for (const KeyCache& cache : caches_) counts.push_back(cache.stats().hits);
  return counts;
}

nlohmann::ordered_json shadow_cache_report(std::span<const std::vector<ShadowCaches>* const> cards) {
  nlohmann::ordered_json policies = nlohmann::ordered_json::object();
  const size_t count = cards.empty() ? 0 : cards.front()->size();
  for (size_t p = 0; p < count; ++p) {
    uint64_t lookups = 0;
    std::vector<uint64_t> hits;
    for (const std::vector<ShadowCaches>* card : cards) {
      const ShadowCaches& caches = (*card)[p];
      lookups += caches.lookups();
      const std::vector<uint64_t> card_hits = caches.hits();
      hits.resize(card_hits.size(), 0);
      for (size_t x = 0; x < card_hits.size(); ++x) hits[x] += card_hits[x];
    }
    nlohmann::ordered_json rates = nlohmann::ordered_json::array();
    for (const uint64_t h : hits) rates.push_back(ratio(static_cast<double>(h), static_cast<double>(lookups)));
    policies[(*cards.front())[p].policy()] = {{"lookups", lookups}, {"hit_rate_by_entries", rates}};
  }
  return {{"policies", policies},
          {"meta",
           {{"lookups", {{"unit", "lookups"}, {"description", "session-key look-ups the cards made"}}},
            {"hit_rate_by_entries",
             {{"unit", "fraction"},
              {"description",
               "element x-1: the share of the look-ups a fully associative SKC of x entries with this policy hit, "
               "fed the cards' look-ups in the order made (cold ones are misses); sizes up to the run's SKC"}}}}}};
}

}  // namespace ibsec::nic
