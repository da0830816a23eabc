#include "nic/stack_distances.h"

#include <algorithm>
#include <numeric>

#include "core/statistics.h"

namespace ibsec::nic {

void StackDistanceProfile::record(SessionKeyId key) {
  ++lookups_;
  const auto found = std::ranges::find(stack_, key.value());
  if (found == stack_.end()) {
    ++cold_lookups_;
    stack_.insert(stack_.begin(), key.value());
    return;
  }
  const auto distance = static_cast<size_t>(found - stack_.begin());
  if (histogram_.size() <= distance) histogram_.resize(distance + 1, 0);
  ++histogram_[distance];
  std::rotate(stack_.begin(), found, found + 1);
}

uint64_t StackDistanceProfile::hits_at(uint64_t entries) const {
  const auto within = static_cast<std::ptrdiff_t>(std::min<uint64_t>(entries, histogram_.size()));
  return std::accumulate(histogram_.begin(), histogram_.begin() + within, uint64_t{0});
}

namespace {

nlohmann::ordered_json meta(const char* unit, const char* description) {
  return {{"unit", unit}, {"description", description}};
}

nlohmann::ordered_json profile_json(const StackDistanceProfile& profile) {
  return {{"lookups", profile.lookups()}, {"cold_lookups", profile.cold_lookups()}, {"histogram", profile.histogram()}};
}

}  // namespace

nlohmann::ordered_json stack_distance_report(std::span<const StackDistanceProfile* const> cards) {
  uint64_t lookups = 0;
  uint64_t cold = 0;
  std::vector<uint64_t> histogram;
  nlohmann::ordered_json per_card = nlohmann::ordered_json::array();
  for (size_t node = 0; node < cards.size(); ++node) {
    const StackDistanceProfile& card = *cards[node];
    lookups += card.lookups();
    cold += card.cold_lookups();
    if (histogram.size() < card.histogram().size()) histogram.resize(card.histogram().size(), 0);
    std::ranges::transform(card.histogram(), histogram, histogram.begin(), std::plus<>());
    nlohmann::ordered_json row = {{"node", node}};
    row.update(profile_json(card));
    per_card.push_back(std::move(row));
  }
  // hit(x) for x = 1 .. the deepest distance + 1, where every repeated key hits.
  nlohmann::ordered_json hit_rates = nlohmann::ordered_json::array();
  uint64_t hits = 0;
  for (const uint64_t at_distance : histogram) {
    hits += at_distance;
    hit_rates.push_back(ratio(static_cast<double>(hits), static_cast<double>(lookups)));
  }
  return {
      {"lookups", lookups},
      {"cold_lookups", cold},
      {"histogram", histogram},
      {"lru_hit_rate_by_entries", hit_rates},
      {"cards", per_card},
      {"meta",
       {{"lookups", meta("lookups", "session-key look-ups the cards made, send and receive, in the order made")},
        {"cold_lookups", meta("lookups", "look-ups of a key the card had not looked up before (compulsory misses)")},
        {"histogram", meta("lookups",
                           "element d: look-ups whose key was the (d+1)-th most recently looked up key of the card "
                           "(d other keys since its last look-up); cold look-ups are not in it")},
        {"lru_hit_rate_by_entries",
         meta("fraction",
              "element x-1: the share of all look-ups a fully associative LRU SKC of x entries would "
              "hit on this look-up order, cold ones counted as misses (Mattson et al. 1970)")},
        {"cards", meta("", "the same per card, by node")}}},
  };
}

}  // namespace ibsec::nic
