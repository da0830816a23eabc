// The order the import hands events on in (traces/import/rank_queues.h):
// START, then rank, then each rank's own order, however pushes and pops
// interleave.
#include "traces/import/rank_queues.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace ibsec::traces {
namespace {

struct Item {
  uint64_t start_ns;
  uint32_t rank;
  uint32_t serial;  // its place among everything pushed

  auto key() const { return std::tie(start_ns, rank, serial); }
  bool operator==(const Item&) const = default;
};

std::vector<Item> in_format_order(std::vector<Item> items) {
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.key() < b.key(); });
  return items;
}

TEST(RankQueues, HandsOnByStartThenRankThenEachRanksOwnOrder) {
  RankQueues<Item> queues(3);
  const std::vector<Item> pushed = {{5, 2, 0}, {5, 2, 1}, {3, 1, 2}, {5, 0, 3}, {7, 1, 4}, {5, 0, 5}, {9, 2, 6}};
  for (const Item& item : pushed) queues.push(item.rank, item.start_ns, item);
  std::vector<Item> handed_on;
  while (!queues.empty()) {
    EXPECT_EQ(queues.next_start(), queues.next().start_ns);
    handed_on.push_back(queues.next());
    queues.pop();
  }
  EXPECT_EQ(handed_on, in_format_order(pushed));
}

// Many ranks, pops between pushes: only what no later push can precede is
// taken, as the builder and the clock shift do, and the order stays the
// format's.
TEST(RankQueues, InterleavedPushesAndPopsKeepTheOrder) {
  constexpr uint32_t kRanks = 37;
  std::mt19937_64 random(29);
  RankQueues<Item> queues(kRanks);
  std::vector<uint64_t> last_start(kRanks, 0);
  std::vector<Item> pushed;
  std::vector<Item> handed_on;
  uint64_t now = 0;
  for (uint32_t serial = 0; serial < 20'000; ++serial) {
    now += random() % 3;
    const auto rank = static_cast<uint32_t>(random() % kRanks);
    const uint64_t start = std::max(last_start[rank], now) + random() % 4;
    last_start[rank] = start;
    const Item item{start, rank, serial};
    pushed.push_back(item);
    queues.push(rank, start, item);
    // Every push to come starts at `now` or later.
    while (!queues.empty() && queues.next_start() < now) {
      handed_on.push_back(queues.next());
      queues.pop();
    }
  }
  while (!queues.empty()) {
    handed_on.push_back(queues.next());
    queues.pop();
  }
  EXPECT_EQ(handed_on, in_format_order(pushed));
}

}  // namespace
}  // namespace ibsec::traces
