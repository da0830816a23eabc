// Maps a cached session key to the slot that holds it, in O(1).
//
// Open addressing with linear probing and backward-shift deletion (no
// tombstones, so probe lengths do not grow over a long run). The table is at
// least twice the number of slots, which keeps the expected probe length
// near one; for a 1024-entry SKC it is 24 KB and stays in the L1/L2 cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibsec::nic {

class KeyIndex {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  explicit KeyIndex(uint32_t max_entries);

  [[nodiscard]] uint32_t find(uint64_t key) const {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return slots_[i];
      if (keys_[i] == kEmpty) return kNotFound;
    }
  }
  void insert(uint64_t key, uint32_t slot);  // key must be absent
  void erase(uint64_t key);                  // key must be present

 private:
  // Session-key identifiers are 64-bit; the all-ones value is reserved.
  static constexpr uint64_t kEmpty = UINT64_MAX;

  [[nodiscard]] size_t home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> slots_;
  size_t mask_;
  int shift_;
};

}  // namespace ibsec::nic
