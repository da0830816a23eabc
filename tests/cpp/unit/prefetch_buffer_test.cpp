#include <gtest/gtest.h>

#include "core/errors.h"
#include "nic/key_lookup.h"

namespace ibsec::nic {
namespace {

SessionKeyId k(uint64_t v) { return SessionKeyId(v); }

TEST(PrefetchBuffer, DropsOldestWhenFullAndCountsItWasted) {
  PrefetchBuffer pb(2);
  pb.prefetch(k(1));
  pb.prefetch(k(2));
  pb.prefetch(k(1));  // already there
  pb.prefetch(k(3));
  EXPECT_FALSE(pb.contains(k(1)));
  EXPECT_TRUE(pb.contains(k(2)));
  EXPECT_TRUE(pb.contains(k(3)));
  EXPECT_EQ(pb.stats().prefetches, 3u);
  EXPECT_EQ(pb.stats().duplicates, 1u);
  EXPECT_EQ(pb.stats().wasted, 1u);
}

TEST(PrefetchBuffer, TakeRemovesAndKeepsOrderOfTheRest) {
  PrefetchBuffer pb(3);
  for (uint64_t v : {1, 2, 3}) pb.prefetch(k(v));
  EXPECT_TRUE(pb.take(k(2)));
  EXPECT_FALSE(pb.take(k(2)));
  pb.prefetch(k(4));
  pb.prefetch(k(5));  // drops the oldest, 1
  EXPECT_FALSE(pb.contains(k(1)));
  EXPECT_TRUE(pb.contains(k(3)));
  EXPECT_EQ(pb.stats().hits, 1u);
}

TEST(PrefetchBuffer, RejectsZeroEntries) { EXPECT_THROW(PrefetchBuffer(0), ConfigError); }

TEST(KeyLookup, BufferHitPromotesIntoSkcWhichEvictsItsLruKey) {
  KeyLookup lookup({2, 0, "lru", 1}, 4);
  EXPECT_EQ(lookup.lookup(k(10)).outcome, LookupOutcome::kMiss);
  EXPECT_EQ(lookup.lookup(k(11)).outcome, LookupOutcome::kMiss);
  lookup.prefetch(k(12));
  lookup.prefetch(k(11));  // in the SKC already: not buffered
  EXPECT_EQ(lookup.buffer()->size(), 1u);
  const auto r = lookup.lookup(k(12));
  EXPECT_EQ(r.outcome, LookupOutcome::kBufferHit);
  ASSERT_TRUE(r.evicted.has_value());
  EXPECT_EQ(r.evicted->value(), 10u);
  EXPECT_TRUE(lookup.skc().contains(k(12)));
  EXPECT_FALSE(lookup.buffer()->contains(k(12)));
  EXPECT_EQ(lookup.lookup(k(12)).outcome, LookupOutcome::kSkcHit);
  const auto& s = lookup.stats();
  EXPECT_EQ(s.lookups, 4u);
  EXPECT_EQ(s.skc_hits, 1u);
  EXPECT_EQ(s.buffer_hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_DOUBLE_EQ(s.hit_rate(), 0.5);
}

TEST(KeyLookup, WithoutBufferPrefetchIsIgnored) {
  KeyLookup lookup({2, 0, "lru", 1}, 0);
  lookup.prefetch(k(1));
  EXPECT_EQ(lookup.buffer(), nullptr);
  EXPECT_EQ(lookup.lookup(k(1)).outcome, LookupOutcome::kMiss);
}

}  // namespace
}  // namespace ibsec::nic
