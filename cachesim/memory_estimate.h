// What a cachesim run will allocate, estimated before anything is, so that
// one the machine cannot hold is refused naming the option responsible
// (core/memory_estimate.h), as `run` is. Each per-item size was measured as
// peak RSS (docs/running.md, "Memory").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cachesim/onoff_cachesim.h"
#include "core/memory_estimate.h"

namespace ibsec::cachesim {

// A card's result while the run goes on and in the JSON printed at its end.
inline constexpr uint64_t kBytesPerCard = 480;

// The run's shape beyond `config`: the cards, one at a time, and the options
// that set each term (for the message).
struct CardsShape {
  uint64_t cards = 1;
  uint64_t largest_card_keys = 0;  // sessions of the card with the most
  std::string keys_option = "keys";
  std::string cards_option = "cards";
  std::string entries_option = "entries";
};

// The run's main allocations: the largest card's sessions, one key cache,
// the look-up sequence an offline policy sees whole, and the cards' results.
std::vector<MemoryNeed> estimate_memory(const CacheSimConfig& config, const CardsShape& shape);

}  // namespace ibsec::cachesim
