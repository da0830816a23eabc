#include "cachesim/multi_card.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "cachesim/data_line.h"
#include "core/bounded_input.h"
#include "core/errors.h"
#include "core/random.h"

namespace ibsec::cachesim {

namespace {

// A whole number >= 1 spelled with digits only (no sign, no fraction), or nothing.
std::optional<uint64_t> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return {};
  const uint64_t value = std::stoull(text);
  if (value == 0) return {};
  return value;
}

}  // namespace

std::vector<uint64_t> read_card_sessions(const std::string& path, const std::string& field, uint64_t max_cards) {
  LineReader in(path, field, "card sessions file");
  std::vector<uint64_t> counts;
  for (std::string line; in.next(line);) {
    const auto text = data_line(line);
    if (!text) continue;
    const auto count = parse_count(*text);
    if (!count || *count > UINT32_MAX) {
      in.fail("expected a card's session count (a whole number from 1 to 4294967295), got '" + text->substr(0, 40) +
              "'");
    }
    if (counts.size() == max_cards) {
      in.fail("more than " + std::to_string(max_cards) +
              " cards: their results alone would take more memory than "
              "this machine gives a run (give --force to try anyway)");
    }
    counts.push_back(*count);
  }
  if (counts.empty()) in.fail_file("no cards (one session count a line)");
  return counts;
}

uint64_t card_seed(uint64_t seed, uint64_t card) {
  // Weyl step by the 64-bit golden ratio: distinct, well spread seeds; card 0 keeps the run's seed.
  return seed + card * 0x9E3779B97F4A7C15ULL;
}

uint64_t card_share(uint64_t total, uint64_t card_sessions, uint64_t all_sessions) {
  const uint128 scaled = static_cast<uint128>(total) * card_sessions + all_sessions / 2;
  return static_cast<uint64_t>(scaled / all_sessions);
}

double MultiCardResult::card_hit_rate_mean() const {
  double sum = 0.0;
  for (const auto& card : cards) sum += card.result.stats.hit_rate();
  return cards.empty() ? 0.0 : sum / static_cast<double>(cards.size());
}

double MultiCardResult::card_hit_rate_min() const {
  double low = 1.0;
  for (const auto& card : cards) low = std::min(low, card.result.stats.hit_rate());
  return low;
}

double MultiCardResult::card_hit_rate_max() const {
  double high = 0.0;
  for (const auto& card : cards) high = std::max(high, card.result.stats.hit_rate());
  return high;
}

MultiCardResult run_cards(const CacheSimConfig& config, const std::vector<uint64_t>& sessions_per_card,
                          const ProgressFn& progress) {
  if (sessions_per_card.empty()) throw ConfigError("cards", "at least one card is needed");
  if (config.accesses == 0) throw ConfigError("accesses", "at least one measured look-up is needed");
  check_work(config);  // the cards together walk what one card with the totals would
  const uint64_t all_sessions = std::accumulate(sessions_per_card.begin(), sessions_per_card.end(), uint64_t{0});
  const uint64_t total = config.warmup + config.accesses;
  MultiCardResult out;
  uint64_t done_before = 0;
  for (size_t card = 0; card < sessions_per_card.size(); ++card) {
    CacheSimConfig one = config;
    one.workload.keys = sessions_per_card[card];
    one.workload.seed = card_seed(config.workload.seed, card);
    one.cache.seed = card_seed(config.cache.seed, card);
    one.accesses = std::max<uint64_t>(1, card_share(config.accesses, one.workload.keys, all_sessions));
    one.warmup = card_share(config.warmup, one.workload.keys, all_sessions);
    ProgressFn card_progress;
    if (progress) {
      card_progress = [&progress, done_before, total](uint64_t done, uint64_t) { progress(done_before + done, total); };
    }
    CardResult result{one.workload.keys, run_cachesim(one, card_progress)};
    done_before += one.warmup + one.accesses;
    out.pooled.lookups += result.result.stats.lookups;
    out.pooled.hits += result.result.stats.hits;
    out.pooled.misses += result.result.stats.misses;
    out.pooled.fills += result.result.stats.fills;
    out.pooled.evictions += result.result.stats.evictions;
    out.pooled.erases += result.result.stats.erases;
    out.transitions += result.result.transitions;
    out.cards.push_back(std::move(result));
  }
  return out;
}

}  // namespace ibsec::cachesim
