// One doubly linked list per set, threaded through slot indices, ordering
// the slots of each set from most to least recently linked. O(1) link,
// unlink and tail; shared by LRU (relink on hit) and FIFO (link on fill).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "nic/replacement_policy.h"

namespace ibsec::nic {

class RecencyList {
 public:
  RecencyList(uint32_t sets, uint32_t ways)
      : set_shift_(sets == 1 ? 31 : std::countr_zero(ways)),
        first_sentinel_(sets * ways),
        next_(sets * ways + sets),
        prev_(next_.size()) {
    for (uint32_t s = 0; s < sets; ++s) {
      const uint32_t head = first_sentinel_ + s;
      next_[head] = prev_[head] = head;
    }
  }

  void push_front(Slot slot) {
    const uint32_t head = sentinel(slot);
    const uint32_t first = next_[head];
    next_[slot] = first;
    prev_[slot] = head;
    prev_[first] = slot;
    next_[head] = slot;
  }
  void unlink(Slot slot) {
    next_[prev_[slot]] = next_[slot];
    prev_[next_[slot]] = prev_[slot];
  }
  void move_to_front(Slot slot) {
    unlink(slot);
    push_front(slot);
  }
  [[nodiscard]] Slot back(uint32_t set) const { return prev_[first_sentinel_ + set]; }

 private:
  // A shift, not a division, because this runs on every hit. Ways is a power
  // of two whenever there is more than one set; a single set (fully
  // associative, any size up to 2^30) shifts every slot down to set 0.
  [[nodiscard]] uint32_t sentinel(Slot slot) const { return first_sentinel_ + (slot >> set_shift_); }

  int set_shift_;
  uint32_t first_sentinel_;
  std::vector<uint32_t> next_;
  std::vector<uint32_t> prev_;
};

}  // namespace ibsec::nic

namespace ibsec::nic {

// LRU and FIFO keep the same per-set order and differ only in whether a hit
// moves the key to the front.
template <bool kRefreshOnHit>
class RecencyPolicy final : public ReplacementPolicy {
 public:
  explicit RecencyPolicy(const PolicyContext& context) : order_(context.sets, context.ways) {}
  void on_hit(Slot slot, SessionKeyId) override {
    if constexpr (kRefreshOnHit) order_.move_to_front(slot);
  }
  void on_fill(Slot slot, SessionKeyId) override { order_.push_front(slot); }
  void on_erase(Slot slot) override { order_.unlink(slot); }
  Slot victim(uint32_t set) override {
    const Slot slot = order_.back(set);
    order_.unlink(slot);
    return slot;
  }

 private:
  RecencyList order_;
};

}  // namespace ibsec::nic
