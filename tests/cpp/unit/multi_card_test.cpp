#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cachesim/multi_card.h"
#include "cachesim/onoff_cachesim.h"
#include "core/errors.h"

namespace ibsec::cachesim {
namespace {

// 100 sessions of duty cycle 0.1 on 10 entries: a hit rate near 0.87, far from 1, so that a
// wrong split of look-ups or sessions among cards shows.
CacheSimConfig base_config(uint64_t accesses) {
  CacheSimConfig config;
  config.workload = {.keys = 100, .on_mean = 1.0, .off_mean = 9.0, .access_rate = 100.0, .seed = 1};
  config.cache.entries = 10;
  config.cache.seed = 1;
  config.accesses = accesses;
  config.warmup = accesses / 10;
  return config;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of_reading(const std::string& path) {
  try {
    (void)read_card_sessions(path, "card_sessions");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(CardSessionsFile, ReadsOneCountALineSkippingCommentsAndBlanks) {
  const auto path = write_file("cards_ok.txt", "# per-card sessions\n 9\n\n13\t\n5\r\n");
  EXPECT_EQ(read_card_sessions(path, "card_sessions"), (std::vector<uint64_t>{9, 13, 5}));
}

TEST(CardSessionsFile, NamesTheFileAndLineOfABadCount) {
  for (const char* bad : {"0", "-3", "2.5", "seven", "4294967296"}) {
    const auto path = write_file("cards_bad.txt", std::string("4\n# fine\n") + bad + "\n");
    const auto message = error_of_reading(path);
    EXPECT_NE(message.find("card_sessions"), std::string::npos) << message;
    EXPECT_NE(message.find("cards_bad.txt:3:"), std::string::npos) << message;
    EXPECT_NE(message.find(bad), std::string::npos) << message;
  }
  EXPECT_NE(error_of_reading(write_file("cards_empty.txt", "# nothing\n\n")).find("no cards"), std::string::npos);
  EXPECT_NE(error_of_reading(::testing::TempDir() + "no_such_file").find("cannot open"), std::string::npos);
}

TEST(MultiCard, SharesAndSeeds) {
  EXPECT_EQ(card_seed(7, 0), 7U);
  EXPECT_NE(card_seed(7, 1), card_seed(7, 2));
  EXPECT_EQ(card_share(1000, 1, 4), 250U);
  EXPECT_EQ(card_share(1000, 1, 3), 333U);  // rounded to the nearest look-up
  EXPECT_EQ(card_share(1000, 2, 3), 667U);
  EXPECT_EQ(card_share(UINT64_MAX / 2, 3, 3), UINT64_MAX / 2);  // no overflow in the product
}

TEST(MultiCard, OneCardIsTheOneCardRun) {
  const auto config = base_config(200'000);
  const auto single = run_cachesim(config);
  const auto cards = run_cards(config, {config.workload.keys});
  ASSERT_EQ(cards.cards.size(), 1U);
  EXPECT_EQ(cards.pooled.lookups, single.stats.lookups);
  EXPECT_EQ(cards.pooled.hits, single.stats.hits);
  EXPECT_EQ(cards.pooled.evictions, single.stats.evictions);
  EXPECT_EQ(cards.transitions, single.transitions);
}

TEST(MultiCard, IdenticalCardsHitAsOneCard) {
  // 8 cards of 100 sessions each, 16M look-ups in all, against one card of 100 sessions and 16M look-ups.
  // The cards are independent copies of the one card's process, so the pooled hit rate estimates the same
  // value. One run's standard deviation here is about 0.21 points at 16M look-ups (0.42 over seeds 1..8 at
  // 4M), so the difference of two has about 0.3: the tolerance, 1 point, is over three of them.
  const auto config = base_config(16'000'000);
  const double one_card = run_cachesim(config).stats.hit_rate();
  const auto cards = run_cards(config, std::vector<uint64_t>(8, config.workload.keys));
  EXPECT_NEAR(cards.pooled.hit_rate(), one_card, 0.01);
  EXPECT_NEAR(cards.card_hit_rate_mean(), one_card, 0.01);
  EXPECT_LE(cards.card_hit_rate_min(), cards.card_hit_rate_mean());
  EXPECT_GE(cards.card_hit_rate_max(), cards.card_hit_rate_mean());
  EXPECT_EQ(cards.pooled.lookups, 16'000'000U);
  for (const auto& card : cards.cards) EXPECT_EQ(card.result.stats.lookups, 2'000'000U);
}

TEST(MultiCard, UnequalCardsGiveTheSessionWeightedMeanOfOneCardRuns) {
  const std::vector<uint64_t> sessions{20, 60, 120};
  const auto config = base_config(16'000'000);
  const auto cards = run_cards(config, sessions);
  ASSERT_EQ(cards.cards.size(), sessions.size());
  double weighted = 0.0;
  double exact = 0.0;
  for (size_t i = 0; i < sessions.size(); ++i) {
    // Each card's look-ups are its share of the sessions ...
    EXPECT_EQ(cards.cards[i].result.stats.lookups, 16'000'000 * sessions[i] / 200);
    // ... and it is the one-card run with its sessions, seed and share (exactly) ...
    auto alone = config;
    alone.workload.keys = sessions[i];
    alone.workload.seed = card_seed(config.workload.seed, i);
    alone.cache.seed = card_seed(config.cache.seed, i);
    alone.accesses = card_share(config.accesses, sessions[i], 200);
    alone.warmup = card_share(config.warmup, sessions[i], 200);
    EXPECT_EQ(run_cachesim(alone).stats.hits, cards.cards[i].result.stats.hits);
    exact += cards.cards[i].result.stats.hit_rate() * static_cast<double>(sessions[i]) / 200.0;
    // ... so the pooled hit rate is the session-weighted mean of independent one-card runs (statistically:
    // full-length runs with the base seed; 1 point, as above).
    auto independent = config;
    independent.workload.keys = sessions[i];
    weighted += run_cachesim(independent).stats.hit_rate() * static_cast<double>(sessions[i]) / 200.0;
  }
  EXPECT_NEAR(cards.pooled.hit_rate(), exact, 1e-12);
  EXPECT_NEAR(cards.pooled.hit_rate(), weighted, 0.01);
  // Fewer sessions on the same cache hit more: the spread over cards is real.
  EXPECT_GT(cards.cards[0].result.stats.hit_rate(), cards.cards[2].result.stats.hit_rate() + 0.05);
  EXPECT_DOUBLE_EQ(cards.card_hit_rate_max(), cards.cards[0].result.stats.hit_rate());
  EXPECT_DOUBLE_EQ(cards.card_hit_rate_min(), cards.cards[2].result.stats.hit_rate());
}

TEST(MultiCard, RefusesNoCardsAndTooMuchWork) {
  EXPECT_THROW(run_cards(base_config(1000), {}), ConfigError);
  auto config = base_config(1000);
  config.accesses = 2'000'000'000'000ULL;  // over kMaxEvents in all, though each of 4 cards is under it
  EXPECT_THROW(run_cards(config, {1, 1, 1, 1}), ConfigError);
}

}  // namespace
}  // namespace ibsec::cachesim
