#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/staggered_array.h"

namespace ibsec {
namespace {

// The size of a card or a switch: a whole, even number of lines, which
// allocated one by one would sit 40 lines (a 2 560-byte size class) apart.
struct alignas(64) Card {
  explicit Card(uint32_t id, std::vector<uint32_t>& destroyed) : id(id), destroyed(&destroyed) {}
  ~Card() { destroyed->push_back(id); }
  Card(const Card&) = delete;
  Card& operator=(const Card&) = delete;

  uint32_t id;
  std::vector<uint32_t>* destroyed;
  std::array<std::byte, 2432 - 16> rest{};
};
static_assert(sizeof(Card) == 38 * 64);

TEST(StaggeredArray, KeepsObjectsAnOddNumberOfLinesApartSoOneFieldReachesEverySet) {
  std::vector<uint32_t> destroyed;
  StaggeredArray<Card> cards(1024);
  for (uint32_t i = 0; i < 1024; ++i) EXPECT_EQ(cards.emplace_back(i, destroyed).id, i);
  EXPECT_EQ(StaggeredArray<Card>::kStrideBytes, 39U * 64);
  // The set a 64-set, 64-byte-line cache (a 32 KiB, 8-way L1) puts each card's first line in.
  std::set<uintptr_t> sets;
  for (size_t i = 0; i < cards.size(); ++i) {
    const auto address = reinterpret_cast<uintptr_t>(&cards[i]);
    EXPECT_EQ(address % 64, 0U);
    sets.insert(address / 64 % 64);
  }
  EXPECT_EQ(sets.size(), 64U);  // at 40 lines apart: 8
}

TEST(StaggeredArray, DestroysWhatItBuiltAndRefusesToGrowPastItsCapacity) {
  std::vector<uint32_t> destroyed;
  {
    StaggeredArray<Card> cards(3);
    cards.emplace_back(7, destroyed);
    cards.emplace_back(8, destroyed);
    EXPECT_EQ(cards.size(), 2U);
    EXPECT_EQ(cards[1].id, 8U);
    cards.emplace_back(9, destroyed);
    EXPECT_THROW(cards.emplace_back(10, destroyed), std::logic_error);
    EXPECT_TRUE(destroyed.empty());
  }
  EXPECT_EQ(destroyed, (std::vector<uint32_t>{9, 8, 7}));
}

}  // namespace
}  // namespace ibsec
