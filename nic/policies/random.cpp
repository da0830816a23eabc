// Uniformly random victim within the set, from the run's seeded generator.
#include "core/random.h"
#include "nic/replacement_policy.h"

namespace ibsec::nic {
namespace {

class RandomPolicy final : public ReplacementPolicy {
 public:
  explicit RandomPolicy(const PolicyContext& context) : ways_(context.ways), rng_(context.seed) {}
  void on_hit(Slot, SessionKeyId) override {}
  void on_fill(Slot, SessionKeyId) override {}
  void on_erase(Slot) override {}
  Slot victim(uint32_t set) override { return set * ways_ + static_cast<Slot>(rng_.below(ways_)); }

 private:
  uint32_t ways_;
  Rng rng_;
};

}  // namespace

IBSEC_REGISTER_REPLACEMENT_POLICY("random", "uniformly random victim (seeded)", false, RandomPolicy)

}  // namespace ibsec::nic
