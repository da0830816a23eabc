#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "core/sparse_array.h"

namespace ibsec {
namespace {

struct Slot {
  uint32_t packet;
  uint16_t output;
  uint16_t bytes;
};

// The pages of [data, data + bytes) that are resident.
size_t resident_pages(const void* data, size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(data) / page * page;
  const size_t pages = (reinterpret_cast<uintptr_t>(data) + bytes - start + page - 1) / page;
  std::vector<unsigned char> in_core(pages);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(start), pages * page, in_core.data()), 0);
  size_t resident = 0;
  for (const unsigned char c : in_core) resident += c & 1U;
  return resident;
}

// Entries keep what is written to them, below and above the size mapped apart.
TEST(SparseArray, KeepsWhatIsWrittenWhereverItIsKept) {
  for (const size_t count :
       {size_t{1}, size_t{100}, SparseArray<Slot>::kOwnMappingBytes / sizeof(Slot), size_t{1} << 20}) {
    SparseArray<Slot> slots(count);
    EXPECT_EQ(slots.mapped(), count * sizeof(Slot) >= SparseArray<Slot>::kOwnMappingBytes) << count;
    for (size_t i = 0; i < count; i += 97) slots[i] = Slot{static_cast<uint32_t>(i), 7, 9};
    for (size_t i = 0; i < count; i += 97) {
      ASSERT_EQ(slots[i].packet, i);
      ASSERT_EQ(slots[i].output, 7);
    }
  }
}

// In a large array only the pages written to are resident, even where the
// allocator's pages would be huge: writing the first entries of 16 MiB
// makes a page or two resident, not 512 of them.
TEST(SparseArray, OnlyThePagesWrittenToAreResident) {
  const size_t count = (size_t{16} << 20) / sizeof(Slot);
  SparseArray<Slot> slots(count);
  ASSERT_TRUE(slots.mapped());
  EXPECT_EQ(resident_pages(slots.data(), count * sizeof(Slot)), 0U);
  for (size_t i = 0; i < 64; ++i) slots[i] = Slot{1, 2, 3};
  slots[count - 1] = Slot{4, 5, 6};
  EXPECT_LE(resident_pages(slots.data(), count * sizeof(Slot)), 3U);
}

}  // namespace
}  // namespace ibsec
