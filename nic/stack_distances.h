// The LRU stack distances of one card's key look-ups (Mattson, Gecsei,
// Slutz and Traiger, "Evaluation techniques for storage hierarchies", IBM
// Systems Journal 9(2), 1970). The card's keys are kept in a stack, most
// recently looked up on top; a look-up's distance is the depth at which it
// finds its key (0: the same key as the look-up before; d: d other keys were
// looked up since), and the key then moves to the top. A key looked up for
// the first time has no distance (a cold look-up).
//
// LRU has the inclusion property: a fully associative LRU cache of x entries
// holds exactly the x keys on top of the stack. So one pass gives the hit rate
// of every size at once: hit(x) = (look-ups with distance < x) / look-ups.
// That holds for the look-up string recorded; a card with a smaller SKC may
// order its look-ups differently (a miss stalls a direction), see
// docs/sizing.md.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/types.h"

namespace ibsec::nic {

class StackDistanceProfile {
 public:
  void record(SessionKeyId key);

  [[nodiscard]] uint64_t lookups() const { return lookups_; }
  [[nodiscard]] uint64_t cold_lookups() const { return cold_lookups_; }
  // histogram()[d]: look-ups at distance d; empty before any repeated key.
  [[nodiscard]] const std::vector<uint64_t>& histogram() const { return histogram_; }
  // Look-ups a fully associative LRU cache of `entries` entries, warm or not, finds.
  [[nodiscard]] uint64_t hits_at(uint64_t entries) const;

 private:
  // Most recent first. A card looks up the keys of its own sessions only,
  // tens at most for the traces ibsec replays, and a key found at depth d
  // costs d steps, so a plain vector beats a tree here.
  std::vector<uint64_t> stack_;
  std::vector<uint64_t> histogram_;
  uint64_t lookups_ = 0;
  uint64_t cold_lookups_ = 0;
};

// The result section of every card's profile: each card's histogram, their
// sum, and the pooled LRU hit rate at every size up to the deepest distance
// seen, with units and descriptions beside them.
nlohmann::ordered_json stack_distance_report(std::span<const StackDistanceProfile* const> cards);

}  // namespace ibsec::nic
