// Session-key look-ups from ON/OFF sessions whose ON and OFF lengths follow
// any PeriodDistribution (an alternating renewal process per session),
// Poisson at `access_rate` while ON. Without memorylessness the jump chain of
// OnOffGenerator does not apply, so this one keeps a clock and a heap of each
// session's next switch: O(log n) per switch, O(1) per look-up (the look-ups
// of all ON sessions together are Poisson at k x access_rate, and the one that
// comes is uniform among the k). Sessions start in the stationary state of
// their renewal process: ON with probability on_mean / (on_mean + off_mean),
// with the equilibrium residual of the period they are in.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "cachesim/onoff_generator.h"
#include "cachesim/period_distribution.h"
#include "core/random.h"
#include "core/types.h"

namespace ibsec::cachesim {

// Laws of the ON and OFF lengths other than the exponential; unset: the
// exponential of OnOffParams::on_mean / off_mean.
struct PeriodLaws {
  std::optional<PeriodDistribution> on;
  std::optional<PeriodDistribution> off;

  [[nodiscard]] bool exponential() const { return !on && !off; }
};

// `params` with on_mean / off_mean set to the means of the laws that are set.
OnOffParams with_means(OnOffParams params, const PeriodLaws& laws);

class RenewalOnOffGenerator {
 public:
  RenewalOnOffGenerator(const OnOffParams& params, const PeriodLaws& laws);

  SessionKeyId next();

  [[nodiscard]] uint64_t sessions_on() const { return on_count_; }
  [[nodiscard]] uint64_t transitions() const { return transitions_; }

 private:
  using Switch = std::pair<double, uint32_t>;  // (time, session)

  [[nodiscard]] bool is_on(uint32_t key) const { return position_[key] < on_count_; }
  void flip(uint32_t key);
  void schedule(uint32_t key, double length);

  PeriodDistribution on_;
  PeriodDistribution off_;
  double access_rate_;
  // members_[0, on_count_) are ON, the rest OFF; position_[key] is its index.
  std::vector<uint32_t> members_;
  std::vector<uint32_t> position_;
  uint64_t on_count_ = 0;
  std::priority_queue<Switch, std::vector<Switch>, std::greater<>> switches_;
  double now_ = 0.0;
  uint64_t transitions_ = 0;
  Rng rng_;
};

}  // namespace ibsec::cachesim
