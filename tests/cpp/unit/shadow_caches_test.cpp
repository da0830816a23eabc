// Shadow SKCs of every size: FIFO against closed forms, LRU against the
// stack distances (two ways to one answer), and the parameter's checks.
#include <gtest/gtest.h>

#include <random>

#include "core/errors.h"
#include "nic/shadow_caches.h"
#include "nic/stack_distances.h"
#include "support/model_support.h"

namespace ibsec::nic {
namespace {

SessionKeyId k(uint64_t v) { return SessionKeyId(v); }

TEST(ShadowCaches, FifoOnTwoAlternatingKeysHitsOnlyWithTwoEntries) {
  ShadowCaches fifo("fifo", 3, 1);
  const uint64_t n = 100;
  for (uint64_t i = 0; i < n; ++i) fifo.record(k(i % 2));
  EXPECT_EQ(fifo.hits(), (std::vector<uint64_t>{0, n - 2, n - 2}));
}

// FIFO evicts the oldest key even when it is the one about to come back: a
// key looked up often, then one new key per look-up between, is evicted
// every `entries` new keys whatever its use, where LRU would keep it.
TEST(ShadowCaches, FifoEvictsAHotKeyThatLruKeeps) {
  ShadowCaches fifo("fifo", 2, 1);
  ShadowCaches lru("lru", 2, 1);
  for (uint64_t i = 0; i < 50; ++i) {
    for (ShadowCaches* caches : {&fifo, &lru}) {
      caches->record(k(0));
      caches->record(k(100 + i));  // never seen again
    }
  }
  EXPECT_EQ(lru.hits()[1], 49u);  // key 0 stays on top of two entries
  // Key 0 survives one new key, then leaves: it hits at i = 1, 3, ..., 49.
  EXPECT_EQ(fifo.hits()[1], 25u);
}

TEST(ShadowCaches, LruShadowsAreTheStackDistances) {
  std::mt19937_64 random(7);
  std::geometric_distribution<uint64_t> key_of(0.2);
  ShadowCaches lru("lru", 12, 1);
  StackDistanceProfile profile;
  for (int i = 0; i < 5000; ++i) {
    const SessionKeyId key = k(key_of(random));
    lru.record(key);
    profile.record(key);
  }
  for (uint32_t x = 1; x <= 12; ++x) EXPECT_EQ(lru.hits()[x - 1], profile.hits_at(x)) << x << " entries";
}

TEST(ShadowCaches, ParameterTakesPoliciesTheCardRunsOnly) {
  EXPECT_NO_THROW(testing::config_with({R"(nic.lookup.shadow_policies=["fifo","random"])"}));
  EXPECT_THROW(testing::config_with({R"(nic.lookup.shadow_policies=["opt"])"}), ConfigError);
  EXPECT_THROW(testing::config_with({R"(nic.lookup.shadow_policies=["no-such-policy"])"}), ConfigError);
}

}  // namespace
}  // namespace ibsec::nic
