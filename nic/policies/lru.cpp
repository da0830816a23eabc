// Least recently used: the paper's policy (§3.1).
#include "nic/policies/recency_list.h"

namespace ibsec::nic {
namespace {

class LruPolicy final : public ReplacementPolicy {
 public:
  explicit LruPolicy(const PolicyContext& context) : order_(context.sets, context.ways) {}
  void on_hit(Slot slot, SessionKeyId) override { order_.move_to_front(slot); }
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

}  // namespace

IBSEC_REGISTER_REPLACEMENT_POLICY("lru", "least recently used (the paper's policy)", false, LruPolicy)

}  // namespace ibsec::nic
