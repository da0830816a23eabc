// First in, first out: evicts the key that was filled longest ago, whatever
// its use since.
#include "nic/policies/recency_list.h"

namespace ibsec::nic {
namespace {

class FifoPolicy final : public ReplacementPolicy {
 public:
  explicit FifoPolicy(const PolicyContext& context) : order_(context.sets, context.ways) {}
  void on_hit(Slot, SessionKeyId) override {}
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

IBSEC_REGISTER_REPLACEMENT_POLICY("fifo", "first in, first out", false, FifoPolicy)

}  // namespace ibsec::nic
