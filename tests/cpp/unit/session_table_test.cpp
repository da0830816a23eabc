#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>

#include "nic/session_table.h"

namespace ibsec::nic {
namespace {

struct Arrivals {
  uint32_t next_expected = 0;
  bool reordered = false;
};

// Random increments against a std::map, over more local processes than
// get a row: every entry starts value-initialised and keeps what was
// written to it, wherever the table keeps it.
void matches_a_map(uint32_t processes, uint32_t local_processes, uint32_t seed) {
  SessionTable<uint32_t> table(processes);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> expected;
  std::mt19937 rng(seed);
  for (int step = 0; step < 20000; ++step) {
    const uint32_t local = rng() % local_processes;
    const uint32_t remote = rng() % processes;
    const uint32_t add = rng() % 3;
    uint32_t& want = expected[std::make_pair(local, remote)];
    ASSERT_EQ(table(local, remote), want) << "step " << step;
    table(local, remote) += add;
    want += add;
  }
}

TEST(SessionTable, MatchesAMapWhetherItsEntriesAreInRowsOrHashed) {
  matches_a_map(16, 1, 1);
  matches_a_map(64, 9, 2);    // four local processes get rows, five are hashed
  matches_a_map(1024, 6, 3);  // a row is 4 KiB: rows
  matches_a_map(4096, 3, 4);  // a row would be 16 KiB: all hashed
}

TEST(SessionTable, GivesRowsToItsFirstLocalProcessesWhileARowIsSmall) {
  SessionTable<uint32_t> small(1024);
  for (uint32_t local = 0; local < 6; ++local) small(100 + local, 7) = local + 1;
  EXPECT_EQ(small.rows(), SessionTable<uint32_t>::kRows);
  for (uint32_t local = 0; local < 6; ++local) EXPECT_EQ(small(100 + local, 7), local + 1);

  SessionTable<Arrivals> eight_bytes(1024);  // 8 KiB a row: the largest kept
  eight_bytes(3, 1023).next_expected = 5;
  EXPECT_EQ(eight_bytes.rows(), 1U);
  SessionTable<Arrivals> too_large(1025);
  too_large(3, 1024).next_expected = 5;
  EXPECT_EQ(too_large.rows(), 0U);
  EXPECT_EQ(too_large(3, 1024).next_expected, 5U);
  EXPECT_FALSE(too_large(3, 1024).reordered);
}

// A prefetch is a hint: it makes no row and no entry, and changes none.
TEST(SessionTable, APrefetchChangesNothing) {
  SessionTable<uint32_t> table(64);
  table(5, 3) = 9;
  table.prefetch(5, 3);
  table.prefetch(6, 3);  // a local process without a row
  EXPECT_EQ(table.rows(), 1U);
  EXPECT_EQ(table(5, 3), 9U);
}

// A reference taken before more rows are made still names its entry.
TEST(SessionTable, AnEntryStaysWhereItIsAsRowsAreAdded) {
  SessionTable<uint32_t> table(256);
  uint32_t& first = table(0, 255);
  for (uint32_t local = 1; local < 10; ++local) table(local, 0) = local;
  first = 42;
  EXPECT_EQ(table(0, 255), 42U);
}

}  // namespace
}  // namespace ibsec::nic
