// LRU stack distances against closed forms, and against the SKC itself: the
// histogram's hit(x) must be what a fully associative LRU KeyCache of x
// entries hits on the same look-ups, for every x.
#include <gtest/gtest.h>

#include <random>

#include "nic/key_cache.h"
#include "nic/stack_distances.h"

namespace ibsec::nic {
namespace {

SessionKeyId k(uint64_t v) { return SessionKeyId(v); }

TEST(StackDistances, TwoKeysAlternatingAreAllAtDistanceOneButTheFirstTwo) {
  StackDistanceProfile profile;
  const uint64_t n = 1000;
  for (uint64_t i = 0; i < n; ++i) profile.record(k(i % 2));
  EXPECT_EQ(profile.lookups(), n);
  EXPECT_EQ(profile.cold_lookups(), 2u);
  EXPECT_EQ(profile.histogram(), (std::vector<uint64_t>{0, n - 2}));
  EXPECT_EQ(profile.hits_at(1), 0u);     // hit(1) = 0
  EXPECT_EQ(profile.hits_at(2), n - 2);  // hit(2) = 1 - 2/n
  EXPECT_EQ(profile.hits_at(100), n - 2);
}

TEST(StackDistances, RepeatsOfOneKeyAreAtDistanceZero) {
  StackDistanceProfile profile;
  for (int i = 0; i < 5; ++i) profile.record(k(7));
  EXPECT_EQ(profile.histogram(), (std::vector<uint64_t>{4}));
  EXPECT_EQ(profile.hits_at(0), 0u);
  EXPECT_EQ(profile.hits_at(1), 4u);
}

// A cyclic scan of m keys: every repeat sees the m-1 others since its last
// look-up, so LRU needs all m entries and hits nothing with fewer.
TEST(StackDistances, CyclicScanOfMKeysIsAtDistanceMMinusOne) {
  StackDistanceProfile profile;
  const uint64_t m = 6;
  const uint64_t rounds = 10;
  for (uint64_t i = 0; i < m * rounds; ++i) profile.record(k(i % m));
  EXPECT_EQ(profile.cold_lookups(), m);
  ASSERT_EQ(profile.histogram().size(), m);
  EXPECT_EQ(profile.histogram()[m - 1], m * (rounds - 1));
  EXPECT_EQ(profile.hits_at(m - 1), 0u);
  EXPECT_EQ(profile.hits_at(m), m * (rounds - 1));
}

TEST(StackDistances, HitAtEverySizeIsWhatTheLruKeyCacheHits) {
  std::mt19937_64 random(42);
  // Skewed: a few keys often, many rarely, as a card's sessions are.
  std::geometric_distribution<uint64_t> key_of(0.15);
  std::vector<SessionKeyId> lookups;
  for (int i = 0; i < 20000; ++i) lookups.push_back(k(key_of(random)));
  StackDistanceProfile profile;
  for (const SessionKeyId key : lookups) profile.record(key);
  ASSERT_GT(profile.histogram().size(), 20u);
  for (uint32_t entries = 1; entries <= profile.histogram().size() + 1; ++entries) {
    KeyCache cache(KeyCacheConfig{.entries = entries, .ways = 0, .policy = "lru"});
    for (const SessionKeyId key : lookups) cache.access(key);
    EXPECT_EQ(profile.hits_at(entries), cache.stats().hits) << entries << " entries";
  }
}

TEST(StackDistances, ReportPoolsTheCardsAndGivesTheLruHitRateOfEverySize) {
  StackDistanceProfile alternating;
  StackDistanceProfile single;
  for (uint64_t i = 0; i < 10; ++i) alternating.record(k(i % 2));  // 2 cold, 8 at distance 1
  for (uint64_t i = 0; i < 10; ++i) single.record(k(5));           // 1 cold, 9 at distance 0
  const std::vector<const StackDistanceProfile*> cards{&alternating, &single};
  const auto report = stack_distance_report(cards);
  EXPECT_EQ(report["lookups"], 20u);
  EXPECT_EQ(report["cold_lookups"], 3u);
  EXPECT_EQ(report["histogram"], nlohmann::json({9, 8}));
  EXPECT_DOUBLE_EQ(report["lru_hit_rate_by_entries"][0].get<double>(), 9.0 / 20.0);
  EXPECT_DOUBLE_EQ(report["lru_hit_rate_by_entries"][1].get<double>(), 17.0 / 20.0);
  EXPECT_EQ(report["cards"][0]["node"], 0u);
  EXPECT_EQ(report["cards"][1]["histogram"], nlohmann::json({9}));
  for (const auto& [name, _] : report.items()) {
    if (name != "meta") {
      EXPECT_TRUE(report["meta"].contains(name)) << name << " has no unit and description";
    }
  }
}

}  // namespace
}  // namespace ibsec::nic
