// Least frequently used, counting hits since the key was filled; ties go to
// the least recently used. The victim search scans the set: O(ways) per miss,
// which is fine for a comparison policy (LRU, the policy that matters for
// speed, is O(1)).
#include <limits>
#include <vector>

#include "nic/replacement_policy.h"

namespace ibsec::nic {
namespace {

class LfuPolicy final : public ReplacementPolicy {
 public:
  explicit LfuPolicy(const PolicyContext& context)
      : ways_(context.ways), count_(static_cast<size_t>(context.sets) * context.ways, 0), last_use_(count_.size(), 0) {}
  void on_hit(Slot slot, SessionKeyId) override {
    ++count_[slot];
    last_use_[slot] = ++clock_;
  }
  void on_fill(Slot slot, SessionKeyId) override {
    count_[slot] = 1;
    last_use_[slot] = ++clock_;
  }
  void on_erase(Slot slot) override { count_[slot] = 0; }
  Slot victim(uint32_t set) override {
    Slot best = set * ways_;
    for (Slot slot = best + 1; slot < (set + 1) * ways_; ++slot) {
      if (count_[slot] < count_[best] || (count_[slot] == count_[best] && last_use_[slot] < last_use_[best])) {
        best = slot;
      }
    }
    return best;
  }

 private:
  uint32_t ways_;
  std::vector<uint64_t> count_;
  std::vector<uint64_t> last_use_;
  uint64_t clock_ = 0;
};

}  // namespace

IBSEC_REGISTER_REPLACEMENT_POLICY("lfu", "least frequently used (ties: least recently used)", false, LfuPolicy)

}  // namespace ibsec::nic
