#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "nic/stage_ring.h"

namespace ibsec::nic {
namespace {

template <typename Ring>
std::vector<int> contents(const Ring& ring) {
  return {ring.begin(), ring.end()};
}

// Random pushes, pops and erases against a deque, over capacities below, at
// and above the places kept inline: the same entries in the same order, and
// the same answers to empty, full, size, front and back, after every step.
template <size_t kInline>
void matches_a_deque(size_t capacity, uint32_t seed) {
  StageRing<int, kInline> ring(capacity);
  std::deque<int> expected;
  std::mt19937 rng(seed);
  int next = 0;
  for (int step = 0; step < 2000; ++step) {
    const uint32_t op = rng() % 3;
    if (op == 0 && expected.size() < capacity) {
      ring.push_back(next);
      expected.push_back(next++);
    } else if (op == 1 && !expected.empty()) {
      ring.pop_front();
      expected.pop_front();
    } else if (op == 2 && !expected.empty()) {
      const size_t at = rng() % expected.size();
      ring.erase(std::next(ring.begin(), static_cast<std::ptrdiff_t>(at)));
      expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(at));
    }
    ASSERT_EQ(contents(ring), std::vector<int>(expected.begin(), expected.end())) << "step " << step;
    ASSERT_EQ(ring.size(), expected.size());
    ASSERT_EQ(ring.empty(), expected.empty());
    ASSERT_EQ(ring.full(), expected.size() == capacity);
    if (!expected.empty()) {
      ASSERT_EQ(ring.front(), expected.front());
      ASSERT_EQ(ring.back(), expected.back());
    }
  }
}

TEST(StageRing, KeepsItsEntriesInOrderAsADequeWould) {
  for (size_t capacity = 1; capacity <= 6; ++capacity) {
    matches_a_deque<1>(capacity, static_cast<uint32_t>(capacity));
    matches_a_deque<2>(capacity, static_cast<uint32_t>(100 + capacity));
  }
}

TEST(StageRing, FindsAndErasesWithTheStandardAlgorithms) {
  StageRing<int, 1> ring(4);
  for (int v : {3, 8, 5}) ring.push_back(v);
  EXPECT_TRUE(std::ranges::any_of(ring, [](int v) { return v == 8; }));
  const auto found = std::ranges::find_if(ring, [](int v) { return v > 4; });
  ASSERT_NE(found, ring.end());
  EXPECT_EQ(*found, 8);
  ring.erase(found);
  EXPECT_EQ(contents(ring), (std::vector<int>{3, 5}));
}

// The point of the ring: once empty it starts again from its first place,
// so one entry at a time always sits inside the ring itself.
TEST(StageRing, OneEntryAtATimeStaysInTheRingItself) {
  StageRing<int, 1> ring(8);
  const auto* begin = reinterpret_cast<const char*>(&ring);
  const auto inside = [&](const int& entry) {
    const auto* at = reinterpret_cast<const char*>(&entry);
    return at >= begin && at < begin + sizeof(ring);
  };
  for (int v = 0; v < 20; ++v) {
    ring.push_back(v);
    EXPECT_TRUE(inside(ring.front())) << v;
    ring.pop_front();
  }
  // Two at a time: the second goes apart, and the ring comes back once it empties.
  ring.push_back(1);
  ring.push_back(2);
  EXPECT_FALSE(inside(ring.back()));
  ring.pop_front();
  ring.pop_front();
  ring.push_back(3);
  EXPECT_TRUE(inside(ring.front()));
}

}  // namespace
}  // namespace ibsec::nic
