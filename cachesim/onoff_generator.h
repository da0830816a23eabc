// The synthetic ON/OFF session-key access generator of §4.4.
//
// Each of `keys` sessions alternates between ON (mean `on_mean`) and OFF
// (mean `off_mean`), both exponential, and while ON emits look-ups of its key
// as a Poisson process of rate `access_rate` (per the same time unit as the
// means). Only the order of look-ups matters to a cache, so the generator
// walks the embedded jump chain of the aggregate Markov process instead of
// keeping a clock: with k sessions ON, the next event is a look-up with
// probability k*r / T, an ON->OFF switch with k*mu / T and an OFF->ON switch
// with (n-k)*lambda / T (T the sum), and by memorylessness the session it
// concerns is uniform among the ON (or OFF) ones. That is exact in
// distribution and O(1) per event, where a per-session event queue costs
// O(log n). Sessions start in the stationary state (each ON with probability
// lambda/(lambda+mu)), so no warm-up is needed for the ON/OFF process itself.
#pragma once

#include <cstdint>
#include <vector>

#include "core/random.h"
#include "core/types.h"

namespace ibsec::cachesim {

struct OnOffParams {
  uint64_t keys = 1000;        // number of sessions (session keys)
  double on_mean = 1.0;        // mean ON duration (any time unit)
  double off_mean = 9.0;       // mean OFF duration (same unit)
  double access_rate = 100.0;  // look-ups per time unit while ON
  uint64_t seed = 1;
};

// Throws ConfigError naming the field for zero keys or non-positive means.
void validate(const OnOffParams& params);

class OnOffGenerator {
 public:
  explicit OnOffGenerator(const OnOffParams& params);

  // The session key of the next look-up.
  SessionKeyId next();

  [[nodiscard]] uint64_t sessions_on() const { return on_count_; }
  [[nodiscard]] uint64_t transitions() const { return transitions_; }

 private:
  void switch_one(uint64_t position_lo, uint64_t count, bool to_on);

  // members_[0, on_count_) are ON, the rest OFF; position_[key] is the index
  // of key in members_, so a switch is a swap across the boundary.
  std::vector<uint32_t> members_;
  std::vector<uint32_t> position_;
  uint64_t on_count_ = 0;
  double access_rate_;
  double off_rate_;  // mu = 1/on_mean: rate of leaving ON
  double on_rate_;   // lambda = 1/off_mean: rate of leaving OFF
  uint64_t transitions_ = 0;
  Rng rng_;
};

}  // namespace ibsec::cachesim
