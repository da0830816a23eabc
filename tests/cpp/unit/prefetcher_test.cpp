#include <gtest/gtest.h>

#include <vector>

#include "core/session_pairs.h"
#include "nic/key_lookup.h"
#include "nic/prefetcher.h"

namespace ibsec::nic {
namespace {

constexpr uint32_t kProcesses = 8;

SessionKeyId key(uint32_t a, uint32_t b) { return session_key(a, b, kProcesses); }

// Every key queued, in the order the card would read them.
std::vector<SessionKeyId> drain(Prefetcher& prefetcher) {
  std::vector<SessionKeyId> keys;
  while (const auto next = prefetcher.start_next()) {
    keys.push_back(*next);
    EXPECT_EQ(prefetcher.finish(), *next);
  }
  return keys;
}

// Processes 0 and 1 live on this card; 0 runs, 1 lost keys it shares with 5 and 6.
Prefetcher with_two_local_processes() {
  Prefetcher prefetcher(4, kProcesses);
  prefetcher.handed_over(ProcessId(1));
  prefetcher.handed_over(ProcessId(0));
  prefetcher.evicted(key(1, 5));
  prefetcher.evicted(key(6, 1));
  return prefetcher;
}

TEST(Prefetcher, ArrivalForAnotherLocalProcessQueuesItsKeysMostRecentlyEvictedFirst) {
  KeyLookup lookup({2, 0, "lru", 1}, 2);
  Prefetcher prefetcher = with_two_local_processes();
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(1), lookup));
  EXPECT_EQ(drain(prefetcher), (std::vector{key(1, 6), key(1, 5)}));
}

TEST(Prefetcher, ArrivalForTheRunningProcessOrTheOneJustPrefetchedForQueuesNothing) {
  KeyLookup lookup({2, 0, "lru", 1}, 2);
  Prefetcher prefetcher = with_two_local_processes();
  EXPECT_FALSE(prefetcher.arrived_for(ProcessId(0), lookup));
  EXPECT_FALSE(prefetcher.has_queued());
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(1), lookup));
  drain(prefetcher);
  EXPECT_FALSE(prefetcher.arrived_for(ProcessId(1), lookup));  // once per switch
  EXPECT_FALSE(prefetcher.has_queued());
  prefetcher.handed_over(ProcessId(1));  // 1 ran, then 0 again: the next arrival for 1 is a new switch
  prefetcher.handed_over(ProcessId(0));
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(1), lookup));
  EXPECT_EQ(drain(prefetcher).size(), 2u);
}

TEST(Prefetcher, KeysOnTheCardInFlightOrQueuedAreNotQueuedAgain) {
  KeyLookup lookup({2, 0, "lru", 1}, 2);
  Prefetcher prefetcher = with_two_local_processes();
  lookup.lookup(key(1, 5));  // into the SKC
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(1), lookup));
  EXPECT_EQ(prefetcher.start_next(), key(1, 6));  // in flight
  EXPECT_FALSE(prefetcher.has_queued());
  EXPECT_FALSE(prefetcher.start_next().has_value()) << "one key at a time";
  prefetcher.handed_over(ProcessId(1));
  prefetcher.handed_over(ProcessId(0));
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(1), lookup));
  EXPECT_FALSE(prefetcher.has_queued()) << "the key in flight is not queued twice";
  EXPECT_EQ(prefetcher.finish(), key(1, 6));
}

TEST(Prefetcher, ADemandMissCancelsAQueuedKey) {
  KeyLookup lookup({2, 0, "lru", 1}, 2);
  Prefetcher prefetcher = with_two_local_processes();
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(1), lookup));
  EXPECT_TRUE(prefetcher.cancel(key(1, 6)));
  EXPECT_FALSE(prefetcher.cancel(key(1, 6)));
  EXPECT_EQ(drain(prefetcher), (std::vector{key(1, 5)}));
}

TEST(Prefetcher, KeysOfProcessesElsewhereAreNotKept) {
  KeyLookup lookup({2, 0, "lru", 1}, 2);
  Prefetcher prefetcher(4, kProcesses);
  prefetcher.handed_over(ProcessId(0));
  prefetcher.evicted(key(2, 3));                              // neither lives here
  EXPECT_TRUE(prefetcher.arrived_for(ProcessId(2), lookup));  // 2 is now seen here, with no keys kept
  EXPECT_FALSE(prefetcher.has_queued());
}

}  // namespace
}  // namespace ibsec::nic
