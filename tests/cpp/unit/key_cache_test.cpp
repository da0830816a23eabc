#include <gtest/gtest.h>

#include "core/errors.h"
#include "nic/key_cache.h"

namespace ibsec::nic {
namespace {

SessionKeyId k(uint64_t v) { return SessionKeyId(v); }

TEST(KeyCache, KeysMapToSetByIdentifierModuloSets) {
  KeyCache cache({8, 2, "lru", 1});  // 4 sets of 2 ways
  ASSERT_EQ(cache.sets(), 4u);
  EXPECT_EQ(cache.set_of(k(0)), 0u);
  EXPECT_EQ(cache.set_of(k(5)), 1u);
  EXPECT_EQ(cache.set_of(k(11)), 3u);
  // Three keys of set 0 evict the least recently used one, leaving set 1 alone.
  cache.access(k(1));
  cache.access(k(0));
  cache.access(k(4));
  const auto third = cache.access(k(8));
  EXPECT_FALSE(third.hit);
  ASSERT_TRUE(third.evicted.has_value());
  EXPECT_EQ(third.evicted->value(), 0u);
  EXPECT_TRUE(cache.contains(k(1)));
  EXPECT_TRUE(cache.contains(k(4)));
  EXPECT_TRUE(cache.contains(k(8)));
}

TEST(KeyCache, NonPowerOfTwoSetCountUsesModulo) {
  KeyCache cache({10, 2, "lru", 1});  // 5 sets, as a 10-entry 2-way SKC
  EXPECT_EQ(cache.sets(), 5u);
  EXPECT_EQ(cache.set_of(k(7)), 2u);
}

TEST(KeyCache, FullyAssociativeLruEvictsLeastRecentlyUsed) {
  KeyCache cache({3, 0, "lru", 1});
  cache.access(k(1));
  cache.access(k(2));
  cache.access(k(3));
  EXPECT_TRUE(cache.access(k(1)).hit);  // order now 1,3,2 (MRU first)
  const auto r = cache.access(k(4));
  ASSERT_TRUE(r.evicted.has_value());
  EXPECT_EQ(r.evicted->value(), 2u);
}

TEST(KeyCache, FifoIgnoresHitsWhenEvicting) {
  KeyCache cache({3, 0, "fifo", 1});
  for (uint64_t v : {1, 2, 3}) cache.access(k(v));
  cache.access(k(1));
  EXPECT_EQ(cache.access(k(4)).evicted->value(), 1u);
}

TEST(KeyCache, EraseFreesTheSlotForTheNextFill) {
  KeyCache cache({2, 0, "lru", 1});
  cache.access(k(1));
  cache.access(k(2));
  EXPECT_TRUE(cache.erase(k(1)));
  EXPECT_FALSE(cache.erase(k(1)));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_FALSE(cache.fill(k(3)).has_value());  // no eviction: a slot was free
  EXPECT_TRUE(cache.contains(k(2)));
  EXPECT_EQ(cache.fill(k(4))->value(), 2u);
}

TEST(KeyCache, EntriesFromCapacityUseSixteenByteKeys) {
  EXPECT_EQ(entries_for_capacity(2048, 16), 128u);  // the paper's 2 KB "Entry"
  EXPECT_EQ(entries_for_capacity(16384, 16), 1024u);
  EXPECT_EQ(entries_for_capacity(16384, 32), 512u);  // CACTI's 32 B lines
  EXPECT_THROW(entries_for_capacity(100, 16), ConfigError);
  EXPECT_THROW(entries_for_capacity(0, 16), ConfigError);
  EXPECT_THROW(entries_for_capacity(2048, 0), ConfigError);
}

void expect_config_error(const KeyCacheConfig& config, const std::string& field) {
  try {
    KeyCache cache(config);
    FAIL() << "accepted an invalid config, expected an error on '" << field << "'";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(KeyCache, RejectsImpossibleGeometries) {
  expect_config_error({0, 0, "lru", 1}, "entries");
  expect_config_error({16, 3, "lru", 1}, "ways");
  expect_config_error({16, 32, "lru", 1}, "ways");
  expect_config_error({24, 16, "lru", 1}, "entries");
  expect_config_error({16, 4, "mru", 1}, "policy");
  expect_config_error({16, 4, "opt", 1}, "policy");  // offline without a sequence
}

TEST(PolicyRegistry, KnowsEveryShippedPolicy) {
  const auto names = PolicyRegistry::names();
  EXPECT_EQ(names, (std::vector<std::string>{"fifo", "lfu", "lru", "opt", "random"}));
}

}  // namespace
}  // namespace ibsec::nic
