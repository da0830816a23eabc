// Several cards, each with its own sessions and its own key cache: the
// synthetic ON/OFF look-ups of §4.4 for a cluster whose cards serve
// different numbers of sessions (as `ibsec analytic fit` finds them in a
// trace). Cards share nothing, so each is one run_cachesim with its own
// session count and seed; every session has the same traffic, so a card's
// share of the look-ups is its share of the sessions, and the pooled hit rate
// is the session-weighted mean of the cards' hit rates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cachesim/onoff_cachesim.h"

namespace ibsec::cachesim {

// The session count of each card from a file: one whole number >= 1 a line;
// blank lines and lines starting with '#' are skipped. Read within the
// bounds of every side input (core/bounded_input.h), and refused past
// `max_cards` cards. ConfigError naming `field`, the file and the line.
std::vector<uint64_t> read_card_sessions(const std::string& path, const std::string& field,
                                         uint64_t max_cards = UINT64_MAX);

// Card `card`'s seed: card 0 keeps `seed`, so one card is the one-card run.
uint64_t card_seed(uint64_t seed, uint64_t card);

// Card `card`'s share of `total` look-ups (at least one), in proportion to its
// sessions.
uint64_t card_share(uint64_t total, uint64_t card_sessions, uint64_t all_sessions);

struct CardResult {
  uint64_t sessions = 0;
  CacheSimResult result;
};

struct MultiCardResult {
  std::vector<CardResult> cards;
  nic::KeyCacheStats pooled;  // the cards' measured look-ups together
  uint64_t transitions = 0;

  // Over cards, each card counted once.
  [[nodiscard]] double card_hit_rate_mean() const;
  [[nodiscard]] double card_hit_rate_min() const;
  [[nodiscard]] double card_hit_rate_max() const;
};

// Runs one card per entry of `sessions_per_card` (each >= 1); `config`'s keys
// are ignored, its accesses and warm-up are the totals over the cards.
MultiCardResult run_cards(const CacheSimConfig& config, const std::vector<uint64_t>& sessions_per_card,
                          const ProgressFn& progress = {});

}  // namespace ibsec::cachesim
