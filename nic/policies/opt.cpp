// Belady's MIN: evict the key whose next use lies farthest in the future.
// Offline: it is given the whole access sequence and the accesses must follow
// it. Among demand-fetch policies (every miss is filled) it gives the highest
// hit rate for a given set mapping, so it bounds the others.
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "nic/replacement_policy.h"

namespace ibsec::nic {
namespace {

class OptPolicy final : public ReplacementPolicy {
 public:
  explicit OptPolicy(const PolicyContext& context)
      : ways_(context.ways),
        future_(context.future),
        next_use_(future_.size()),
        slot_next_(static_cast<size_t>(context.sets) * context.ways, kFree),
        heaps_(context.sets) {
    // Keys never used again get distinct "next uses" beyond the end, so that
    // every live heap entry is unique.
    std::unordered_map<uint64_t, uint64_t> seen;
    seen.reserve(1024);
    const uint64_t n = future_.size();
    for (uint64_t i = n; i-- > 0;) {
      auto [it, inserted] = seen.try_emplace(future_[i].value(), n + i);
      next_use_[i] = it->second;
      it->second = i;
    }
  }

  void on_hit(Slot slot, SessionKeyId key) override { record(slot, key); }
  void on_fill(Slot slot, SessionKeyId key) override { record(slot, key); }
  void on_erase(Slot slot) override { slot_next_[slot] = kFree; }

  Slot victim(uint32_t set) override {
    auto& heap = heaps_[set];
    while (!heap.empty()) {
      const auto [next, slot] = heap.top();
      heap.pop();
      if (slot_next_[slot] == next) {
        slot_next_[slot] = kFree;
        return slot;
      }
    }
    throw std::logic_error("opt policy: victim requested from a set with no valid slot");
  }

 private:
  static constexpr uint64_t kFree = UINT64_MAX;

  void record(Slot slot, SessionKeyId key) {
    if (cursor_ >= future_.size() || future_[cursor_] != key) {
      throw std::logic_error("opt policy: the accesses do not follow the sequence it was given (position " +
                             std::to_string(cursor_) + ")");
    }
    slot_next_[slot] = next_use_[cursor_];
    heaps_[slot / ways_].push({next_use_[cursor_], slot});
    ++cursor_;
  }
  uint32_t ways_;
  std::span<const SessionKeyId> future_;
  std::vector<uint64_t> next_use_;
  std::vector<uint64_t> slot_next_;
  // Max-heap on next use, with stale entries dropped lazily.
  std::vector<std::priority_queue<std::pair<uint64_t, Slot>>> heaps_;
  uint64_t cursor_ = 0;
};

}  // namespace

IBSEC_REGISTER_REPLACEMENT_POLICY("opt", "Belady's offline optimum (needs the whole sequence)", true, OptPolicy)

}  // namespace ibsec::nic
