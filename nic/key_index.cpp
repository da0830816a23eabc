#include "nic/key_index.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace ibsec::nic {

KeyIndex::KeyIndex(uint32_t max_entries) {
  const size_t size = std::bit_ceil(std::max<size_t>(16, 2 * static_cast<size_t>(max_entries)));
  keys_.assign(size, kEmpty);
  slots_.assign(size, kNotFound);
  mask_ = size - 1;
  shift_ = 64 - std::countr_zero(size);
}

void KeyIndex::insert(uint64_t key, uint32_t slot) {
  assert(key != kEmpty);
  size_t i = home(key);
  while (keys_[i] != kEmpty) {
    assert(keys_[i] != key);
    i = (i + 1) & mask_;
  }
  keys_[i] = key;
  slots_[i] = slot;
}

void KeyIndex::erase(uint64_t key) {
  size_t hole = home(key);
  while (keys_[hole] != key) {
    assert(keys_[hole] != kEmpty);
    hole = (hole + 1) & mask_;
  }
  // Backward shift: move later members of the probe run into the hole when
  // their home position does not lie cyclically in (hole, i].
  for (size_t i = (hole + 1) & mask_; keys_[i] != kEmpty; i = (i + 1) & mask_) {
    const size_t want = home(keys_[i]);
    const bool stays = hole <= i ? (hole < want && want <= i) : (hole < want || want <= i);
    if (!stays) {
      keys_[hole] = keys_[i];
      slots_[hole] = slots_[i];
      hole = i;
    }
  }
  keys_[hole] = kEmpty;
  slots_[hole] = kNotFound;
}

}  // namespace ibsec::nic
